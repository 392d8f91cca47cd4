// The do-no-harm property, run against one adapter and its stand-in: seed a zone with the provider's
// own shapes (its card's seeds: provider-only kinds and zone settings, alias and routing records, long
// and non-ASCII TXT, records at the names Portico writes) beside a common baseline, apply Portico's
// plan, re-apply, revert, and hold everything outside the plan to be byte-identical at the stand-in
// after each step, zone-level settings included; the sets the plan touched must read back after the
// revert exactly as before (values, TTL and the provider's own attributes). Seeds that stand where the
// plan writes and cannot be written back (`blocks`) go in a second zone: there the apply must refuse
// with `unrepresentable` before writing anything. Returns the violations found (none: the adapter did
// no harm), so a test can also show that a harmful adapter is caught.
import { ProviderError, type DnsProvider, type RRset, type RRsetChange, type Zone } from '../../src/adapters/dns-providers/types.ts'
import { planApply, planRevert } from '../../src/domain/record-plan.ts'
import type { DnsRecord } from '../../src/domain/records.ts'
import type { Fake, FakeZone } from './provider-fakes/common.ts'
import type { ProviderCard } from '../../src/adapters/dns-providers/card-types.ts'
import { heldBy, unheldTypes } from './host-holds.ts'

export const DESIRED: DnsRecord[] = [
  { type: 'A', host: '@', value: '203.0.113.10', ttl: 300 },
  { type: 'CNAME', host: 'www', value: 'edge.portico.test', ttl: 300 },
  { type: 'SPFM', host: '@', value: 'include:_spf.portico.test' },
  { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
  { type: 'CAA', host: '@', value: '0 issue "pki.goog"' },
]

/** What every zone holds besides the provider's own shapes, written through the adapter. */
export function baseline(zone: string, ttl: number, without: string[] = []): RRsetChange[] {
  return [
    { name: zone, type: 'TXT', ttl, values: ['google-site-verification=abc', 'k=' + 'é'.repeat(200), ...(without.includes('SPF') ? [] : ['v=spf1 include:_spf.google.com ~all'])] },
    ...(without.includes('MX') ? [] : [{ name: zone, type: 'MX', ttl, values: [`10 mx1.${zone}`, `20 mx2.${zone}`] }]),
    { name: `www.${zone}`, type: 'A', ttl, values: ['198.51.100.2'] },
    { name: `_portico-challenge.${zone}`, type: 'TXT', ttl, values: ['other-vendor=1'] },
    { name: `mail.${zone}`, type: 'A', ttl, values: ['198.51.100.25'] },
  ]
}

export interface HarmCase {
  fake: Fake<any>
  provider: DnsProvider
  card?: ProviderCard
  /** A stored row's name and type (the heuristic below reads the usual field names). */
  rowKey?: (row: any, zone: string) => { name: string; type: string }
  /** Fields the provider assigns afresh on every write of the zone (Namecheap's HostId). */
  volatile?: string[]
  /** Stores a seed row the way the stand-in stores rows (ids assigned). */
  seedRow?: (zone: FakeZone<any>, row: any) => void
  /** What a fresh zone holds at the provider (Route 53: SOA and NS). */
  seedZone?: (zoneName: string, f: Fake<any>) => void
}

const NAME_FIELDS = ['name', 'hostname', 'host', 'Name', 'subDomain', 'rrset_name', 'sub', 'source', 'RR', 'record_name', 'subdomain', 'Host']
const TYPE_FIELDS = ['type', 'Type', 'fieldType', 'rrset_type', 'record_type', 'RecordType']
/** Provider types the adapters read as another (OVH's SPF, DKIM and DMARC are TXT). */
const AS_TYPE: Record<string, string> = { SPF: 'TXT', DKIM: 'TXT', DMARC: 'TXT' }

export function guessKey(row: any, zone: string): { name: string; type: string } {
  const rawName = NAME_FIELDS.map((f) => row?.[f]).find((v) => typeof v === 'string') ?? ''
  const rawType = String(TYPE_FIELDS.map((f) => row?.[f]).find((v) => typeof v === 'string') ?? '').toUpperCase()
  const n = String(rawName).toLowerCase().replace(/\.$/, '')
  const name = n === '' || n === '@' || n === zone ? zone : n.endsWith('.' + zone) ? n : `${n}.${zone}`
  return { name, type: AS_TYPE[rawType] ?? rawType }
}

interface Row {
  key: string
  raw: string
}

function rowsOf(h: HarmCase, zone: FakeZone<any>): Row[] {
  const key = h.rowKey ?? guessKey
  return zone.records.map((r) => {
    const k = key(r, zone.name)
    const copy = JSON.parse(JSON.stringify(r))
    for (const v of h.volatile ?? []) delete copy[v]
    return { key: `${k.name}|${k.type}`, raw: JSON.stringify(copy) }
  })
}

/** Rows of `before` outside `touched` that are not in `after` byte for byte. */
function missing(before: Row[], after: Row[], touched: Set<string>): string[] {
  const pool = after.map((r) => r.raw)
  const out: string[] = []
  for (const r of before) {
    if (touched.has(r.key)) continue
    const i = pool.indexOf(r.raw)
    if (i === -1) out.push(r.raw)
    else pool.splice(i, 1)
  }
  return out
}

const keysOf = (changes: RRsetChange[]) => new Set(changes.map((c) => `${c.name}|${c.type}`))
const settingsOf = (z: FakeZone<any>) => JSON.stringify(z.settings ?? null)
const canon = (sets: RRset[]) =>
  sets
    .filter((s) => s.type !== 'SOA')
    .flatMap((s) => s.values.map((v) => `${s.name} ${s.type} ${s.ttl} ${v} ${JSON.stringify(s.native?.[v] ?? null)} ${s.locked ?? ''}`))
    .sort()

async function prepare(h: HarmCase, zoneName: string, blocking: boolean): Promise<{ zone: Zone; store: FakeZone<any> }> {
  const store = h.fake.addZone(zoneName)
  h.seedZone?.(zoneName, h.fake)
  const zone = (await h.provider.listZones()).find((z) => z.name === zoneName)
  if (!zone) throw new Error(`${zoneName} is not listed`)
  const seeds = h.card?.seeds(zoneName) ?? []
  const ttl = Math.max(3600, h.provider.minTtl ?? 0)
  await h.provider.writeChanges(zone, baseline(zoneName, ttl, [...(h.card?.baselineWithout ?? []), ...unheldTypes(h.provider.id)]))
  for (const s of seeds) if (blocking || !s.blocks) (h.seedRow ?? ((z, row) => z.records.push(row)))(store, JSON.parse(JSON.stringify(s.row)))
  if (h.card?.settings) store.settings = { ...store.settings, ...JSON.parse(JSON.stringify(h.card.settings)) }
  return { zone, store }
}

export async function doNoHarm(h: HarmCase, zoneName: string): Promise<string[]> {
  const v: string[] = []
  const { zone, store } = await prepare(h, zoneName, false)
  const current = await h.provider.readRecords(zone)
  const rows0 = rowsOf(h, store)
  const settings0 = settingsOf(store)
  let plan
  try {
    plan = planApply(current, heldBy(h.provider.id, DESIRED), zoneName, [], h.provider)
    await h.provider.writeChanges(zone, plan.changes)
  } catch (e) {
    return [`the apply failed on a zone it can write: ${(e as Error).message}`]
  }
  const applied = keysOf(plan.changes)
  for (const r of missing(rows0, rowsOf(h, store), applied)) v.push(`apply changed or dropped a record outside its plan: ${r}`)
  if (settingsOf(store) !== settings0) v.push(`apply changed the zone's settings: ${settings0} → ${settingsOf(store)}`)
  const after = await h.provider.readRecords(zone)
  const again = planApply(after, heldBy(h.provider.id, DESIRED), zoneName, plan.entries, h.provider).changes
  if (again.length) v.push(`re-apply plans changes: ${JSON.stringify(again)}`)
  const revert = planRevert(after, plan.entries)
  try {
    await h.provider.writeChanges(zone, revert.changes)
  } catch (e) {
    v.push(`the revert failed: ${(e as Error).message}`)
    return v
  }
  const touched = new Set([...applied, ...keysOf(revert.changes)])
  for (const r of missing(rows0, rowsOf(h, store), touched)) v.push(`revert left a record outside the plan changed or gone: ${r}`)
  if (settingsOf(store) !== settings0) v.push(`revert left the zone's settings changed: ${settings0} → ${settingsOf(store)}`)
  const end = canon(await h.provider.readRecords(zone))
  const start = canon(current)
  const lost = start.filter((x) => !end.includes(x))
  const gained = end.filter((x) => !start.includes(x))
  if (lost.length || gained.length) v.push(`after the revert the zone reads differently: lost ${JSON.stringify(lost)}, gained ${JSON.stringify(gained)}`)
  return v
}

/** With the blocking seeds in place the apply refuses (`unrepresentable`) and nothing is written. */
export async function refusesBlocked(h: HarmCase, zoneName: string): Promise<string[]> {
  if (!h.card?.seeds(zoneName).some((s) => s.blocks)) return []
  const { zone, store } = await prepare(h, zoneName, true)
  const current = await h.provider.readRecords(zone)
  const rows0 = rowsOf(h, store)
  const settings0 = settingsOf(store)
  let refused: unknown = null
  try {
    const plan = planApply(current, heldBy(h.provider.id, DESIRED), zoneName, [], h.provider)
    await h.provider.writeChanges(zone, plan.changes)
  } catch (e) {
    refused = e
  }
  const v: string[] = []
  if (!(refused instanceof ProviderError) || refused.kind !== 'unrepresentable') v.push(`the apply did not refuse with unrepresentable: ${refused ? (refused as Error).message : 'it wrote'}`)
  for (const r of missing(rows0, rowsOf(h, store), new Set())) v.push(`a refused apply changed the zone: ${r}`)
  if (settingsOf(store) !== settings0) v.push('a refused apply changed the zone\'s settings')
  return v
}
