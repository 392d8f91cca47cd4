// Names a provider answers for itself: an ALIAS/ANAME (Gandi, DNSimple, Porkbun, Name.com, Scaleway),
// a bunny.net Flatten, Redirect or Pull Zone record, a Dynadot forward. Such a record stands in for
// the name's addresses (or a redirect) and the provider refuses, or serves unpredictably, an A, AAAA
// or CNAME beside it. Portico's planner does not know these kinds, so it would add its A beside the
// ALIAS and leave the ALIAS in place; the adapter refuses such a write before anything is sent,
// naming the record that stands there (do no harm: the person decides whether to take it away).
import { ProviderError, type RRset, type RRsetChange } from './types.ts'

const ADDRESS = new Set(['A', 'AAAA', 'CNAME'])

/**
 * Refuses (`unrepresentable`) a change set that writes an A, AAAA or CNAME at a name where one of
 * `kinds` stands and stays (the same change set does not remove it). Nothing is written.
 */
export function refuseBesideFlattened(provider: string, current: Pick<RRset, 'name' | 'type' | 'values'>[], changes: RRsetChange[], kinds: string[]): void {
  const removed = new Set(changes.filter((c) => c.values.length === 0).map((c) => `${c.name}|${c.type}`))
  for (const c of changes) {
    if (!ADDRESS.has(c.type) || c.values.length === 0) continue
    const standing = current.find((s) => s.name === c.name && kinds.includes(s.type) && s.values.length > 0 && !removed.has(`${s.name}|${s.type}`))
    if (standing) {
      throw new ProviderError('unrepresentable', `${c.name} is served by ${provider}'s ${standing.type} record (${standing.values.join(', ')}); a ${c.type} beside it would clash, so nothing was written. Remove the ${standing.type} record at ${provider} first if Portico should point this name.`)
    }
  }
}
