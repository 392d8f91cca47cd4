// A write refused midway (issue 46): most hosts have no atomic batch, so a change set is several calls,
// and a host may refuse the third after the first two went through (DigitalOcean answers the POST of
// the new CNAME 422, 500 or 429 after the DELETE of the customer's old one; Gandi answers the apex
// ALIAS 409 after the apex A set was removed). Whatever the adapter, the zone is then read again and
// every set the write touched that no longer holds what it held before is written back with its old
// values (and the provider attributes read with them); what still differs after that is named, with
// its old values, on the error (`ProviderError.rollback`), so the answer and the connection can say
// exactly what was not put back. An adapter whose write is one atomic call (Route 53, Cloudflare's
// batch, PowerDNS, deSEC's bulk PATCH) finds nothing changed and nothing to do.
import { canonicalName, ProviderError, type DnsProvider, type RRset, type RRsetChange, type WriteRollback, type Zone } from './types.ts'

const keyOf = (name: string, type: string) => `${canonicalName(name)}|${type}`

function sameSet(a: RRset | undefined, b: RRset | undefined): boolean {
  const av = a?.values ?? []
  const bv = b?.values ?? []
  if (av.length === 0 && bv.length === 0) return true
  if (!a || !b || a.ttl !== b.ttl || av.length !== bv.length) return false
  const sb = [...bv].sort()
  return [...av].sort().every((v, i) => v === sb[i])
}

/**
 * Writes `changes` into a zone that held `before`; on a refusal after part of it went through, puts
 * back what it changed and throws the refusal with `rollback` saying what was and was not put back.
 */
export async function writeOrRestore(p: DnsProvider, zone: Zone, changes: RRsetChange[], before: RRset[]): Promise<void> {
  try {
    await p.writeChanges(zone, changes)
  } catch (err) {
    // `unrepresentable` is refused before anything is sent; anything else may have landed halfway.
    if (err instanceof ProviderError && err.kind === 'unrepresentable') throw err
    const e = err instanceof ProviderError ? err : Object.assign(new ProviderError('write_failed', `${p.id} gave an answer Portico could not read`), { cause: err })
    e.rollback = await restore(p, zone, changes, before)
    throw e
  }
}

async function restore(p: DnsProvider, zone: Zone, changes: RRsetChange[], before: RRset[]): Promise<WriteRollback> {
  const was = new Map(before.map((s) => [keyOf(s.name, s.type), s]))
  const touched = [...new Map(changes.map((c) => [keyOf(c.name, c.type), c])).values()]
  /** The touched sets the zone no longer holds as before; null when the zone cannot be read. */
  const differing = async (): Promise<RRsetChange[] | null> => {
    let now: Map<string, RRset>
    try {
      now = new Map((await p.readRecords(zone)).map((s) => [keyOf(s.name, s.type), s]))
    } catch {
      return null
    }
    return touched.filter((c) => !sameSet(was.get(keyOf(c.name, c.type)), now.get(keyOf(c.name, c.type))))
  }
  // Unreadable: every touched set is written back as it was, then read again.
  const changed = (await differing()) ?? touched
  if (changed.length === 0) return { restored: [], not_restored: [] }
  const undo: RRsetChange[] = changed.map((c) => {
    const b = was.get(keyOf(c.name, c.type))
    return { name: c.name, type: c.type, ttl: b?.ttl ?? c.ttl, values: b?.values ?? [], ...(b?.native ? { native: b.native } : {}) }
  })
  try {
    await p.writeChanges(zone, undo)
  } catch {
    // Named below: what the zone still holds differently is what was not put back.
  }
  const left = (await differing()) ?? changed
  const stays = new Set(left.map((c) => keyOf(c.name, c.type)))
  return {
    restored: changed.filter((c) => !stays.has(keyOf(c.name, c.type))).map((c) => ({ name: canonicalName(c.name), type: c.type })),
    not_restored: left.map((c) => {
      const b = was.get(keyOf(c.name, c.type))
      return { name: canonicalName(c.name), type: c.type, ttl: b?.ttl ?? null, values: [...(b?.values ?? [])].sort() }
    }),
  }
}
