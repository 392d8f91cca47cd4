// OVHcloud API v1, domain zones (https://eu.api.ovh.com/console/?section=%2Fdomain): the credential is
// `application_key:application_secret:consumer_key`, optionally with the endpoint its keys belong to
// as a fourth part (`ovh-eu`, the default, `ovh-ca` or `ovh-us`, as OVH's SDKs name them; JSON or
// NAME=value lines as well); every call carries X-Ovh-Application, X-Ovh-Consumer, X-Ovh-Timestamp and
// X-Ovh-Signature = "$1$" + SHA1(secret+consumer+method+url+body+timestamp, joined by "+")
// (https://help.ovhcloud.com/csm/en-api-getting-started-ovhcloud-api). Zones: GET /domain/zone (a
// list of names); records: GET /domain/zone/{zone}/record (a list of ids) and GET …/record/{id} each
// `{id, subDomain, fieldType, target, ttl}`; POST …/record `{fieldType, subDomain, target, ttl}`, PUT
// …/record/{id} `{subDomain, target, ttl}`, DELETE …/record/{id}; POST /domain/zone/{zone}/refresh
// publishes the changes. Names are relative (`` the apex); targets are zone-file text. OVH keeps SPF,
// DKIM and DMARC as record types of their own: they are read as the TXT values they publish, and a
// change to one (merging SPF terms, taking them out again) updates that record in place with PUT, so
// the zone never holds a second SPF policy beside OVH's. Errors are `{message, errorCode?}`: 401/403
// INVALID_CREDENTIAL / invalid signature, 403 NOT_GRANTED_CALL, 404 "This service does not exist",
// 409, 429 (src/adapters/dns-providers/ovh/card.ts).
import { createHash } from 'node:crypto'
import { exchange, failureOf } from '../http.ts'
import { credentialParts } from '../credentials.ts'
import { absoluteName, RecordBasedProvider, relativeName, type NewRecord, type ProviderRecord } from '../record-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const OVH_API = 'https://eu.api.ovh.com/1.0'
/** OVH's API endpoints by the names its SDKs give them. */
export const OVH_ENDPOINTS: Record<string, string> = {
  'ovh-eu': OVH_API,
  'ovh-ca': 'https://ca.api.ovh.com/1.0',
  'ovh-us': 'https://api.us.ovhcloud.com/1.0',
}

/** OVH's own TXT-like types, and the first word of the value each publishes. */
const TXT_KINDS: Record<string, RegExp> = { SPF: /^v=spf1(\s|$)/i, DKIM: /^v=DKIM1/i, DMARC: /^v=DMARC1/i }

interface OvhNative {
  fieldType: string
  /** Whether OVH held the target as quoted text (SPF) or bare (DKIM, DMARC as OVH writes them). */
  quoted: boolean
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, empty the apex",
  hostnames: "zone-file text: with the trailing dot absolute, without it relative",
  txt: "zone-file text (OVH quotes TXT it stores)",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "dnscontrol providers/ovh (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/ovh/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/ovh/)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/ovh/)",
    ttl: "the reference card (src/adapters/dns-providers/ovh/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/ovh/card.ts)",
  },
}

export class OvhProvider extends RecordBasedProvider {
  readonly id = 'ovh'
  readonly conventions = CONVENTIONS
  private readonly ak: string
  private readonly as: string
  private readonly ck: string
  private readonly base: string
  constructor(
    credential: string,
    base = OVH_API,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    super()
    const [ak = '', as = '', ck = '', endpoint = ''] = credentialParts(credential, [
      { name: 'application_key', aliases: ['applicationKey', 'app_key', 'OVH_APPLICATION_KEY', 'ak'] },
      { name: 'application_secret', aliases: ['applicationSecret', 'app_secret', 'OVH_APPLICATION_SECRET', 'as'] },
      { name: 'consumer_key', aliases: ['consumerKey', 'OVH_CONSUMER_KEY', 'ck'] },
      { name: 'endpoint', aliases: ['OVH_ENDPOINT', 'region'], optional: true },
    ])
    ;[this.ak, this.as, this.ck] = [ak, as, ck]
    // The endpoint named with the keys, unless the deployment points OVH elsewhere (DNS_PROVIDER_API_BASES).
    const named = OVH_ENDPOINTS[endpoint.trim().toLowerCase()] ?? (/^https:\/\//.test(endpoint.trim()) ? endpoint.trim().replace(/\/+$/, '') : undefined)
    this.base = base === OVH_API && named ? named : base
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const url = this.base + path
    const payload = body === undefined ? '' : JSON.stringify(body)
    const ts = String(this.now())
    const sig = '$1$' + createHash('sha1').update([this.as, this.ck, method, url, payload, ts].join('+')).digest('hex')
    const r = await exchange(method, url, { 'x-ovh-application': this.ak, 'x-ovh-consumer': this.ck, 'x-ovh-timestamp': ts, 'x-ovh-signature': sig }, payload || undefined)
    if (r.status >= 300) {
      const code = String(r.body?.errorCode ?? '')
      const auth = (r.status === 401 || r.status === 403 || r.status === 400) && /INVALID_CREDENTIAL|INVALID_SIGNATURE|INVALID_KEY|credential|signature|application key/i.test(`${code} ${r.body?.message ?? ''}`)
      throw failureOf('OVHcloud', r, r.body?.message ? `${code || r.status}: ${r.body.message}` : `HTTP ${r.status}`, auth ? 'auth' : undefined)
    }
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.call('GET', '/domain/zone')) as string[]).map((n) => ({ id: canonicalName(n), name: canonicalName(n) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = encodeURIComponent(zone.id)
    const ids = (await this.call('GET', `/domain/zone/${z}/record`)) as number[]
    const out: ProviderRecord[] = []
    for (const id of ids) {
      const r = await this.call('GET', `/domain/zone/${z}/record/${id}`)
      if (r.fieldType === 'SOA') continue
      const own = TXT_KINDS[r.fieldType] !== undefined
      const type = own ? 'TXT' : r.fieldType
      const native: OvhNative | undefined = own ? { fieldType: r.fieldType, quoted: String(r.target).trim().startsWith('"') } : undefined
      out.push({ id: String(r.id), name: absoluteName(r.subDomain ?? '', zone.name), type, ttl: r.ttl, value: fromZoneFile(type, r.target, zone.name), ...(native ? { native } : {}) })
    }
    return out
  }

  private target(type: string, value: string, native?: OvhNative): string {
    // OVH's SPF, DKIM and DMARC targets keep the form OVH held them in (quoted or bare).
    if (native && TXT_KINDS[native.fieldType]) return native.quoted ? toZoneFile('TXT', value) : value
    return toZoneFile(type, value)
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    if (deletes.length === 0 && creates.length === 0) return
    // A value that takes the place of one of OVH's SPF, DKIM or DMARC records updates that record.
    const rest = [...creates]
    const updates: { item: ProviderRecord; to: NewRecord }[] = []
    const dels = deletes.filter((d) => {
      const kind = (d.native as OvhNative | undefined)?.fieldType
      const re = kind ? TXT_KINDS[kind] : undefined
      if (!re) return true
      const i = rest.findIndex((c) => c.name === d.name && c.type === 'TXT' && re.test(c.value))
      if (i === -1) return true
      updates.push({ item: d, to: rest.splice(i, 1)[0]! })
      return false
    })
    const z = encodeURIComponent(zone.id)
    for (const u of updates) {
      await this.call('PUT', `/domain/zone/${z}/record/${encodeURIComponent(u.item.id)}`, { subDomain: u.to.name === zone.name ? '' : relativeName(u.to.name, zone.name), target: this.target('TXT', u.to.value, u.item.native as OvhNative), ttl: u.to.ttl })
    }
    await super.applyDiff(zone, dels, rest)
    // Changes are staged until the zone is refreshed.
    await this.call('POST', `/domain/zone/${z}/refresh`)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    // A record restored keeps OVH's own type (an SPF record comes back as SPF).
    const n = native as OvhNative | undefined
    await this.call('POST', `/domain/zone/${encodeURIComponent(zone.id)}/record`, { fieldType: n?.fieldType ?? type, subDomain: name === zone.name ? '' : relativeName(name, zone.name), target: this.target(type, value, n), ttl })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/domain/zone/${encodeURIComponent(zone.id)}/record/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'ovh',
  defaultBase: OVH_API,
  make: (s, o) => new OvhProvider(s, o.base),
  token_url: 'https://api.ovh.com/createToken/',
  token_scopes: ['GET /domain/zone/*', 'POST /domain/zone/*', 'DELETE /domain/zone/*'],
  credential: 'Application key, secret and consumer key (ak:as:ck)',
}
