// A Domain Connect DNS Provider on loopback that writes into the test PowerDNS, the way a real one
// (GoDaddy, IONOS, ...) behaves toward a Service Provider such as Portico:
// - discovery: `GET /v2/{domain}/settings` for zones it hosts (the test publishes `_domainconnect`);
// - `GET /v2/domainTemplates/providers/{providerId}/services/{serviceId}`: is a template supported;
// - synchronous apply: `GET .../apply?...`: for templates with `syncPubKeyDomain` the signature is
//   verified with the public key fetched over DNS from `<key>.<syncPubKeyDomain>` (TXT fragments);
//   a tampered or unsigned query is refused with 403 and nothing is written;
// - asynchronous rail: the consent page `GET /v2/domainTemplates/providers/{providerId}?...` (the end
//   user approves, or denies when the test says so), `POST /v2/oauth/access_token` (code for tokens,
//   client authenticated by its secret), and `POST .../apply` with the bearer token;
// - applying: the zone is read from PowerDNS, the template applied with the spec's conflict rules,
//   and the changed RRsets replaced in PowerDNS.
import { randomBytes } from 'node:crypto'
import type { Server } from 'bun'
import { Resolver } from '../../src/adapters/resolver.ts'
import { applyTemplate, type ZoneRecord } from '../../src/domain/domain-connect/apply.ts'
import { publicKeyFromTxt, splitSignedQuery, verifyApplyQuery } from '../../src/domain/domain-connect/signing.ts'
import { loadTemplatesFromDir, type Template } from '../../src/domain/domain-connect/template.ts'
import type { Pdns } from './pdns.ts'

export interface DcProviderOptions {
  pdns: Pdns
  /** The templates this provider has onboarded (the Service Providers' published files). */
  templatesDir: string
  providerId?: string
  providerName?: string
  /** Offer the asynchronous rail (urlAsyncUX, urlAPI). */
  async?: boolean
  /** Offer the synchronous rail (urlSyncUX); default true. */
  sync?: boolean
  /** OAuth clients allowed on the async rail: client_id to client_secret. */
  clients?: Record<string, string>
}

export interface AppliedLog {
  rail: 'sync' | 'async'
  providerId: string
  serviceId: string
  domain: string
  host: string
  added: ZoneRecord[]
  deleted: ZoneRecord[]
}

export interface DcProvider {
  /** `http://127.0.0.1:PORT`: urlSyncUX, urlAsyncUX and urlAPI. */
  url: string
  /** `127.0.0.1:PORT`: the value of the `_domainconnect` TXT record. */
  host: string
  providerId: string
  applied: AppliedLog[]
  reverted: AppliedLog[]
  /** Access tokens issued from a refresh token. */
  refreshes: number
  /** Calls of the token endpoint, whatever their outcome. */
  tokenRequests: number
  refused: { path: string; status: number; reason: string }[]
  /** The next consent is refused by the end user. */
  denyNextConsent(): void
  /** The person withdrew every consent at the provider: access and refresh tokens stop working. */
  revokeAll(): void
  /** Publishes `_domainconnect.<zone>` pointing here. */
  serve(zone: string): Promise<void>
  stop(): Promise<void>
}

const fq = (n: string) => (n.endsWith('.') ? n : `${n}.`)
const bare = (n: string) => n.replace(/\.$/, '').toLowerCase()

function unquoteTxt(content: string): string {
  const parts = [...content.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!.replace(/\\(["\\])/g, '$1'))
  return parts.length ? parts.join('') : content
}

function quoteTxt(data: string): string {
  const chunks: string[] = []
  for (let i = 0; i < data.length || i === 0; i += 255) chunks.push(`"${data.slice(i, i + 255).replace(/(["\\])/g, '\\$1')}"`)
  return chunks.join(' ')
}

/** PowerDNS RRsets as the engine's zone records. */
function zoneRecords(rows: { name: string; type: string; ttl: number; content: string }[]): ZoneRecord[] {
  return rows
    .filter((r) => r.type !== 'SOA')
    .map((r) => {
      const name = bare(r.name)
      switch (r.type) {
        case 'TXT':
          return { type: 'TXT', name, data: unquoteTxt(r.content), ttl: r.ttl }
        case 'CNAME':
        case 'NS':
          return { type: r.type, name, data: bare(r.content), ttl: r.ttl }
        case 'MX': {
          const [prio, host] = r.content.split(/\s+/)
          return { type: 'MX', name, data: bare(host!), ttl: r.ttl, priority: Number(prio) }
        }
        case 'SRV': {
          const [prio, weight, port, target] = r.content.split(/\s+/)
          return { type: 'SRV', name, data: `${weight} ${port} ${target === '.' ? '.' : bare(target!)}`, ttl: r.ttl, priority: Number(prio) }
        }
        default:
          return { type: r.type, name, data: r.content, ttl: r.ttl }
      }
    })
}

function content(r: ZoneRecord): string {
  switch (r.type) {
    case 'TXT':
      return quoteTxt(r.data)
    case 'CNAME':
    case 'NS':
    case 'ALIAS':
      return fq(r.data)
    case 'MX':
      return `${r.priority} ${fq(r.data)}`
    case 'SRV': {
      const [weight, port, target] = r.data.split(' ')
      return `${r.priority} ${weight} ${port} ${target === '.' ? '.' : fq(target!)}`
    }
    default:
      return r.data
  }
}

/**
 * The service-side types, as a DNS Provider offers them: APEXCNAME is a PowerDNS ALIAS record; REDIR301/302
 * are served by this provider's own web forwarding (its HTTP server answers the redirect for that host
 * name), so in DNS they are an A record to the forwarding address.
 */
const REDIRECTS = new Set(['REDIR301', 'REDIR302'])
const FORWARDING_ADDRESS = '127.0.0.1'

/** The zone as the engine sees it: ALIAS is APEXCNAME, the forwarding A records are the redirects they serve. */
function withServiceTypes(zone: ZoneRecord[], forwards: Map<string, { status: number; target: string; ttl: number }>): ZoneRecord[] {
  const out: ZoneRecord[] = []
  for (const r of zone) {
    if (r.type === 'ALIAS') out.push({ ...r, type: 'APEXCNAME', data: bare(r.data) })
    else if (r.type === 'A' && r.data === FORWARDING_ADDRESS && forwards.has(r.name)) {
      const f = forwards.get(r.name)!
      out.push({ type: f.status === 301 ? 'REDIR301' : 'REDIR302', name: r.name, data: f.target, ttl: r.ttl })
    } else out.push(r)
  }
  return out
}

export async function startDcProvider(opts: DcProviderOptions): Promise<DcProvider> {
  const providerId = opts.providerId ?? 'loopdns.test'
  const { templates, failures } = loadTemplatesFromDir(opts.templatesDir)
  if (failures.length) throw new Error(`dc-provider: templates refused: ${failures.map((f) => f.file).join(', ')}`)
  const byKey = new Map(templates.map((t) => [`${t.providerId}/${t.serviceId}`.toLowerCase(), t]))
  const resolver = new Resolver({ servers: [opts.pdns.dnsAddress], timeoutMs: 1500 })
  const codes = new Map<string, { clientId: string; redirectUri: string; domain: string; host: string; scopes: string[]; providerId: string }>()
  type Grant = { clientId: string; domain: string; host: string; scopes: string[]; providerId: string; redirectUri: string }

  /** The async draft: POST parameters come in the query string or a JSON body (a form body is read too). */
  async function postParams(req: Request, url: URL): Promise<URLSearchParams> {
    const out = new URLSearchParams(url.search)
    const type = req.headers.get('content-type') ?? ''
    const text = await req.text()
    if (type.includes('application/json') && text) {
      for (const [k, v] of Object.entries(JSON.parse(text) as Record<string, unknown>)) if (typeof v === 'string' || typeof v === 'number') out.set(k, String(v))
    } else if (type.includes('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(text)) out.set(k, v)
    }
    return out
  }
  const tokens = new Map<string, Grant>()
  const refreshTokens = new Map<string, Grant>()
  /** Applied template instances, for revert: the records each put in place. */
  const instances = new Map<string, ZoneRecord[]>()
  const instanceKey = (t: Template, domain: string, host: string) => `${t.providerId}/${t.serviceId}|${domain}|${host}`.toLowerCase()
  const reverted: AppliedLog[] = []
  let refreshes = 0
  let tokenRequests = 0
  const applied: AppliedLog[] = []
  const refused: DcProvider['refused'] = []
  let denyNext = false
  /** Web forwarding: host name to the redirect it answers. */
  const forwards = new Map<string, { status: number; target: string; ttl: number }>()
  let base = ''

  const refuse = (path: string, status: number, reason: string) => {
    refused.push({ path, status, reason })
    return Response.json({ error: reason }, { status })
  }

  async function apply(rail: 'sync' | 'async', t: Template, domain: string, host: string, params: Record<string, string>, groupIds: string[] | undefined): Promise<string | null> {
    const zone = withServiceTypes(zoneRecords(await opts.pdns.listRecords(domain)), forwards)
    const r = applyTemplate({ template: t, domain, host, params, groupIds, zone })
    if (!r.ok) return r.error
    // Stored form: APEXCNAME as ALIAS, a redirect as an A record to the forwarding service.
    const stored = (x: ZoneRecord): ZoneRecord =>
      x.type === 'APEXCNAME' ? { ...x, type: 'ALIAS' } : REDIRECTS.has(x.type) ? { type: 'A', name: x.name, data: FORWARDING_ADDRESS, ttl: x.ttl } : x
    for (const x of r.toDelete) if (REDIRECTS.has(x.type)) forwards.delete(x.name)
    for (const x of r.toAdd) if (REDIRECTS.has(x.type)) forwards.set(x.name, { status: x.type === 'REDIR301' ? 301 : 302, target: x.data, ttl: x.ttl })
    const result = r.result.map(stored)
    const touched = [...r.toAdd, ...r.toDelete].map(stored)
    const sets = new Map<string, { name: string; type: string }>()
    for (const x of touched) sets.set(`${x.type} ${x.name}`, { name: x.name, type: x.type })
    // Emptied RRsets go first, so a CNAME never meets the records it replaces.
    const planned = [...sets.values()].map(({ name, type }) => ({ name, type, rows: result.filter((x) => x.type === type && x.name === name) }))
    try {
      for (const s of planned) if (s.rows.length === 0) await opts.pdns.deleteRecords(s.name, s.type)
      for (const s of planned) if (s.rows.length > 0) await opts.pdns.setRecords(s.name, s.type, [...new Set(s.rows.map(content))], s.rows[0]!.ttl)
    } catch (err) {
      return `the zone refused the change: ${(err as Error).message}`
    }
    applied.push({ rail, providerId: t.providerId, serviceId: t.serviceId, domain, host, added: r.toAdd, deleted: r.toDelete })
    instances.set(instanceKey(t, domain, host), r.records.filter((x) => x.type !== 'SPFM'))
    return null
  }

  /** Removes what an applied instance of the template put in place (its SPF rules stay merged). */
  async function revert(t: Template, domain: string, host: string): Promise<string | null> {
    const records = instances.get(instanceKey(t, domain, host))
    if (!records) return 'template not applied here'
    const zone = zoneRecords(await opts.pdns.listRecords(domain))
    const gone = (z: ZoneRecord) => records.some((x) => x.type === z.type && x.name === z.name && x.data === z.data && (x.priority ?? null) === (z.priority ?? null))
    const sets = new Set(records.map((x) => `${x.type} ${x.name}`))
    for (const key of sets) {
      const [type, name] = key.split(' ') as [string, string]
      const rows = zone.filter((z) => z.type === type && z.name === name && !gone(z))
      if (rows.length === 0) await opts.pdns.deleteRecords(name, type)
      else await opts.pdns.setRecords(name, type, rows.map(content), rows[0]!.ttl)
    }
    instances.delete(instanceKey(t, domain, host))
    reverted.push({ rail: 'async', providerId: t.providerId, serviceId: t.serviceId, domain, host, added: [], deleted: records })
    return null
  }

  function applyParams(q: URLSearchParams) {
    const params: Record<string, string> = {}
    for (const [k, v] of q) if (!['domain', 'host', 'groupId', 'redirect_uri', 'state', 'sig', 'key', 'force', 'instanceId', 'serviceId', 'providerName', 'serviceName'].includes(k)) params[k] = v
    const groups = q.get('groupId')
    return {
      domain: bare(q.get('domain') ?? ''),
      host: bare(q.get('host') ?? ''),
      params,
      groupIds: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : undefined,
    }
  }

  async function syncApply(req: Request, url: URL, t: Template): Promise<Response> {
    const rawQuery = url.search.slice(1)
    const q = url.searchParams
    if (t.syncBlock) return refuse(url.pathname, 400, 'template blocks the synchronous flow')
    if (t.syncPubKeyDomain) {
      const { signed, sig, key } = splitSignedQuery(rawQuery)
      if (!sig || !key) return refuse(url.pathname, 403, 'signature required')
      const txt = await resolver.lookup(`${key}.${t.syncPubKeyDomain}`, 'TXT')
      const pub = txt.status === 'ok' ? publicKeyFromTxt(txt.values) : null
      if (!pub) return refuse(url.pathname, 403, `no public key at ${key}.${t.syncPubKeyDomain}`)
      if (!verifyApplyQuery(signed, sig, pub)) return refuse(url.pathname, 403, 'signature does not verify')
    }
    const redirect = q.get('redirect_uri')
    if (redirect) {
      const allowed = (t.syncRedirectDomain ?? '').split(',').map((d) => d.trim().toLowerCase()).filter(Boolean)
      let host = ''
      try {
        host = new URL(redirect).hostname.toLowerCase()
      } catch {
        return refuse(url.pathname, 400, 'redirect_uri is not a URL')
      }
      if (!allowed.some((d) => host === d || host.endsWith(`.${d}`))) return refuse(url.pathname, 400, 'redirect_uri not allowed by the template')
    }
    const a = applyParams(q)
    // The end user is signed in here and owns the zone; a zone this provider does not host is refused.
    try {
      await opts.pdns.listRecords(a.domain)
    } catch {
      return refuse(url.pathname, 404, 'domain not hosted here')
    }
    const err = await apply('sync', t, a.domain, a.host, a.params, a.groupIds)
    if (err) {
      if (redirect) return Response.redirect(`${redirect}${redirect.includes('?') ? '&' : '?'}error=invalid_request&error_description=${encodeURIComponent(err)}`, 302)
      return refuse(url.pathname, 400, err)
    }
    if (redirect) {
      const state = q.get('state')
      return Response.redirect(`${redirect}${state !== null ? `${redirect.includes('?') ? '&' : '?'}state=${encodeURIComponent(state)}` : ''}`, 302)
    }
    return new Response('<p>Your domain is set up.</p>', { headers: { 'content-type': 'text/html' } })
  }

  function consent(url: URL, providerIdOfTemplates: string): Response {
    const q = url.searchParams
    const clientId = q.get('client_id') ?? ''
    const redirect = q.get('redirect_uri') ?? ''
    const state = q.get('state')
    if (!opts.clients || !(clientId in opts.clients)) return refuse(url.pathname, 400, 'unknown client_id')
    if (!redirect) return refuse(url.pathname, 400, 'redirect_uri required')
    if (q.get('response_type') !== 'code') return refuse(url.pathname, 400, 'response_type must be code')
    const scopes = (q.get('scope') ?? '').split(/[ +]/).filter(Boolean)
    if (scopes.length === 0 || scopes.some((s) => !byKey.has(`${providerIdOfTemplates}/${s}`.toLowerCase()))) return refuse(url.pathname, 400, 'scope names an unknown template')
    const back = (extra: string) => Response.redirect(`${redirect}${redirect.includes('?') ? '&' : '?'}${extra}${state !== null ? `&state=${encodeURIComponent(state)}` : ''}`, 302)
    if (denyNext) {
      denyNext = false
      return back('error=access_denied&error_description=The%20user%20declined')
    }
    const code = randomBytes(16).toString('hex')
    codes.set(code, { clientId, redirectUri: redirect, domain: bare(q.get('domain') ?? ''), host: bare(q.get('host') ?? ''), scopes, providerId: providerIdOfTemplates })
    return back(`code=${code}`)
  }

  async function token(req: Request, url: URL): Promise<Response> {
    tokenRequests++
    const form = await postParams(req, url)
    const clientId = form.get('client_id') ?? ''
    if (!opts.clients || opts.clients[clientId] === undefined || opts.clients[clientId] !== form.get('client_secret')) return refuse(url.pathname, 401, 'invalid_client')
    let grant: Grant
    if (form.get('grant_type') === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '')
      if (!code || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri')) return refuse(url.pathname, 400, 'invalid_grant')
      codes.delete(form.get('code')!)
      if (form.has('refresh_token')) return refuse(url.pathname, 400, 'invalid_grant')
      grant = { clientId, domain: code.domain, host: code.host, scopes: code.scopes, providerId: code.providerId, redirectUri: code.redirectUri }
    } else if (form.get('grant_type') === 'refresh_token') {
      const prior = refreshTokens.get(form.get('refresh_token') ?? '')
      if (!prior || prior.clientId !== clientId || form.has('code')) return refuse(url.pathname, 400, 'invalid_grant')
      if (prior.redirectUri !== form.get('redirect_uri')) return refuse(url.pathname, 400, 'redirect_uri differs from the authorization request')
      // A refresh retires the access tokens issued before it.
      for (const [k, v] of tokens) if (v === prior) tokens.delete(k)
      grant = prior
      refreshes++
    } else {
      return refuse(url.pathname, 400, 'unsupported_grant_type')
    }
    const access = randomBytes(24).toString('hex')
    tokens.set(access, grant)
    const refresh = randomBytes(24).toString('hex')
    for (const [k, v] of refreshTokens) if (v === grant) refreshTokens.delete(k)
    refreshTokens.set(refresh, grant)
    return Response.json({ access_token: access, token_type: 'bearer', expires_in: 3600, refresh_token: refresh })
  }

  async function asyncApply(req: Request, url: URL, t: Template, verb: 'apply' | 'revert' = 'apply'): Promise<Response> {
    const auth = req.headers.get('authorization') ?? ''
    const grant = tokens.get(auth.replace(/^Bearer\s+/i, ''))
    if (!grant) return refuse(url.pathname, 401, 'invalid_token')
    const a = applyParams(await postParams(req, url))
    if (grant.providerId.toLowerCase() !== t.providerId.toLowerCase() || !grant.scopes.some((s) => s.toLowerCase() === t.serviceId.toLowerCase())) return refuse(url.pathname, 403, 'template not in the grant')
    if (a.domain !== grant.domain || a.host !== grant.host) return refuse(url.pathname, 403, 'domain not in the grant')
    const err = verb === 'revert' ? await revert(t, a.domain, a.host) : await apply('async', t, a.domain, a.host, a.params, a.groupIds)
    if (err) return refuse(url.pathname, verb === 'revert' ? 404 : 400, err)
    return new Response(null, { status: 202 })
  }

  const server: Server<undefined> = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      // Web forwarding for REDIR301/REDIR302 records: the request's Host names the forwarded domain.
      const forwarded = forwards.get(bare((req.headers.get('host') ?? '').replace(/:\d+$/, '')))
      if (forwarded) return new Response(null, { status: forwarded.status, headers: { location: forwarded.target } })
      const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent)
      // /v2/{domain}/settings
      if (req.method === 'GET' && parts.length === 3 && parts[0] === 'v2' && parts[2] === 'settings') {
        try {
          await opts.pdns.listRecords(parts[1]!)
        } catch {
          return refuse(url.pathname, 404, 'domain not hosted here')
        }
        return Response.json({
          providerId,
          providerName: opts.providerName ?? 'Loop DNS',
          providerDisplayName: opts.providerName ?? 'Loop DNS',
          ...(opts.sync !== false ? { urlSyncUX: base } : {}),
          ...(opts.async ? { urlAsyncUX: base } : {}),
          urlAPI: base,
          width: 750,
          height: 750,
          urlControlPanel: `${base}/dns`,
          nameServers: ['ns1.portico-test.test', 'ns2.portico-test.test'],
        })
      }
      if (req.method === 'POST' && url.pathname === '/v2/oauth/access_token') return opts.async ? token(req, url) : refuse(url.pathname, 404, 'no async rail')
      if (parts[0] === 'v2' && parts[1] === 'domainTemplates' && parts[2] === 'providers' && parts[3]) {
        if (parts.length === 4 && req.method === 'GET') return opts.async ? consent(url, parts[3]) : refuse(url.pathname, 404, 'no async rail')
        if (parts[4] === 'services' && parts[5]) {
          const t = byKey.get(`${parts[3]}/${parts[5]}`.toLowerCase())
          if (!t) return refuse(url.pathname, 404, 'template not supported')
          if (parts.length === 6 && req.method === 'GET') return Response.json({ providerId: t.providerId, serviceId: t.serviceId, version: t.version ?? 1 })
          if (parts.length === 7 && parts[6] === 'revert' && req.method === 'POST' && opts.async) return asyncApply(req, url, t, 'revert')
          if (parts.length === 7 && parts[6] === 'apply') {
            if (req.method === 'GET') return opts.sync !== false ? syncApply(req, url, t) : refuse(url.pathname, 404, 'no sync rail')
            if (req.method === 'POST' && opts.async) return asyncApply(req, url, t)
          }
        }
      }
      return refuse(url.pathname, 404, 'not found')
    },
  })
  base = `http://127.0.0.1:${server.port}`
  return {
    url: base,
    host: `127.0.0.1:${server.port}`,
    providerId,
    applied,
    reverted,
    get refreshes() {
      return refreshes
    },
    get tokenRequests() {
      return tokenRequests
    },
    refused,
    denyNextConsent() {
      denyNext = true
    },
    revokeAll() {
      tokens.clear()
      refreshTokens.clear()
    },
    async serve(zone) {
      await opts.pdns.setRecords(`_domainconnect.${zone}`, 'TXT', [`"127.0.0.1:${server.port}"`])
    },
    async stop() {
      server.stop(true)
      await resolver.close()
    },
  }
}
