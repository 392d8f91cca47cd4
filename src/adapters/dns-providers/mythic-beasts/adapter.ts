// Mythic Beasts DNS API v2 (https://www.mythic-beasts.com/support/api/dnsv2): HTTP Basic with an API
// key's `id:secret` (the credential as given). Zones: GET /dns/v2/zones (`{zones: [names]}`); records:
// GET /dns/v2/zones/{zone}/records (`{records: [{host, ttl, type, data, mx_priority?}]}`); a set is
// replaced with PUT /dns/v2/zones/{zone}/records/{host}/{type} `{records: [...]}` and removed with
// DELETE on the same path. Hosts are relative (`@` the apex); data holds hostnames with the trailing
// dot and TXT as the text itself; MX priority is its own field. Errors are `{error}`: 401, 403 "Key
// not authorised for zone" (which is also the answer for a zone the account does not have, so it is
// read as a zone the credential does not reach), 400, 429.
// Do no harm (src/adapters/dns-providers/mythic-beasts/card.ts): ANAME, SSHFP, TLSA and SRV data are kept
// as they are, and any field a record carries beside host, ttl, type, data and mx_priority goes back
// with it when its set is restored. An ANAME answers addresses itself, so a plan that would write an A
// or AAAA beside one is refused before anything is written.
import { RestClient } from '../rest.ts'
import { absoluteName, fromFields, relativeName, toFields } from '../record-based.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { canonicalName, ProviderError, unquoteTxt, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

const OWN = new Set(['host', 'ttl', 'type', 'data', 'mx_priority'])
/** Types whose data Portico keeps exactly as Mythic Beasts gave it. */
const VERBATIM = new Set(['ANAME', 'SSHFP', 'TLSA', 'SRV', 'DNAME', 'PTR'])

export const MYTHIC_BEASTS_API = 'https://api.mythic-beasts.com'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "written with the trailing dot; read relative when it has none",
  txt: "bare text",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "dnscontrol providers/mythicbeasts (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot (ANAME kept as it is)",
    names: "the reference card (src/adapters/dns-providers/mythic-beasts/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/mythic-beasts/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/mythic-beasts/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/mythic-beasts/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/mythic-beasts/card.ts)",
  },
}

export class MythicBeastsProvider extends RRsetBasedProvider {
  readonly id = 'mythic-beasts'
  readonly conventions = CONVENTIONS
  private readonly api: RestClient
  constructor(idSecret: string, base = MYTHIC_BEASTS_API) {
    super()
    this.api = new RestClient({ name: 'Mythic Beasts', base, headers: { authorization: `Basic ${Buffer.from(idSecret).toString('base64')}` }, message: (b) => b?.error, kind: (r) => (r.status === 403 && /zone/i.test(r.body?.error ?? '') ? 'zone_not_found' : undefined) })
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.api.call('GET', '/dns/v2/zones')).zones as string[]).map((n) => ({ id: canonicalName(n), name: canonicalName(n) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const sets = new Map<string, RRset>()
    for (const r of (await this.api.call('GET', `/dns/v2/zones/${encodeURIComponent(zone.id)}/records`)).records as any[]) {
      const name = absoluteName(r.host, zone.name)
      const k = `${name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      const value = VERBATIM.has(r.type) ? String(r.data) : fromFields(r.type, r.data, r.mx_priority, zone.name, unquoteTxt)
      s.values.push(value)
      const extra = Object.fromEntries(Object.entries(r).filter(([f]) => !OWN.has(f)))
      if (Object.keys(extra).length) s.native = { ...s.native, [value]: extra }
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  override async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const sets = await this.readRecords(zone)
    const gone = new Set(changes.filter((c) => c.values.length === 0).map((c) => `${c.name}|${c.type}`))
    for (const c of changes) {
      if (c.values.length === 0 || (c.type !== 'A' && c.type !== 'AAAA')) continue
      if (sets.some((x) => x.name === c.name && x.type === 'ANAME' && !gone.has(`${x.name}|ANAME`))) {
        throw new ProviderError('unrepresentable', `${c.name} holds a Mythic Beasts ANAME, which already answers A and AAAA there; writing ${c.type} beside it would change what it answers. Nothing was written`)
      }
    }
    await super.writeChanges(zone, changes)
  }

  private path(zone: Zone, name: string, type: string) {
    return `/dns/v2/zones/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(relativeName(name, zone.name))}/${type}`
  }

  protected async putSet(zone: Zone, c: RRsetChange): Promise<void> {
    const host = relativeName(c.name, zone.name)
    const records = c.values.map((v) => {
      const f = VERBATIM.has(c.type) ? { data: v } : toFields(c.type, v, { dot: true })
      return { host, ttl: c.ttl, type: c.type, data: f.data, ...(f.priority !== undefined ? { mx_priority: f.priority } : {}), ...(c.native?.[v] as object | undefined) }
    })
    await this.api.call('PUT', this.path(zone, c.name, c.type), { records })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.api.call('DELETE', this.path(zone, cur.name, cur.type))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'mythic-beasts',
  defaultBase: MYTHIC_BEASTS_API,
  make: (s, o) => new MythicBeastsProvider(s, o.base),
  token_url: 'https://www.mythic-beasts.com/customer/api-users',
  token_scopes: ['API key with DNS access to the zone'],
  credential: 'API key (key_id:secret)',
}
