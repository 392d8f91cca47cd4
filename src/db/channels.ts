// PostgreSQL NOTIFY channels shared by the writer and its listeners, named once.

/** A revoked API key's hash (hex): every process's key cache evicts it (src/adapters/key-cache.ts). */
export const KEYS_CHANNEL = 'portico_keys'

/**
 * A person's answer to a confirmation Portico asked through a 2025-era MCP client, posted to whichever
 * process the client reached: the process waiting for it takes it (mcp/replies.ts).
 */
export const MCP_REPLIES_CHANNEL = 'portico_mcp_replies'
