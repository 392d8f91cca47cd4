// What agents read about each tool, keyed by operation id: the registry says what an operation is for
// REST; this file says it again in an agent's terms (what it does, when to use it, what comes back),
// without HTTP statuses, widget tokens or REST path syntax. It also holds the MCP-only facts:
// - toolset: the group a client may choose (toolsets.ts);
// (The tool annotations are not written here: they derive from the operation's declarations, annotations.ts.)
// - `app`: the result is shown by the connect MCP App (app.ts);
// - `output`: the fields an agent uses, kept in the tool's output schema (the full record is still
//   returned in structuredContent; the schema stays open so the extra fields validate);
// - `require`: inputs optional for other callers that an agent must send;
// - `describe`: what an input means, in an agent's words, where the REST wording would mislead;
// - `inputs`: when set, the only inputs the tool offers (an agent never handles a DNS provider's API
//   key: it applies with an account a person saved); others are refused as unknown arguments.
// A test fails when an agent operation has no entry here, so a new operation cannot ship with REST
// wording.
import type { Toolset } from './toolsets.ts'

export interface AgentText {
  description: string
  toolset: Toolset
  output?: readonly string[]
  require?: readonly string[]
  inputs?: readonly string[]
  /** The result is shown with the connect MCP App (app.ts) where the host can, as text elsewhere. */
  app?: true
  /** A hand-written output schema, for operations whose response schema is free-form. */
  outputSchema?: Record<string, unknown>
  /** Input descriptions in an agent's words, by input name. */
  describe?: Record<string, string>
}

/** `application_id` as an agent reads it. */
const APPLICATION_ID =
  'The application (product) the domain is for: an id from applications_list (`app_…`). Leave it out when the workspace has a single application, which is then used; with several, it is required.'

const APP_HINT = 'Use applications_list to find the application id when the workspace has more than one.'

export const AGENT_TEXTS: Record<string, AgentText> = {
  'applications.list': {
    description: 'Lists the workspace\'s applications (the products domains get attached to). Start here: other tools need an application id. Returns id, name and environment of each.',
    toolset: 'read',
    inputs: [],
    output: ['applications', 'count'],
  },
  'applications.get': {
    description: 'Reads one application by id: its name, environment and where connected domains point.',
    toolset: 'read',
    output: ['id', 'name', 'environment'],
  },
  'domains.check': {
    description:
      `Checks a domain before connecting it, with live DNS lookups: who hosts its DNS, whether it is registered, which ways of connecting are available (rails: oauth, domainConnect, apiKey, manual) and the recommended one, records that would conflict, and the records that will be needed. Changes nothing. ${APP_HINT}`,
    toolset: 'connect',
    describe: { application_id: APPLICATION_ID },
    outputSchema: {
      type: 'object',
      properties: {
        domain: { type: 'string', description: 'The domain checked, normalized' },
        apex_domain: { type: 'string', description: 'Its registrable domain (the zone\'s apex)' },
        is_apex: { type: 'boolean' },
        provider: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Id of the DNS provider detected from the nameservers; null when unknown' },
        provider_name: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        registered: { type: 'boolean', description: 'False only when the domain does not exist; absent when the lookup failed (detection_error)' },
        detection_error: { type: 'string', description: '`resolver` when DNS could not be asked; try again' },
        nameservers: { type: 'array', items: { type: 'string' } },
        rails: {
          type: 'object',
          description: 'Each way of connecting: available, and why not (reason) or what to mind (caveat)',
          properties: Object.fromEntries(
            ['oauth', 'domainConnect', 'apiKey', 'manual'].map((k) => [
              k,
              { type: 'object', properties: { available: { type: 'boolean' }, reason: { type: 'string' }, caveat: { type: 'string' } }, required: ['available'] },
            ]),
          ),
          required: ['oauth', 'domainConnect', 'apiKey', 'manual'],
        },
        recommended_rail: { anyOf: [{ type: 'string', enum: ['oauth', 'domainConnect', 'apiKey', 'manual'] }, { type: 'null' }], description: 'The first available rail; null when none is' },
        apex_strategy: { type: 'string', description: 'How the domain would point at the application: `not_apex` (a subdomain: a CNAME), the provider\'s apex record (`flattening`, `alias`, `aname`), `a_records`, or `unsupported`' },
        conflicts: {
          type: 'array',
          description: 'Records already published that stand in the way of the needed ones',
          items: { type: 'object', properties: { type: { type: 'string' }, host: { type: 'string' }, value: { type: 'string' }, action: { type: 'string', enum: ['replace', 'remove'] } } },
        },
        desired_records: {
          type: 'array',
          description: 'The records connecting would need (host relative to the domain, "@" is the domain itself)',
          items: { type: 'object', properties: { type: { type: 'string' }, host: { type: 'string' }, value: { type: 'string' } } },
        },
        blocked_reason: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why the domain cannot be connected at all (platform_subdomain, not_registered, not_delegated, apex_not_supported); null when it can' },
        dashboard_url: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'The DNS provider\'s dashboard, for setting records by hand' },
      },
      required: ['domain', 'rails', 'recommended_rail', 'conflicts', 'desired_records', 'blocked_reason'],
    },
  },
  'connections.create': {
    description:
      `Starts connecting a domain to an application. Returns the connection (status pending) with the DNS records the person must add; then follow it with connections_get, or use a connect tool (apply, provider sign-in, one-click) to write the records. ${APP_HINT}`,
    app: true,
    toolset: 'connect',
    describe: {
      application_id: APPLICATION_ID,
      records: 'Leave out: the application\'s planned records are used. A record set of your own needs the domains:records scope, which your person grants separately because it can change where mail goes (MX) or who runs the domain\'s DNS (NS).',
    },
    output: ['id', 'domain', 'status', 'rail', 'records', 'error_code', 'error_message'],
  },
  'connections.list': {
    description: 'Lists the workspace\'s connected domains, oldest first. Filters: app_id (one application\'s, an id from applications_list) and status (pending, propagating, live or failed); limit (1 to 200, default 50). Pass next_cursor back as cursor for the next page.',
    describe: { app_id: 'Only this application\'s connections: an id from applications_list (`app_…`)', status: 'Only connections in this status', cursor: 'next_cursor from the previous page' },
    toolset: 'read',
    output: ['connections', 'next_cursor'],
  },
  'connections.get': {
    description:
      'Reads one connection: its status (pending → propagating → live, or failed with a reason), the records it needs and when it was last checked. Use it to follow a connection after creating it.',
    app: true,
    toolset: 'read',
    output: ['id', 'domain', 'status', 'rail', 'error_code', 'error_message', 'last_checked_at', 'live_at'],
  },
  'connections.records.get': {
    description: 'The DNS records the person has to add at their DNS provider for a connection (host relative to the domain, "@" is the domain itself), with the provider\'s own steps when known. Show these when the person sets up DNS by hand.',
    app: true,
    toolset: 'read',
    output: ['domain', 'records', 'manual_steps', 'dashboard_url'],
  },
  'connections.recheck': {
    description: 'Looks the connection\'s records up in DNS now, instead of waiting for the next scheduled check, after the person says they added them. Returns the connection with its new status.',
    app: true,
    toolset: 'connect',
    output: ['id', 'domain', 'status', 'error_code', 'error_message', 'last_checked_at'],
  },
  'connections.disconnect': {
    description:
      'Detaches a domain for good: removes the records Portico wrote, stops serving it and its certificate. Your person confirms first: where your client supports elicitation Portico asks them itself; otherwise the call answers confirmation_required with details.confirm_url, a link to give your person to open, sign in and confirm, after which the same call goes through. Returns what was removed.',
    toolset: 'manage',
    inputs: ['id'],
    output: ['domain', 'disconnected', 'records'],
  },
  'billing.standing': {
    description: 'Whether the workspace may connect more domains now (plan, usage, and what needs attention). Check it when connecting is refused for billing.',
    toolset: 'read',
    output: ['restricted', 'attention', 'plan', 'usage'],
  },
  'monitor.domains': {
    description: 'Lists the watched domains, those needing attention first (records drifted, repaired or failing), with a summary count. Pass next_cursor back for the next page.',
    toolset: 'read',
    output: ['summary', 'domains', 'next_cursor'],
  },
  'connections.monitor': {
    description: 'The watch history of one connection: whether its records are still in place, what drifted and what was repaired, newest first.',
    toolset: 'read',
    output: ['domain', 'status', 'watched', 'drift', 'attention', 'history'],
  },
  'connections.bulk': {
    description: `Connects many domains (up to 200) to one application in one call, each on its own: returns one result per domain, in order, saying connected (new, pending), already (connected before) or failed with the reason. Follow each with connections_get. ${APP_HINT}`,
    toolset: 'connect',
    describe: { application_id: APPLICATION_ID },
    output: ['results'],
  },
  'provider_accounts.list': {
    description: 'Lists the DNS provider accounts people saved in this workspace (provider, label, whether it needs reconnecting) and the domains each manages. Use an account\'s id with connections_apply.',
    toolset: 'connect',
    output: ['accounts'],
  },
  'connections.apply': {
    description: 'Writes a connection\'s records at its DNS provider with a provider account a person saved (see provider_accounts_list), keeping the zone\'s other records and remembering what it replaced so a disconnect can restore it. When the write would replace records already in the zone (an address at the domain itself, MX, NS, a TXT in use), your person confirms first: through elicitation where your client supports it, otherwise the call answers confirmation_required with details.confirm_url for them to open, and the same call then goes through. Returns the connection (now propagating) and whether anything changed; applying the same records again changes nothing.',
    toolset: 'connect',
    inputs: ['id', 'provider_account_id'],
    require: ['provider_account_id'],
    output: ['connection', 'changed', 'zone'],
  },
  'connections.oauth_start': {
    description: 'Starts signing in at the domain\'s DNS provider so Portico can write the records: returns a link for the person to open (valid ten minutes). Once they approve at the provider, the records are written and the connection moves on by itself; follow it with connections_get. Use when domains_check says the oauth rail is available.',
    toolset: 'connect',
    inputs: ['id'],
    output: ['authorize_url', 'expires_at', 'provider'],
  },
  'connections.domainconnect_start': {
    description: 'Starts the one-click setup (Domain Connect) at the domain\'s DNS provider: returns the link for the person to open and confirm there; the provider then writes the records. Use when domains_check says the domainConnect rail is available.',
    toolset: 'connect',
    inputs: ['id'],
    output: ['apply_url', 'consent_url', 'dc_provider_name'],
  },
  'share.create': {
    description: 'Makes a link to the manual setup of a connection (the records to add, step by step) for whoever controls the domain\'s DNS, when that is not the person in the conversation. The link needs no sign-in and lasts 30 days; each call makes a new one.',
    toolset: 'connect',
    output: ['url', 'expires_at'],
  },
  'ssl.get': {
    description: 'The certificate of a connected domain: whether it is issued, pending or failing, who issued it and when it expires. Answers not found until a certificate is tracked for the connection.',
    toolset: 'secure',
    output: ['certificate'],
  },
}
