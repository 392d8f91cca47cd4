// Providers whose APIs write whole record sets (Hetzner Cloud, Gandi LiveDNS, NS1, Google Cloud DNS):
// the current sets are read once, removals go first (so a CNAME never stands beside the sets it
// replaces), then each changed set is created or replaced in one call.
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
    const ordered = [...changes].sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
    for (const c of ordered) {
      const cur = sets.find((s) => s.name === c.name && s.type === c.type)
      if (c.values.length > 0) await this.putSet(zone, c, cur)
      else if (cur) await this.deleteSet(zone, cur)
    }
  }
}
