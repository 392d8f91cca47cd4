// Providers whose APIs write whole record sets (Hetzner Cloud, Gandi LiveDNS, NS1, Google Cloud DNS):
// the current sets are read once, then each changed set is created or replaced in one call: sets that
// may stand beside the ones removed first, a removal first only where the new set cannot stand beside
// it (a CNAME, an apex pointer beside addresses: coexist.ts). A call refused midway is put back by
// restore.ts.
import { coexistOrder } from './coexist.ts'
import { ProviderError, type DnsProvider, type HostConventions, type RRset, type RRsetChange, type Zone } from './types.ts'

export abstract class RRsetBasedProvider implements DnsProvider {
  abstract readonly id: string
  abstract readonly conventions: HostConventions
  abstract listZones(): Promise<Zone[]>
  abstract readRecords(zone: Zone): Promise<RRset[]>
  /** Writes a set with values; `current` is the set as it stands, if there is one. */
  protected abstract putSet(zone: Zone, change: RRsetChange, current: RRset | undefined): Promise<void>
  protected abstract deleteSet(zone: Zone, current: RRset): Promise<void>

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const sets = await this.readRecords(zone)
    // Do no harm: a set read as locked is never rewritten or removed, whoever asks; checked before any write.
    const locked = changes.map((c) => sets.find((s) => s.name === c.name && s.type === c.type && s.locked)).find(Boolean)
    if (locked) throw new ProviderError('unrepresentable', `${locked.name} ${locked.type} holds ${locked.locked}, which Portico cannot write back exactly as it is; nothing was written`)
    await writeSets(sets, changes, (c, cur) => this.putSet(zone, c, cur), (cur) => this.deleteSet(zone, cur))
  }
}

/** Each changed set in one call, in the order coexist.ts gives. */
export async function writeSets(sets: RRset[], changes: RRsetChange[], put: (c: RRsetChange, cur: RRset | undefined) => Promise<void>, del: (cur: RRset) => Promise<void>): Promise<void> {
  const find = (c: { name: string; type: string }) => sets.find((s) => s.name === c.name && s.type === c.type)
  const dels = changes.filter((c) => c.values.length === 0 && find(c)).map((c) => find(c)!)
  for (const s of coexistOrder(dels, changes.filter((c) => c.values.length > 0))) {
    if ('del' in s) await del(s.del)
    else await put(s.put, find(s.put))
  }
}
