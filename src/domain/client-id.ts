// An agent's client id is either one Portico issued at registration, or the URL of a client ID
// metadata document the client publishes (oauth/client-metadata.ts). Kept apart so the storage
// adapter can tell them without importing the document fetcher.
export function isClientIdUrl(id: string): boolean {
  return id.startsWith('https://') || id.startsWith('http://')
}
