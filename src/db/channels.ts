// PostgreSQL NOTIFY channels shared by the writer and its listeners, named once.

/** A revoked API key's hash (hex): every process's key cache evicts it (src/adapters/key-cache.ts). */
export const KEYS_CHANNEL = 'portico_keys'
