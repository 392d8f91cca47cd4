// Azure DNS through Azure Resource Manager, api-version 2018-05-01
// (https://learn.microsoft.com/rest/api/dns/record-sets). The credential is a service principal as
// JSON `{tenant_id, client_id, client_secret, subscription_id}`; the adapter takes a token with the
// client-credentials grant at Microsoft Entra ID (scope `https://management.azure.com/.default`,
// https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow). Zones: GET
// /subscriptions/{s}/providers/Microsoft.Network/dnszones (paged: `nextLink`); record sets: GET
// {zone id}/all (paged the same way), each `{name, type: "Microsoft.Network/dnszones/A", properties:
// {TTL, ARecords…}}`; a set is written whole with PUT {zone id}/{type}/{name} and removed with DELETE.
// Names are relative (`@` the apex). Errors are `{error: {code, message}}`: 401
// InvalidAuthenticationToken, 403 AuthorizationFailed, 404 ResourceNotFound, 409, 412, 429
// (Retry-After). Alias record sets (targetResource) and types Portico does not write are read as
// locked; a set's metadata is sent again with every PUT of it (src/adapters/dns-providers/azure/card.ts). Through the OAuth rail the credential is instead a person's access token for Resource
// Manager (not JSON): the zones are those of every subscription the person can see (GET /subscriptions,
// paged by `nextLink`).
import { credentialParts } from '../credentials.ts'
import { exchange, failureOf } from '../http.ts'
import { nextPageUrl, paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { acrossScopes, canonicalName, ProviderError, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const AZURE_API = 'https://management.azure.com'
const LOGIN = 'https://login.microsoftonline.com'
const VERSION = 'api-version=2018-05-01'
const SUBSCRIPTIONS_VERSION = 'api-version=2022-12-01'

interface Principal {
  tenant_id: string
  client_id: string
  client_secret: string
  subscription_id: string
}

/** Record data of each type as ARM carries it. */
const FIELDS: Record<string, { key: string; to(v: string): unknown; from(x: any): string }> = {
  A: { key: 'ARecords', to: (v) => ({ ipv4Address: v }), from: (x) => x.ipv4Address },
  AAAA: { key: 'AAAARecords', to: (v) => ({ ipv6Address: v }), from: (x) => String(x.ipv6Address).toLowerCase() },
  MX: { key: 'MXRecords', to: (v) => ({ preference: Number(v.split(' ')[0]), exchange: v.split(' ')[1] }), from: (x) => `${x.preference} ${canonicalName(x.exchange)}` },
  TXT: { key: 'TXTRecords', to: (v) => ({ value: chunks(v) }), from: (x) => (x.value as string[]).join('') },
  CAA: { key: 'caaRecords', to: (v) => { const m = /^(\d+)\s+(\S+)\s+"(.*)"$/.exec(v); return { flags: Number(m?.[1] ?? 0), tag: m?.[2] ?? 'issue', value: m?.[3] ?? '' } }, from: (x) => `${x.flags} ${x.tag} "${x.value}"` },
  NS: { key: 'NSRecords', to: (v) => ({ nsdname: v }), from: (x) => canonicalName(x.nsdname) },
}

/** TXT values as ARM wants them: strings of at most 255 bytes of UTF-8. */
function chunks(text: string): string[] {
  const out: string[] = []
  let cur = ''
  for (const ch of text) {
    if (Buffer.byteLength(cur + ch) > 255) {
      out.push(cur)
      cur = ''
    }
    cur += ch
  }
  out.push(cur)
  return out
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute (cname, exchange, nsdname fields)",
  txt: "an array of strings, each up to 255 bytes",
  ttl: "any",
  temporary: "429 with Retry-After waited out when short",
  sources: {
    apex: "dnscontrol providers/azuredns (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot (aliases reach only Azure resources)",
    names: "Azure OpenAPI (test/fixtures/provider-openapi/azure.json)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/azure/)",
    txt: "Azure OpenAPI (TxtRecord.value: array)",
    ttl: "Azure OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/azure/card.ts)",
  },
}

export class AzureDnsProvider extends RRsetBasedProvider {
  readonly id = 'azure'
  readonly conventions = CONVENTIONS
  private api: RestClient | null = null
  private readonly sp: Principal | null
  /** A person's OAuth access token, when the credential is one instead of a service principal. */
  private readonly token: string | null

  constructor(
    credential: string,
    private readonly base = AZURE_API,
  ) {
    super()
    // A service principal as Azure issues it: Portico's JSON, the output of `az ad sp create-for-rbac`
    // (appId, password, tenant) with the subscription added, or AZURE_* lines; else a person's token.
    const named = /[{=\n]/.test(credential.trim())
    const [tenant_id, client_id, client_secret, subscription_id] = named
      ? credentialParts(credential, [
          { name: 'tenant_id', aliases: ['tenant', 'tenantId', 'AZURE_TENANT_ID'] },
          { name: 'client_id', aliases: ['appId', 'clientId', 'AZURE_CLIENT_ID'] },
          { name: 'client_secret', aliases: ['password', 'clientSecret', 'AZURE_CLIENT_SECRET'] },
          { name: 'subscription_id', aliases: ['subscription', 'subscriptionId', 'AZURE_SUBSCRIPTION_ID'] },
        ])
      : []
    this.sp = named && tenant_id && client_id && client_secret && subscription_id ? { tenant_id, client_id, client_secret, subscription_id } : null
    this.token = !named && /^[\x21-\x7e]{8,}$/.test(credential) ? credential : null
  }

  private async client(): Promise<RestClient> {
    if (this.api) return this.api
    if (this.token) return (this.api = this.rest(this.token))
    if (!this.sp) throw new ProviderError('auth', 'Azure DNS needs a service principal as JSON: tenant_id, client_id, client_secret, subscription_id')
    // The test harness points `base` at a stand-in, which also plays the login endpoint.
    const login = this.base === AZURE_API ? LOGIN : this.base
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: this.sp.client_id, client_secret: this.sp.client_secret, scope: 'https://management.azure.com/.default' })
    const r = await exchange('POST', `${login}/${encodeURIComponent(this.sp.tenant_id)}/oauth2/v2.0/token`, { 'content-type': 'application/x-www-form-urlencoded' }, form.toString())
    if (r.status >= 300 || typeof r.body?.access_token !== 'string') throw failureOf('Azure DNS', r, `${r.body?.error ?? ''}: ${r.body?.error_description ?? `HTTP ${r.status}`}`, r.status === 400 || r.status === 401 ? 'auth' : undefined)
    this.api = this.rest(r.body.access_token)
    return this.api
  }

  private rest(token: string): RestClient {
    return new RestClient({ name: 'Azure DNS', base: this.base, headers: { authorization: `Bearer ${token}` }, message: (b) => (b?.error ? `${b.error.code}: ${b.error.message}` : undefined) })
  }

  private async paged(path: string, version = VERSION): Promise<any[]> {
    const api = await this.client()
    let next: string | null = `${path}${path.includes('?') ? '&' : '?'}${version}`
    return paginate<any>({ provider: 'Azure DNS', what: path }, async () => {
      if (!next) return { items: [] }
      const r = await api.call('GET', next)
      // Azure names management.azure.com in nextLink, whatever base Portico is configured with (paging.ts).
      next = nextPageUrl(typeof r.nextLink === 'string' ? r.nextLink : null, this.base, AZURE_API, 'Azure DNS')
      return { items: r.value ?? [], more: next !== null }
    })
  }

  async listZones(): Promise<Zone[]> {
    if (!this.sp && !this.token) await this.client()
    const subscriptions = this.sp ? [this.sp.subscription_id] : ((await this.paged('/subscriptions', SUBSCRIPTIONS_VERSION)) as { subscriptionId: string }[]).map((s) => s.subscriptionId)
    // A zone of one name may stand in several resource groups: its assigned name servers tell which the
    // delegation points at (src/adapters/dns-providers/types.ts `chooseZone`); a Private zone is a VNet's view.
    return acrossScopes(
      subscriptions.map((sub) => async () =>
        (await this.paged(`/subscriptions/${encodeURIComponent(sub)}/providers/Microsoft.Network/dnszones`))
          .filter((z) => z.properties?.zoneType !== 'Private')
          .map((z) => ({ id: z.id, name: canonicalName(z.name), ...(Array.isArray(z.properties?.nameServers) ? { nameServers: z.properties.nameServers.map(String) } : {}) })),
      ),
    )
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const out: RRset[] = []
    for (const s of await this.paged(`${zone.id}/all`)) {
      const type = String(s.type).split('/').pop()!
      if (type === 'SOA') continue
      const f = FIELDS[type]
      const p = s.properties ?? {}
      const name = absoluteName(s.name, zone.name)
      // An alias record set points at an Azure resource (targetResource) and holds no records: read as locked.
      if (p.targetResource?.id) {
        out.push({ name, type, ttl: p.TTL, values: [`alias ${p.targetResource.id}`], locked: 'an Azure alias record set (targetResource)' })
        continue
      }
      const values = f ? ((p[f.key] ?? p[f.key.replace(/^caa/, 'CAA')] ?? []) as any[]).map(f.from) : type === 'CNAME' && p.CNAMERecord ? [canonicalName(p.CNAMERecord.cname)] : null
      if (values === null) {
        // A type Portico does not write (SRV, PTR, TLSA, DS, NAPTR…): read as locked so nothing replaces it.
        const data = Object.entries(p).find(([k]) => /Records?$/.test(k))?.[1]
        out.push({ name, type, ttl: p.TTL, values: (Array.isArray(data) ? data : data ? [data] : []).map((x) => JSON.stringify(x)), locked: `Azure ${type} records, which Portico does not write` })
        continue
      }
      if (values.length === 0) continue
      // A set's metadata (its tags) goes back with it whenever Portico writes the set.
      const meta = p.metadata && Object.keys(p.metadata).length > 0 ? p.metadata : undefined
      const native: Record<string, Record<string, unknown>> = {}
      if (meta) for (const v of values) native[v] = { metadata: meta }
      // A TXT value held as strings split elsewhere than 255 bytes keeps them: it goes back byte-identical.
      if (type === 'TXT') {
        for (const x of (p.TXTRecords ?? []) as { value: string[] }[]) {
          const v = x.value.join('')
          if (x.value.join('\u0000') !== chunks(v).join('\u0000')) native[v] = { ...native[v], strings: x.value }
        }
      }
      out.push({ name, type, ttl: p.TTL, values, ...(Object.keys(native).length ? { native } : {}) })
    }
    return out
  }

  private path(zone: Zone, name: string, type: string) {
    return `${zone.id}/${type}/${encodeURIComponent(relativeName(name, zone.name))}?${VERSION}`
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const f = FIELDS[c.type]
    const properties: Record<string, unknown> = { TTL: c.ttl }
    // PUT replaces the whole set: its metadata is sent again (from the set as read, or as restored).
    const metadata = [...Object.values(c.native ?? {}), ...Object.values(cur?.native ?? {})].map((n) => (n as { metadata?: unknown })?.metadata).find((m) => m !== undefined)
    if (metadata) properties.metadata = metadata
    if (c.type === 'CNAME') properties.CNAMERecord = { cname: c.values[0] }
    else if (c.type === 'TXT') {
      // A value Azure held as its own strings (and still the same text) goes back as those strings.
      const own = (v: string) => ((c.native?.[v] ?? cur?.native?.[v]) as { strings?: string[] } | undefined)?.strings
      properties.TXTRecords = c.values.map((v) => (own(v)?.join('') === v ? { value: own(v) } : f!.to(v)))
    } else if (f) properties[f.key] = c.values.map(f.to)
    else throw new ProviderError('write_failed', `Azure DNS: Portico does not write ${c.type} records`)
    await (await this.client()).call('PUT', this.path(zone, c.name, c.type), { properties })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await (await this.client()).call('DELETE', this.path(zone, cur.name, cur.type))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'azure',
  defaultBase: AZURE_API,
  make: (s, o) => new AzureDnsProvider(s, o.base),
  token_url: 'https://portal.azure.com/#view/Microsoft_AAD_RegisteredApps/ApplicationsListBlade',
  token_scopes: ['DNS Zone Contributor'],
  credential: 'Service principal (tenant_id, client_id, client_secret, subscription_id)',
}
