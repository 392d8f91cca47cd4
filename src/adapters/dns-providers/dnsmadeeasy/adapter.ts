// DNS Made Easy API v2.0 (https://api-docs.dnsmadeeasy.com/): the credential is `api_key:secret`;
// every request carries `x-dnsme-apiKey`, `x-dnsme-requestDate` (an HTTP date) and `x-dnsme-hmac`
// (hex HMAC-SHA1 of the date under the secret). Zones: GET /dns/managed/ (paged: `page`,
// `totalPages`); records: GET /dns/managed/{id}/records (paged the same way), POST …/records/ `{name,
// type, value, ttl, gtdLocation, mxLevel?, caaType?, issuerCritical?}`, DELETE …/records/{recordId}.
// Names are relative (`` the apex); hostnames in `value` carry the trailing dot, TXT and CAA values
// are quoted. Errors are `{error: [messages]}`: 403 for a bad key or signature, 404, 400 (and 400
// "Rate limit exceeded" with x-dnsme-requestsRemaining 0, DNS Made Easy's rate limit: no wait is given
// and the window is a rolling five minutes, so it is reported at once).
// Do no harm (src/adapters/dns-providers/dnsmadeeasy/card.ts): a Global Traffic Director record (a
// gtdLocation other than DEFAULT), a failover- or monitor-watched record and a dynamic-DNS record are
// read as locked: the planner never changes them. ANAME is written back as it is; HTTPRED is restored
// with its redirect type, title, keywords, description and hard link.
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { createHmac } from 'node:crypto'
import { exchange, failureOf } from '../http.ts'
import { absoluteName, hostValue, RecordBasedProvider, relativeName, type ProviderRecord } from '../record-based.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { canonicalName, quoteTxt, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const DNSMADEEASY_API = 'https://api.dnsmadeeasy.com/V2.0'

/** HTTP redirection's own fields, written back when the record is restored. */
const HTTPRED_FIELDS = ['redirectType', 'title', 'keywords', 'description', 'hardLink']

/** Why Portico cannot write a record back as it is (its set is then locked), or undefined. */
function lockOf(r: any): string | undefined {
  if (r.gtdLocation && r.gtdLocation !== 'DEFAULT') return `a DNS Made Easy Global Traffic Director record for ${r.gtdLocation}`
  if (r.failover === true || r.monitor === true) return 'a DNS Made Easy failover-monitored record'
  if (r.dynamicDns === true) return 'a DNS Made Easy dynamic-DNS record'
  return undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ANAME",
  names: "relative, empty the apex",
  hostnames: "with the trailing dot (CNAME, MX, ANAME)",
  txt: "quoted",
  ttl: "any",
  temporary: "400 \"Rate limit exceeded\" reported at once (a rolling five minutes)",
  sources: {
    apex: "dnscontrol providers/dnsmadeeasy/dnsMadeEasyProvider.go (StackExchange/dnscontrol@7a079bc) (\"ALIAS is called ANAME on DNS Made Easy\")",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/dnsmadeeasy/)",
    hostnames: "the reference card (src/adapters/dns-providers/dnsmadeeasy/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/dnsmadeeasy/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/dnsmadeeasy/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/dnsmadeeasy/card.ts)",
  },
}

export class DnsMadeEasyProvider extends RecordBasedProvider {
  readonly id = 'dnsmadeeasy'
  readonly conventions = CONVENTIONS
  private readonly key: string
  private readonly secret: string
  constructor(
    credential: string,
    private readonly base = DNSMADEEASY_API,
  ) {
    super()
    ;[this.key, this.secret] = credentialParts(credential, [{ name: 'api_key', aliases: ['apiKey', 'key', 'DNSMADEEASY_API_KEY'] }, { name: 'secret_key', aliases: ['secretKey', 'secret', 'DNSMADEEASY_API_SECRET'] }]) as [string, string]
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const date = new Date().toUTCString()
    const hmac = createHmac('sha1', this.secret).update(date).digest('hex')
    const r = await exchange(method, this.base + path, { 'x-dnsme-apikey': this.key, 'x-dnsme-requestdate': date, 'x-dnsme-hmac': hmac }, body)
    if (r.status < 300) return r.body
    const msg = ((r.body?.error as string[] | undefined) ?? []).join('; ') || `HTTP ${r.status}`
    const limited = /rate limit/i.test(msg) || r.headers.get('x-dnsme-requestsremaining') === '0'
    throw failureOf('DNS Made Easy', r, msg, limited ? 'rate_limited' : r.status === 403 && /key|hmac|request date/i.test(msg) ? 'auth' : r.status === 400 && /already exists/i.test(msg) ? 'conflict' : undefined)
  }

  private async paged(path: string): Promise<any[]> {
    return paginate<any>({ provider: 'DNS Made Easy', what: path, pageSize: 1000 }, async ({ index }) => {
      const r = await this.call('GET', `${path}?page=${index}&rows=1000`)
      return { items: r.data ?? [], more: index < (r.totalPages ?? 1) }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/dns/managed/')).map((d) => ({ id: String(d.id), name: canonicalName(d.name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return (await this.paged(`/dns/managed/${encodeURIComponent(zone.id)}/records`)).map((r) => {
      const locked = lockOf(r)
      const native = r.type === 'HTTPRED' ? Object.fromEntries(HTTPRED_FIELDS.filter((f) => r[f] !== undefined).map((f) => [f, r[f]])) : undefined
      return {
        id: String(r.id),
        name: absoluteName(r.name ?? '', zone.name),
        type: r.type,
        ttl: r.ttl,
        value:
          r.type === 'CAA'
            ? `${r.issuerCritical ?? 0} ${r.caaType} "${unquoteTxt(r.value)}"`
            : r.type === 'HTTPRED'
              ? String(r.value)
              : r.type === 'ANAME'
                ? hostValue(String(r.value), zone.name)
              : fromZoneFile(r.type, r.type === 'MX' ? `${r.mxLevel} ${r.value}` : r.value, zone.name),
        ...(native ? { native } : {}),
        ...(locked ? { locked } : {}),
      }
    })
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const body: Record<string, unknown> = { name: name === zone.name ? '' : relativeName(name, zone.name), type, ttl, gtdLocation: 'DEFAULT' }
    if (type === 'ANAME' || type === 'HTTPRED') {
      // ANAME (DNS Made Easy's apex record) is a hostname, fully qualified as a CNAME's (dnscontrol's
      // providers/dnsmadeeasy writes its ALIAS as ANAME with the target's trailing dot).
      await this.call('POST', `/dns/managed/${encodeURIComponent(zone.id)}/records/`, { ...body, value: type === 'ANAME' ? `${value}.` : value, ...(type === 'HTTPRED' ? (native as object | undefined) ?? { redirectType: 'Standard - 301' } : {}) })
      return
    }
    const caa = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(value)
    if (type === 'CAA' && caa) Object.assign(body, { issuerCritical: Number(caa[1]), caaType: caa[2], value: quoteTxt(caa[3]!) })
    else if (type === 'MX') Object.assign(body, { mxLevel: Number(value.split(' ')[0]), value: `${value.split(' ')[1]}.` })
    else body.value = toZoneFile(type, value)
    await this.call('POST', `/dns/managed/${encodeURIComponent(zone.id)}/records/`, body)
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/dns/managed/${encodeURIComponent(zone.id)}/records/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'dnsmadeeasy',
  defaultBase: DNSMADEEASY_API,
  make: (s, o) => new DnsMadeEasyProvider(s, o.base),
  token_url: 'https://cp.dnsmadeeasy.com/account/info',
  token_scopes: ['API key and secret'],
  credential: 'API key and secret key (api_key:secret_key)',
}
