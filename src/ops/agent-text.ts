// What agents read about an operation, declared with it (`agent` in src/ops/registry.ts): the registry
// says what an operation is for REST; its `agent` says it again in an agent's terms (what it does,
// when to use it, what comes back), without HTTP statuses, widget tokens or REST path syntax. It also
// holds the MCP-only facts the MCP face (mcp/tools.ts) reads:
// - toolset: the group a client may choose (TOOLSETS below; chosen per connection in mcp/toolsets.ts);
// - `app`: the result is shown by the connect MCP App (mcp/app.ts);
// - `output`: the fields an agent uses, kept in the tool's output schema (the full record is still
//   returned in structuredContent; the schema stays open so the extra fields validate);
// - `require`: inputs optional for other callers that an agent must send;
// - `describe`: what an input means, in an agent's words, where the REST wording would mislead;
// - `inputs`: when set, the only inputs the tool offers (an agent never handles a DNS provider's API
//   key: it applies with an account a person saved); others are refused as unknown arguments.
// (The tool annotations are not written here: they derive from the operation's declarations, mcp/annotations.ts.)
// Building the tools throws for an agent operation without one, so a new operation cannot ship with
// REST wording.

/** Toolsets: groups of tools a client chooses per connection (mcp/toolsets.ts), each with what it offers. */
export const TOOLSETS = {
  read: 'Look up applications, connections, their records, monitoring and billing standing',
  connect: 'Check and connect domains, and start the ways of writing their records',
  secure: 'Certificates of connected domains',
  manage: 'Disconnect domains',
} as const

export type Toolset = keyof typeof TOOLSETS

export interface AgentText {
  description: string
  toolset: Toolset
  output?: readonly string[]
  require?: readonly string[]
  inputs?: readonly string[]
  /** The result is shown with the connect MCP App (mcp/app.ts) where the host can, as text elsewhere. */
  app?: true
  /** A hand-written output schema, for operations whose response schema is free-form. */
  outputSchema?: Record<string, unknown>
  /** Input descriptions in an agent's words, by input name. */
  describe?: Record<string, string>
}

/** `application_id` as an agent reads it. */
export const APPLICATION_ID =
  'The application (product) the domain is for: an id from applications_list (`app_…`). Leave it out when the workspace has a single application, which is then used; with several, it is required.'

export const APP_HINT = 'Use applications_list to find the application id when the workspace has more than one.'
