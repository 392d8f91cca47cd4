// Providers whose APIs work per record, not per record set (Cloudflare, DigitalOcean, Hetzner): a set
// is read by grouping records of one name and type, and written by deleting the records that are not
// in the new set and creating the missing ones. What may stand beside the records it replaces is
// created first, and a deletion goes first only where the new record cannot stand beside the old one (a
// CNAME, an apex pointer, the same value again): coexist.ts. A call refused midway is put back by
// restore.ts.
import { coexistOrder } from './coexist.ts'
import { canonicalName, ProviderError, type DnsProvider, type HostConventions, type RRset, type RRsetChange, type Zone } from './types.ts'

export interface ProviderRecord {
  id: string
  name: string
  type: string
  ttl: number
  /** Canonical value (src/adapters/dns-providers/types.ts). */
  value: string
  /** Provider attributes the canonical value does not carry (Cloudflare's proxy status), written back on a restore. */
  native?: unknown
  /** Why this record cannot be written back as it is (its set is then never changed). */
  locked?: string
  /** Why the provider keeps this row itself (Vercel's system records): values may be added beside it,
   * but a change that would delete or rewrite it is refused before anything is written. */
  fixed?: string
}

export interface NewRecord {
  name: string
  type: string
  ttl: number
  value: string
  /** The provider attributes of the value, when it is restored (ProviderRecord.native). */
  native?: unknown
}

const isSpf = (v: string) => /^v=spf1(\s|$)/i.test(v)

export abstract class RecordBasedProvider implements DnsProvider {
  abstract readonly id: string
  abstract readonly conventions: HostConventions
  abstract listZones(): Promise<Zone[]>
  protected abstract listItems(zone: Zone): Promise<ProviderRecord[]>
  protected abstract createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void>
  protected abstract deleteItem(zone: Zone, item: ProviderRecord): Promise<void>

  async readRecords(zone: Zone): Promise<RRset[]> {
    const sets = new Map<string, RRset>()
    for (const r of await this.listItems(zone)) {
      const k = `${r.name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name: r.name, type: r.type, ttl: r.ttl, values: [] }
      if (!s.values.includes(r.value)) s.values.push(r.value)
      if (r.native !== undefined) s.native = { ...s.native, [r.value]: r.native }
      if (r.locked && !s.locked) s.locked = r.locked
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const { deletes, creates } = this.diff(await this.listItems(zone), changes)
    await this.applyDiff(zone, deletes, creates)
  }

  /** The records to delete and to create so each changed set holds exactly its new values. */
  protected diff(items: ProviderRecord[], changes: RRsetChange[]) {
    const deletes: ProviderRecord[] = []
    const creates: NewRecord[] = []
    for (const c of changes) {
      const existing = items.filter((i) => i.name === c.name && i.type === c.type)
      if (existing.some((i) => i.locked)) throw new ProviderError('unrepresentable', `${c.name} ${c.type} holds ${existing.find((i) => i.locked)!.locked}, which Portico cannot write back exactly as it is; nothing was written`)
      // A change that keeps the set's TTL (as read: its first record's) leaves every record whose value
      // stays untouched, whatever its own TTL: adding a TXT value never rewrites the others.
      const setTtl = existing[0]?.ttl
      const keep = existing.filter((i) => c.values.includes(i.value) && (i.ttl === c.ttl || c.ttl === setTtl))
      const gone = existing.filter((i) => !keep.includes(i))
      deletes.push(...gone)
      for (const v of c.values) {
        if (keep.some((k) => k.value === v)) continue
        // The record's own attributes (Cloudflare's comment, tags and proxy status; a Porkbun note) go
        // with the value they belong to: a restore brings its prior's; a value written again (a TTL
        // change) or the SPF value Portico merged terms into keeps what its record carried.
        const native = c.native?.[v] ?? gone.find((i) => i.value === v && i.native !== undefined)?.native ?? (isSpf(v) ? gone.find((i) => isSpf(i.value) && i.native !== undefined)?.native : undefined)
        creates.push({ name: c.name, type: c.type, ttl: c.ttl, value: v, ...(native !== undefined ? { native } : {}) })
      }
    }
    const fixed = deletes.find((d) => d.fixed)
    if (fixed) throw new ProviderError('unrepresentable', `${fixed.name} ${fixed.type} holds ${fixed.fixed}, which Portico cannot remove or rewrite; nothing was written`)
    return { deletes, creates }
  }

  /** One call per record, creations first where the host lets them stand beside what they replace; a
   * provider with a batch endpoint overrides this. */
  protected async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    for (const s of coexistOrder(deletes, creates)) {
      if ('del' in s) await this.deleteItem(zone, s.del)
      else await this.createItem(zone, s.put.name, s.put.type, s.put.ttl, s.put.value, s.put.native)
    }
  }
}

/** `@` and relative names as absolute canonical names. */
export function absoluteName(name: string, zone: string): string {
  const n = name.trim().toLowerCase().replace(/\.$/, '')
  if (n === '@' || n === '' || n === zone) return zone
  return n.endsWith('.' + zone) ? n : `${n}.${zone}`
}

/** An absolute name relative to its zone (`@` for the apex). */
export function relativeName(name: string, zone: string): string {
  return name === zone ? '@' : name.slice(0, -(zone.length + 1))
}

const relativeHost = (h: string, z: string) => hostValue(h, z)

/** A hostname in record data: with the trailing dot it is absolute, `@` is the apex, else relative to the zone. */
export function hostValue(value: string, zone: string): string {
  const v = value.trim().toLowerCase()
  if (v === '@') return zone
  if (v.endsWith('.')) return v.slice(0, -1)
  return v === zone || v.endsWith('.' + zone) ? v : `${v}.${zone}`
}

/** Types whose data is one hostname (a host's apex records among them). */
export const HOSTNAME_TYPES = new Set(['CNAME', 'NS', 'ALIAS', 'ANAME'])

/**
 * A canonical value as the many APIs that keep an MX priority in its own field take it: `data` is the
 * host or text (hostnames with a trailing dot when `dot`), `priority` set for MX only. TXT stays
 * unquoted unless the API wants zone-file strings (`quote`).
 */
export function toFields(type: string, value: string, opts: { dot?: boolean; quote?: (t: string) => string } = {}): { data: string; priority?: number } {
  const host = (h: string) => (opts.dot ? `${h}.` : h)
  if (type === 'MX') {
    const [p, h] = value.split(' ')
    return { data: host(h ?? ''), priority: Number(p) }
  }
  if (HOSTNAME_TYPES.has(type)) return { data: host(value) }
  if (type === 'TXT' && opts.quote) return { data: opts.quote(value) }
  return { data: value }
}

/** The canonical value of a record an API gives as `data` (and `priority` for MX). With `absolute`,
 * the API gives hostnames fully qualified whether or not they end in a dot. */
export function fromFields(type: string, data: string, priority: number | null | undefined, zone: string, unquote: (t: string) => string, absolute = false): string {
  const hostValue = absolute ? (h: string) => canonicalName(h) : (h: string, z: string) => relativeHost(h, z)
  if (type === 'MX') {
    // Some APIs give MX data as `10 host` in one field.
    const parts = data.trim().split(/\s+/)
    return parts.length === 2 ? `${Number(parts[0])} ${hostValue(parts[1]!, zone)}` : `${Number(priority ?? 0)} ${hostValue(data, zone)}`
  }
  if (HOSTNAME_TYPES.has(type)) return hostValue(data, zone)
  if (type === 'TXT') return unquote(data)
  return data.trim()
}
