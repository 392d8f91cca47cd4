// Spaceship API v1 (https://docs.spaceship.dev/#tag/DNS-records): headers `X-API-Key` and
// `X-API-Secret` (the credential is `key:secret`). Zones: GET /api/v1/domains (paged: `take`, `skip`,
// `total`); records: GET /api/v1/dns/records/{domain} (paged the same way). Records have no ids: PUT
// /api/v1/dns/records/{domain} `{force, items}` adds items and DELETE with a body of items removes
// those that match, so a change set is one DELETE and one PUT. Each item is `{type, name, ttl}` plus
// its type's fields: A/AAAA `address`, CNAME `cname`, NS `nameserver`, MX `exchange` and `preference`,
// TXT `value`, CAA `flag`, `tag`, `value`. Names are relative (`@` the apex). Errors are `{detail,
// data?}`: 401, 403, 404, 422, 429 (Retry-After).
import { credentialParts } from './credentials.ts'
import { paginate } from './paging.ts'
import { RestClient } from './rest.ts'
import { absoluteName, RecordBasedProvider, relativeName, type NewRecord, type ProviderRecord } from './record-based.ts'
import { canonicalName, canonicalValue, type Zone } from './types.ts'

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

function valueOf(x: any): string {
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

export class SpaceshipProvider extends RecordBasedProvider {
  readonly id = 'spaceship'
  private readonly api: RestClient
  constructor(keySecret: string, base = SPACESHIP_API) {
    super()
    const [key, secret] = credentialParts(keySecret, [{ name: 'api_key', aliases: ['key', 'X-Api-Key', 'SPACESHIP_API_KEY'] }, { name: 'api_secret', aliases: ['secret', 'X-Api-Secret', 'SPACESHIP_API_SECRET'] }])
    this.api = new RestClient({ name: 'Spaceship', base, headers: { 'x-api-key': key!, 'x-api-secret': secret! }, message: (b) => b?.detail })
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'Spaceship', what: path, pageSize: 500 }, async ({ offset }) => {
      const r = await this.api.call('GET', `${path}?take=500&skip=${offset}`)
      const rows = (r.items ?? []) as any[]
      return { items: rows, more: offset + rows.length < Number(r.total ?? 0) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/api/v1/domains')).map((d) => ({ id: canonicalName(d.name), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/api/v1/dns/records/${encodeURIComponent(zone.id)}`)).map((x) => {
      const rec = { name: absoluteName(x.name, zone.name), type: x.type as string, ttl: x.ttl as number, value: valueOf(x) }
      // No ids: a record is named by its own content, which is what DELETE matches on.
      return { ...rec, id: JSON.stringify(item(zone, rec)) }
    })
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    const path = `/api/v1/dns/records/${encodeURIComponent(zone.id)}`
    if (deletes.length) await this.api.call('DELETE', path, deletes.map((d) => JSON.parse(d.id)))
    if (creates.length) await this.api.call('PUT', path, { force: true, items: creates.map((c) => item(zone, c)) })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    await this.applyDiff(zone, [], [{ name, type, ttl, value }])
  }

  protected async deleteItem(zone: Zone, rec: ProviderRecord): Promise<void> {
    await this.applyDiff(zone, [rec], [])
  }
}
