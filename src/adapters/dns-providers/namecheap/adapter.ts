// Namecheap API (https://www.namecheap.com/support/api/methods/domains-dns/): XML over GET/POST
// /xml.response with `ApiUser`, `ApiKey`, `UserName` and `ClientIp` (the address Portico calls from,
// which the account must whitelist). The credential is the API user and key as Namecheap issues them
// (`api_user:api_key`, JSON or NAME=value lines), optionally with the whitelisted client address as a
// third part. Zones: namecheap.domains.getList (paged: `Page`, `PageSize`, `<Paging><TotalItems>`);
// records: namecheap.domains.dns.getHosts (the whole zone, `<host Name Type Address MXPref TTL/>`, and
// the zone's mail setting `EmailType` on the result); a write is namecheap.domains.dns.setHosts, which
// replaces every host of the zone at once. So a write is the zone exactly as read with the change set
// applied: every host Portico does not change is sent back as it came (URL, URL301, FRAME, MXE and
// ALIAS records included), and `EmailType` is sent back as read, so email forwarding, Private Email or
// custom MX stay as the customer set them. A zone holding what setHosts cannot carry back (a host with
// dynamic DNS on) is refused before writing; MX records cannot be added under a mail setting other
// than custom MX (that would switch the customer's mail) and are refused too. Names are relative
// (`@`); hostnames in Address carry the trailing dot. Errors come with HTTP 200 as `<ApiResponse
// Status="ERROR"><Errors><Error Number>`: 1011102 a bad key, 1011150 a client address not whitelisted
// (a permission), 2019166/2016166 a domain not in the account (src/adapters/dns-providers/namecheap/card.ts).
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { canonicalName, canonicalValue, ProviderError, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const NAMECHEAP_API = 'https://api.namecheap.com'

const isIpv4 = (v: string) => /^(\d{1,3})(\.\d{1,3}){3}$/.test(v) && v.split('.').every((o) => Number(o) <= 255)
const PAGE = 100

const dec = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n))).replace(/&amp;/g, '&')
const attrs = (tag: string) => Object.fromEntries([...tag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, dec(m[2]!)]))

const KINDS: Record<string, ProviderErrorKind> = { '1011102': 'auth', '1010101': 'auth', '1011150': 'permission', '2019166': 'zone_not_found', '2016166': 'zone_not_found', '2030166': 'zone_not_found' }

/** A host as getHosts gives it (every attribute kept, so setHosts sends it back as it was). */
interface Host {
  Name: string
  Type: string
  Address: string
  MXPref: string
  TTL: string
  [attr: string]: string
}

/** Types whose Address is taken as it is (redirects, mail forwarding, CAA, TXT); an ALIAS is a hostname, read canonical and written with the trailing dot as CNAME is. */
const VERBATIM = new Set(['TXT', 'CAA', 'URL', 'URL301', 'FRAME', 'MXE'])

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "relative, `@` the apex",
  hostnames: "with the trailing dot (CNAME, NS, MX, ALIAS); read canonical",
  txt: "bare text",
  ttl: "any (the whole zone sent with setHosts)",
  temporary: "none documented: an error is reported",
  sources: {
    apex: "dnscontrol providers/namecheap (StackExchange/dnscontrol@7a079bc): CanUseAlias Can; ALIAS Address as dnscontrol's GetTargetField (trailing dot)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namecheap/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namecheap/)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/namecheap/)",
    ttl: "the reference card (src/adapters/dns-providers/namecheap/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/namecheap/card.ts)",
  },
}

export class NamecheapProvider implements DnsProvider {
  readonly id = 'namecheap'
  readonly conventions = CONVENTIONS
  private readonly user: string
  private readonly userName: string
  private readonly key: string
  /** The whitelisted client address, or why there is none (every call is then refused before it is sent). */
  private readonly ip: string | { refused: ProviderError }
  /**
   * `clientIp`: the operator's NAMECHEAP_CLIENT_IP (src/config.ts), used when the credential names no
   * address itself. Namecheap checks ClientIp against the account's whitelist and takes IPv4 only; with
   * neither, or with a credential address that is not IPv4, nothing is sent.
   */
  constructor(
    credential: string,
    private readonly base = NAMECHEAP_API,
    clientIp?: string | null,
  ) {
    const [user = '', key = '', ip = '', userName = ''] = credentialParts(credential, [
      { name: 'api_user', aliases: ['ApiUser', 'user', 'username', 'NAMECHEAP_API_USER'] },
      { name: 'api_key', aliases: ['ApiKey', 'key', 'NAMECHEAP_API_KEY'] },
      { name: 'client_ip', aliases: ['ClientIp', 'ip', 'NAMECHEAP_CLIENT_IP'], optional: true },
      { name: 'user_name', aliases: ['UserName', 'NAMECHEAP_USER_NAME'], optional: true },
    ])
    ;[this.user, this.key, this.userName] = [user, key, userName || user]
    this.ip = ip
      ? isIpv4(ip)
        ? ip
        : { refused: new ProviderError('auth', `Namecheap: the credential's third part (${JSON.stringify(ip.slice(0, 45))}) is not an IPv4 address; Namecheap's ClientIp is the IPv4 address whitelisted for API access (api_user:api_key:client_ip)`) }
      : clientIp
        ? clientIp
        : { refused: new ProviderError('permission', 'Namecheap needs the IPv4 address its API is called from, whitelisted under Profile → Tools → API Access: give it in the credential (api_user:api_key:client_ip), or the operator sets NAMECHEAP_CLIENT_IP; nothing was sent') }
  }

  private async call(command: string, params: Record<string, string>, post = false): Promise<string> {
    if (typeof this.ip !== 'string') throw this.ip.refused
    const q = new URLSearchParams({ ApiUser: this.user, ApiKey: this.key, UserName: this.userName, ClientIp: this.ip, Command: command, ...params })
    const r: HttpResult = post
      ? await exchange('POST', `${this.base}/xml.response`, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/xml' }, q.toString())
      : await exchange('GET', `${this.base}/xml.response?${q}`, { accept: 'application/xml' }, undefined)
    const err = /<Error Number="(\d+)">([^<]*)<\/Error>/.exec(r.text)
    if (r.status >= 300 || /Status="ERROR"/.test(r.text)) {
      const msg = (err ? `${err[1]}: ${dec(err[2]!)}` : `HTTP ${r.status}`).replaceAll(this.key, '…')
      throw failureOf('Namecheap', r, msg, err ? (KINDS[err[1]!] ?? (r.status < 300 ? 'write_failed' : undefined)) : undefined)
    }
    return r.text
  }

  private split(zone: Zone) {
    const at = zone.name.indexOf('.')
    return { SLD: zone.name.slice(0, at), TLD: zone.name.slice(at + 1) }
  }

  async listZones(): Promise<Zone[]> {
    const names = await paginate<string>({ provider: 'Namecheap', what: 'domains', pageSize: PAGE }, async ({ index, offset }) => {
      const xml = await this.call('namecheap.domains.getList', { Page: String(index), PageSize: String(PAGE) })
      const items = [...xml.matchAll(/<Domain [^>]*>/g)].map((m) => canonicalName(attrs(m[0]).Name ?? ''))
      const total = Number(/<TotalItems>(\d+)<\/TotalItems>/.exec(xml)?.[1] ?? NaN)
      return { items, more: Number.isNaN(total) ? undefined : offset + items.length < total }
    })
    return names.map((n) => ({ id: n, name: n }))
  }

  /** The zone as getHosts answers it: every host with all its attributes, and the result's own attributes. */
  private async hosts(zone: Zone): Promise<{ hosts: Host[]; result: Record<string, string> }> {
    const xml = await this.call('namecheap.domains.dns.getHosts', this.split(zone))
    const head = /<DomainDNSGetHostsResult[^>]*>/i.exec(xml)?.[0] ?? ''
    return { hosts: [...xml.matchAll(/<host [^>]*\/?>/gi)].map((m) => attrs(m[0]) as Host), result: attrs(head) }
  }

  private hostValueOf(h: Host, zone: Zone): string {
    const addr = h.Address ?? ''
    if (h.Type === 'MX') return `${Number(h.MXPref ?? 10)} ${canonicalName(addr)}`
    return VERBATIM.has(h.Type) ? addr : canonicalValue(h.Type, addr)
  }

  private setsOf(hosts: Host[], zone: Zone): RRset[] {
    const sets = new Map<string, RRset>()
    for (const h of hosts) {
      const name = absoluteName(h.Name ?? '@', zone.name)
      const k = `${name}|${h.Type}`
      const s: RRset = sets.get(k) ?? { name, type: h.Type, ttl: Number(h.TTL ?? 1800), values: [] }
      s.values.push(this.hostValueOf(h, zone))
      if (h.IsDDNSEnabled === 'true') s.locked ??= 'a Namecheap host updated by dynamic DNS'
      if (h.AssociatedAppTitle) s.locked ??= `a Namecheap host created by ${h.AssociatedAppTitle}`
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return this.setsOf((await this.hosts(zone)).hosts, zone)
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const { hosts, result } = await this.hosts(zone)
    // setHosts cannot carry a host's dynamic DNS setting: writing would switch it off.
    const ddns = hosts.find((h) => h.IsDDNSEnabled === 'true')
    if (ddns) throw new ProviderError('unrepresentable', `Namecheap: ${ddns.Name} ${ddns.Type} is updated by dynamic DNS, which setHosts cannot send back; nothing was written`)
    const emailType = result.EmailType
    if (emailType && emailType.toUpperCase() !== 'MX' && changes.some((c) => c.type === 'MX' && c.values.length > 0)) {
      throw new ProviderError('unrepresentable', `Namecheap: the domain's mail setting is ${emailType}; writing MX records would switch it to custom MX; nothing was written`)
    }
    const changed = new Map(changes.map((c) => [`${c.name}|${c.type}`, c]))
    const out: Host[] = []
    // Every host of a set Portico does not change goes back exactly as it came, in its order.
    for (const h of hosts) if (!changed.has(`${absoluteName(h.Name ?? '@', zone.name)}|${h.Type}`)) out.push(h)
    for (const c of changes) {
      const old = hosts.filter((h) => `${absoluteName(h.Name ?? '@', zone.name)}|${h.Type}` === `${c.name}|${c.type}`)
      for (const v of c.values) {
        // A value that stays keeps its host as it was.
        const same = old.find((h) => this.hostValueOf(h, zone) === v && Number(h.TTL) === c.ttl)
        if (same) {
          out.push(same)
          continue
        }
        const [prio, host] = v.split(' ')
        out.push({
          Name: relativeName(c.name, zone.name),
          Type: c.type,
          Address: c.type === 'MX' ? `${host}.` : c.type === 'CNAME' || c.type === 'NS' || c.type === 'ALIAS' ? `${v}.` : v,
          MXPref: c.type === 'MX' ? prio! : '10',
          TTL: String(c.ttl),
        })
      }
    }
    if (out.length === 0) throw new ProviderError('write_failed', 'Namecheap: setHosts cannot leave a zone with no records')
    const params: Record<string, string> = this.split(zone)
    out.forEach((h, n) => {
      const i = n + 1
      params[`HostName${i}`] = h.Name
      params[`RecordType${i}`] = h.Type
      params[`Address${i}`] = h.Address
      params[`TTL${i}`] = h.TTL
      if (h.Type === 'MX' || h.Type === 'MXE') params[`MXPref${i}`] = h.MXPref ?? '10'
    })
    // The zone's mail setting goes back as it was read; only a zone that says none and holds MX records gets MX.
    if (emailType) params.EmailType = emailType
    else if (out.some((h) => h.Type === 'MX')) params.EmailType = 'MX'
    await this.call('namecheap.domains.dns.setHosts', params, true)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'namecheap',
  defaultBase: NAMECHEAP_API,
  make: (s, o) => new NamecheapProvider(s, o.base, o.settings?.namecheapClientIp),
  token_url: 'https://ap.www.namecheap.com/settings/tools/apiaccess/',
  token_scopes: ['API access enabled', 'Portico\'s egress address whitelisted'],
  credential: 'API key (user:key)',
}
