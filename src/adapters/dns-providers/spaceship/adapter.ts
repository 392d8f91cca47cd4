// Spaceship API v1 (https://docs.spaceship.dev/#tag/DNS-records): headers `X-API-Key` and
// `X-API-Secret` (the credential is `key:secret`). Zones: GET /api/v1/domains (paged: `take`, `skip`,
// `total`); records: GET /api/v1/dns/records/{domain} (paged the same way). Records have no ids: PUT
// /api/v1/dns/records/{domain} `{force, items}` adds items and DELETE with a body of items removes
// those that match, so a change set is one DELETE and one PUT. Each item is `{type, name, ttl}` plus
// its type's fields: A/AAAA `address`, CNAME `cname`, NS `nameserver`, MX `exchange` and `preference`,
// TXT `value`, CAA `flag`, `tag`, `value`. Names are relative (`@` the apex). Errors are `{detail,
// data?}`: 401, 403, 404, 422, 429 (Retry-After).
// Do no harm (src/adapters/dns-providers/spaceship/card.ts): a record of a type Portico does not model
// (ALIAS `aliasName`, HTTPS and SVCB `svcPriority`/`targetName`/`svcParams`, SRV, PTR, TLSA) is kept as
// Spaceship gave it: deleted with exactly its own fields, and restored whole. A record in a group other
// than `custom` (one a Spaceship product manages) is read as locked. PUT goes without `force`, so
// Spaceship refuses a conflict rather than overwriting what Portico did not plan to touch.
import { coexistOrder } from '../coexist.ts'
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, RecordBasedProvider, relativeName, type NewRecord, type ProviderRecord } from '../record-based.ts'
import { canonicalName, canonicalValue, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const SPACESHIP_API = 'https://spaceship.dev'

function item(zone: Zone, r: NewRecord): Record<string, unknown> {
  const base = { type: r.type, name: relativeName(r.name, zone.name), ttl: r.ttl }
  const v = r.value
  switch (r.type) {
    case 'A':
    case 'AAAA':
      return { ...base, address: v }
    case 'CNAME':
      return { ...base, cname: v }
    case 'NS':
      return { ...base, nameserver: v }
    case 'MX':
      return { ...base, exchange: v.split(' ')[1], preference: Number(v.split(' ')[0]) }
    case 'CAA': {
      const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(v)
      return { ...base, flag: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', value: m?.[3] ?? '' }
    }
    default:
      return { ...base, value: v }
  }
}

/** The types whose fields Portico maps to its canonical values; any other is kept as Spaceship gave it. */
const MODELLED = new Set(['A', 'AAAA', 'CNAME', 'NS', 'MX', 'CAA', 'TXT'])

/** A stored item's own fields (what DELETE matches and PUT writes), without Spaceship's `group`. */
function ownFields(x: any): Record<string, unknown> {
  const { group: _, ...rest } = x
  return rest
}

function valueOf(x: any): string {
  if (!MODELLED.has(x.type)) {
    const { type: _t, name: _n, ttl: _l, ...data } = ownFields(x)
    return JSON.stringify(Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b))))
  }
  switch (x.type) {
    case 'A':
    case 'AAAA':
      return canonicalValue(x.type, x.address)
    case 'CNAME':
      return canonicalName(x.cname)
    case 'NS':
      return canonicalName(x.nameserver)
    case 'MX':
      return `${x.preference} ${canonicalName(x.exchange)}`
    case 'CAA':
      return `${x.flag} ${x.tag} "${x.value}"`
    default:
      return x.value
  }
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute without the trailing dot (type fields)",
  txt: "bare text (`value`)",
  ttl: "any",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "catalogue: no apex record offered (ALIAS kept as Spaceship gives it)",
    names: "the reference card (src/adapters/dns-providers/spaceship/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/spaceship/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/spaceship/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/spaceship/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/spaceship/card.ts)",
  },
}

export class SpaceshipProvider extends RecordBasedProvider {
  readonly id = 'spaceship'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(keySecret: string, base = SPACESHIP_API) {
    super()
    const [key, secret] = credentialParts(keySecret, [{ name: 'api_key', aliases: ['key', 'X-Api-Key', 'SPACESHIP_API_KEY'] }, { name: 'api_secret', aliases: ['secret', 'X-Api-Secret', 'SPACESHIP_API_SECRET'] }])
    this.api = new RestClient({ name: 'Spaceship', base, headers: { 'x-api-key': key!, 'x-api-secret': secret! }, message: (b) => b?.detail })
  }

  /** A listing by take/skip: domains at most 100 a page, records 500. */
  private async paged(path: string, take: number): Promise<any[]> {
    return paginate<any>({ provider: 'Spaceship', what: path, pageSize: take }, async ({ offset }) => {
      const r = await this.api.call('GET', `${path}?take=${take}&skip=${offset}`)
      const rows = (r.items ?? []) as any[]
      return { items: rows, more: offset + rows.length < Number(r.total ?? 0) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/api/v1/domains', 100)).map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/api/v1/dns/records/${encodeURIComponent(zone.id)}`, 500)).map((x) => {
      const rec = { name: absoluteName(x.name, zone.name), type: x.type as string, ttl: x.ttl as number, value: valueOf(x) }
      const group = x.group?.type
      // No ids: a record is named by its own content, which is what DELETE matches on.
      return {
        ...rec,
        id: JSON.stringify(ownFields(x)),
        ...(MODELLED.has(x.type) ? {} : { native: ownFields(x) }),
        ...(group && group !== 'custom' ? { locked: `a record Spaceship's ${group} group manages` } : {}),
      }
    })
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    const path = `/api/v1/dns/records/${encodeURIComponent(zone.id)}`
    // What may stand beside the records it replaces goes first (coexist.ts), each run of one kind in one call.
    const runs: ({ del: ProviderRecord[] } | { put: NewRecord[] })[] = []
    for (const s of coexistOrder(deletes, creates)) {
      const last = runs[runs.length - 1]
      if ('del' in s) last && 'del' in last ? last.del.push(s.del) : runs.push({ del: [s.del] })
      else last && 'put' in last ? last.put.push(s.put) : runs.push({ put: [s.put] })
    }
    for (const r of runs) {
      if ('del' in r) await this.api.call('DELETE', path, r.del.map((d) => JSON.parse(d.id)))
      // A kept record goes back with its own fields; Portico's own with the fields of its type.
      else await this.api.call('PUT', path, { items: r.put.map((c) => (c.native ? { ...(c.native as object), ttl: c.ttl } : item(zone, c))) })
    }
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    await this.applyDiff(zone, [], [{ name, type, ttl, value, ...(native !== undefined ? { native } : {}) }])
  }

  protected async deleteItem(zone: Zone, rec: ProviderRecord): Promise<void> {
    await this.applyDiff(zone, [rec], [])
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'spaceship',
  defaultBase: SPACESHIP_API,
  make: (s, o) => new SpaceshipProvider(s, o.base),
  token_url: 'https://www.spaceship.com/application/api-manager/',
  token_scopes: ['dnsrecords:read', 'dnsrecords:write', 'domains:read'],
  credential: 'API key and secret (api_key:api_secret)',
}
