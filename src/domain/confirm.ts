// Disconnect confirmation for agents (the API contract, section 7): `confirm` must name the domain being
// removed. Matching ignores case, a scheme, a path or query, a port and a trailing dot, so an agent
// may pass the domain as it saw it ("https://Shop.Example.com/").
import { normalizeHostname } from './hostnames.ts'

export function confirmMatches(confirm: string, domain: string): boolean {
  const a = normalizeHostname(confirm)
  const b = normalizeHostname(domain)
  return a !== null && a === b
}
