// Google Cloud DNS API v1 (https://cloud.google.com/dns/docs/reference/rest/v1). The credential is a
// service account key (the JSON file Google issues: `project_id`, `client_email`, `private_key`); the
// adapter signs a JWT with it (RS256, scope `ndev.clouddns.readwrite`) and trades it at Google's token
// endpoint for a Bearer token (https://developers.google.com/identity/protocols/oauth2/service-account).
// The token endpoint is Google's own, never the `token_uri` inside the key, so a pasted key cannot
// send requests elsewhere. Zones: GET /projects/{p}/managedZones (paged: `nextPageToken`); record
// sets: GET …/managedZones/{zone}/rrsets (paged the same way), each `{name, type, ttl, rrdatas}`; all
// changes go in one POST …/managedZones/{zone}/changes `{additions, deletions}` (atomic; a deletion
// must match the set as it stands). Names are absolute with the trailing dot; rrdatas are zone-file
// text. Errors are `{error: {code, message, status}}`: 401 UNAUTHENTICATED, 403 PERMISSION_DENIED,
// 404 NOT_FOUND, 409 ALREADY_EXISTS, 412 conditionNotMet, 429 RESOURCE_EXHAUSTED (no wait given: backed off
// 1, 2, 4 s). A record set with a routing policy (geo, weighted round robin, failover) has no plain
// rrdatas: it is read as locked and never rewritten (src/adapters/dns-providers/google-cloud-dns/card.ts).
// Through the OAuth rail the credential is instead a person's access token (not JSON): the zones are
// those of every project the person can see (Cloud Resource Manager `GET /v1/projects`, paged), and a
// zone's id is `project/zone`.
import { createSign } from 'node:crypto'
import { exchange, failureOf, retryAfterOf, type HttpResult } from '../http.ts'
import { paginate } from '../paging.ts'
import { RestClient } from '../rest.ts'
import { fromZoneFile, toZoneFile } from '../hetzner/adapter.ts'
import { acrossScopes, canonicalName, ProviderError, readTxtSet, writeTxt, type DnsProvider, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { onceMoreIfZoneChanged } from '../zone-changed.ts'
import type { HostedProvider } from '../hosted.ts'

export const GOOGLE_DNS_API = 'https://dns.googleapis.com'
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
const SCOPE = 'https://www.googleapis.com/auth/ndev.clouddns.readwrite'
const RESOURCE_MANAGER = 'https://cloudresourcemanager.googleapis.com'

interface ServiceAccountKey {
  project_id: string
  client_email: string
  private_key: string
}

/** Google's 429 (RESOURCE_EXHAUSTED) comes without a wait: truncated exponential back-off, 1, 2, 4 s. */
export function googleTemporary(r: HttpResult, attempt: number): number | undefined {
  if (r.status !== 429 && r.status !== 503) return undefined
  return retryAfterOf(r.headers) ?? Math.min(2 ** (attempt - 1), 4)
}

interface GoogleRRset {
  name: string
  type: string
  ttl: number
  rrdatas?: string[]
  routingPolicy?: unknown
  signatureRrdatas?: string[]
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute with the trailing dot",
  hostnames: "zone-file text with the trailing dot",
  txt: "quoted zone-file strings",
  ttl: "any",
  temporary: "429 RESOURCE_EXHAUSTED backed off 1, 2, 4 s",
  sources: {
    apex: "catalogue: no apex record offered (Cloud DNS routing policies are read as locked)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/googleclouddns/)",
    hostnames: "Cloud DNS discovery document (test/fixtures/provider-openapi/google-cloud-dns.json)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/googleclouddns/)",
    ttl: "Cloud DNS reference",
    temporary: "the reference card (src/adapters/dns-providers/google-cloud-dns/card.ts)",
  },
}

export class GoogleCloudDnsProvider implements DnsProvider {
  readonly id = 'google-cloud-dns'
  readonly conventions = CONVENTIONS
  private api: RestClient | null = null
  private readonly key: ServiceAccountKey | null
  /** A person's OAuth access token, when the credential is one instead of a key. */
  private readonly token: string | null

  constructor(
    credential: string,
    private readonly base = GOOGLE_DNS_API,
  ) {
    let k: any = null
    try {
      k = JSON.parse(credential)
    } catch {}
    this.key = typeof k?.project_id === 'string' && typeof k.client_email === 'string' && typeof k.private_key === 'string' ? k : null
    this.token = k === null && /^[\x21-\x7e]{8,}$/.test(credential) ? credential : null
  }

  /** The test harness points `base` at a stand-in, which also plays the token endpoint and Resource Manager. */
  private tokenUrl() {
    return this.base === GOOGLE_DNS_API ? GOOGLE_TOKEN_URL : `${this.base}/token`
  }

  private async bearer(): Promise<string> {
    if (this.token) return this.token
    if (!this.key) throw new ProviderError('auth', 'Google Cloud DNS needs a service account key (the JSON file) as the credential')
    const now = Math.floor(Date.now() / 1000)
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
    const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iss: this.key.client_email, scope: SCOPE, aud: GOOGLE_TOKEN_URL, iat: now, exp: now + 3600 })}`
    let signature: string
    try {
      signature = createSign('RSA-SHA256').update(unsigned).sign(this.key.private_key, 'base64url')
    } catch {
      throw new ProviderError('auth', 'Google Cloud DNS: the service account key\'s private_key is not a usable RSA key')
    }
    const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: `${unsigned}.${signature}` })
    const r = await exchange('POST', this.tokenUrl(), { 'content-type': 'application/x-www-form-urlencoded' }, form.toString())
    if (r.status >= 300 || typeof r.body?.access_token !== 'string') {
      throw failureOf('Google Cloud DNS', r, `${r.body?.error ?? ''}: ${r.body?.error_description ?? `HTTP ${r.status}`}`, r.status === 400 || r.status === 401 ? 'auth' : undefined)
    }
    return r.body.access_token
  }

  private async client(): Promise<RestClient> {
    if (this.api) return this.api
    this.api = new RestClient({
      name: 'Google Cloud DNS',
      base: this.base,
      headers: { authorization: `Bearer ${await this.bearer()}` },
      message: (b) => (b?.error ? `${b.error.status ?? b.error.code}: ${b.error.message}` : undefined),
      http: { temporary: googleTemporary },
    })
    return this.api
  }

  /** Every item of a list, page by page (`size` is the API's page-size parameter). */
  private async paged(path: string, key: string, size = 'maxResults'): Promise<any[]> {
    const api = await this.client()
    let token = ''
    // The server decides how many a page holds (maxResults is a maximum), so only its token ends a list.
    return paginate<any>({ provider: 'Google Cloud DNS', what: path }, async ({ index }) => {
      if (index > 1 && !token) return { items: [] }
      const r = await api.call('GET', `${path}${path.includes('?') ? '&' : '?'}${size}=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`)
      token = r.nextPageToken ?? ''
      return { items: r[key] ?? [], more: token !== '' }
    })
  }

  /** The managed zone's path: a key's own project, or the project in an OAuth zone id. */
  private zonePath(zone: Zone): string {
    const [project, name] = this.key ? [this.key.project_id, zone.id] : zone.id.split('/')
    return `/dns/v1/projects/${encodeURIComponent(project ?? '')}/managedZones/${encodeURIComponent(name ?? '')}`
  }

  private async zonesOf(project: string, prefix: string): Promise<Zone[]> {
    return (await this.paged(`/dns/v1/projects/${encodeURIComponent(project)}/managedZones`, 'managedZones'))
      .filter((z) => z.visibility !== 'private')
      .map((z) => ({ id: prefix + z.name, name: canonicalName(z.dnsName), ...(Array.isArray(z.nameServers) ? { nameServers: z.nameServers.map(String) } : {}) }))
  }

  async listZones(): Promise<Zone[]> {
    if (!this.token) {
      await this.bearer()
      return this.zonesOf(this.key!.project_id, '')
    }
    const rm = this.base === GOOGLE_DNS_API ? RESOURCE_MANAGER : this.base
    const projects = (await this.paged(`${rm}/v1/projects?filter=lifecycleState%3AACTIVE`, 'projects', 'pageSize')) as { projectId: string }[]
    return acrossScopes(projects.map((p) => () => this.zonesOf(p.projectId, `${p.projectId}/`)))
  }

  private async rrsets(zone: Zone): Promise<GoogleRRset[]> {
    return this.paged(`${this.zonePath(zone)}/rrsets`, 'rrsets')
  }

  /** A record set as the planner sees it; one with a routing policy (geo, weighted round robin,
   * failover) has no plain rrdatas and is read as locked. */
  private toSet(s: GoogleRRset, zone: Zone): RRset {
    const name = canonicalName(s.name)
    if (s.routingPolicy || !Array.isArray(s.rrdatas)) {
      const kind = Object.keys((s.routingPolicy as object) ?? {})[0] ?? 'routing'
      return { name, type: s.type, ttl: s.ttl, values: [`${kind} routing policy`], locked: `a Google Cloud DNS ${kind} routing policy` }
    }
    // A TXT value held as several strings keeps them (readTxtSet): it goes back byte-identical.
    if (s.type === 'TXT') return { name, type: s.type, ttl: s.ttl, ...readTxtSet(s.rrdatas) }
    return { name, type: s.type, ttl: s.ttl, values: s.rrdatas.map((v) => fromZoneFile(s.type, v, zone.name)) }
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.rrsets(zone)).map((s) => this.toSet(s, zone))
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    // The set changed between this read and the POST (issue 46): the change is all or nothing, so
    // nothing was written. Read the zone again and send the change once more, its deletions as the
    // sets now stand; changed again, the zone is busy: 409 conflict (zone_changed), retry later.
    await onceMoreIfZoneChanged('Google Cloud DNS', 412, isConditionNotMet, () => this.sendChange(zone, changes))
  }

  /** One change built from the zone as it stands now: its deletions are the touched sets exactly as Google holds them. */
  private async sendChange(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const current = await this.rrsets(zone)
    const touched = changes.flatMap((c) => current.filter((s) => canonicalName(s.name) === c.name && s.type === c.type))
    const locked = touched.map((s) => this.toSet(s, zone)).find((s) => s.locked)
    if (locked) throw new ProviderError('unrepresentable', `${locked.name} ${locked.type} holds ${locked.locked}, which Portico cannot write back exactly as it is; nothing was written`)
    // A deletion must match the set as it stands: the sets are sent back exactly as Google gave them.
    const deletions = touched.map((s) => ({ name: s.name, type: s.type, ttl: s.ttl, rrdatas: s.rrdatas, ...(s.signatureRrdatas ? { signatureRrdatas: s.signatureRrdatas } : {}) }))
    const held = (c: RRsetChange) => ({ ...touched.map((s) => this.toSet(s, zone)).find((s) => s.name === c.name && s.type === c.type)?.native, ...c.native })
    const additions = changes
      .filter((c) => c.values.length > 0)
      .map((c) => ({ name: `${c.name}.`, type: c.type, ttl: c.ttl, rrdatas: c.values.map((v) => (c.type === 'TXT' ? writeTxt(v, held(c)) : toZoneFile(c.type, v))) }))
    await (await this.client()).call('POST', `${this.zonePath(zone)}/changes`, { additions, deletions })
  }
}

/** Google's 412 on a change whose deletions no longer match the zone (FAILED_PRECONDITION, reason conditionNotMet). */
const isConditionNotMet = (e: unknown) => e instanceof ProviderError && e.status === 412

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'google-cloud-dns',
  defaultBase: GOOGLE_DNS_API,
  make: (s, o) => new GoogleCloudDnsProvider(s, o.base),
  token_url: 'https://console.cloud.google.com/iam-admin/serviceaccounts',
  token_scopes: ['roles/dns.admin'],
  credential: 'Service account key (the JSON file as downloaded)',
}
