// Azure DNS through Resource Manager, and the Microsoft Entra ID token endpoint, the parts the adapter
// uses (https://learn.microsoft.com/rest/api/dns/record-sets/list-all-by-dns-zone, …/create-or-update,
// …/delete; https://learn.microsoft.com/entra/identity-platform/v2-oauth2-client-creds-grant-flow):
// POST /{tenant}/oauth2/v2.0/token with the client-credentials grant answers `{access_token,
// expires_in, token_type}` or 401 `{error: "invalid_client"}`; ARM errors are `{error: {code,
// message}}` (401 InvalidAuthenticationToken, 404 ResourceNotFound / ParentResourceNotFound, 400
// BadRequest, 429 TooManyRequests with Retry-After); lists `{value, nextLink}`, the nextLink on
// https://management.azure.com whatever address was asked (Azure Resource Manager's own origin, as its
// REST reference's examples give it). Record sets `{id, name,
// type: "Microsoft.Network/dnszones/<T>", etag, properties: {TTL, fqdn, ARecords | MXRecords | …}}`.
import { azure as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import { oauthServer, type ProviderOAuthFake } from '../../../../test/harness/provider-fakes/oauth.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface AzRRset {
  name: string
  type: string
  properties: Record<string, any>
}

/**
 * With a person's OAuth grant (https://learn.microsoft.com/entra/identity-platform/v2-oauth2-auth-code-flow):
 * GET /organizations/oauth2/v2.0/authorize is the consent, POST /organizations/oauth2/v2.0/token trades
 * a code (PKCE) or a refresh token, which rotates; GET /subscriptions?api-version=2022-12-01
 * (https://learn.microsoft.com/rest/api/resources/subscriptions/list) lists the person's subscriptions.
 */
export function startAzureFake(): Fake<AzRRset> & { oauth: ProviderOAuthFake } {
  const sp = { tenant_id: crypto.randomUUID(), client_id: crypto.randomUUID(), client_secret: 'az~' + nextId(), subscription_id: crypto.randomUUID() }
  const rg = 'portico-rg'
  const zonePath = (name: string) => `/subscriptions/${sp.subscription_id}/resourceGroups/${rg}/providers/Microsoft.Network/dnszones/${name}`
  const tokens = new Set<string>()
  const server = oauthServer({ authorizePath: '/organizations/oauth2/v2.0/authorize', tokenPath: '/organizations/oauth2/v2.0/token', prefix: 'eyJ0', expiresIn: 3599, rotate: true, accept: (t) => tokens.add(t), refuse: (t) => tokens.delete(t) })
  const err = (status: number, code: string, message: string, headers: Record<string, string> = {}) => json(status, { error: { code, message } }, headers)
  const fake = startFake<AzRRset>({
    credential: JSON.stringify(sp),
    zoneId: (name) => zonePath(name),
    retryAfter: 17,
    throttled: cardThrottle(card, 17),
    async handle(req, url, f) {
      const granted = await server.handle(req, url)
      if (granted) return granted
      if (req.method === 'POST' && url.pathname === `/${sp.tenant_id}/oauth2/v2.0/token`) {
        const form = new URLSearchParams(await req.text())
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== sp.client_id || form.get('client_secret') !== sp.client_secret || form.get('scope') !== 'https://management.azure.com/.default') {
          return json(401, { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.' })
        }
        const t = 'eyJ' + nextId()
        tokens.add(t)
        return json(200, { token_type: 'Bearer', expires_in: 3599, access_token: t })
      }
      if (url.pathname.endsWith('/oauth2/v2.0/token')) return json(400, { error: 'invalid_request', error_description: "AADSTS90002: Tenant not found." })
      const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1]
      if (!bearer || !tokens.has(bearer)) return err(401, 'InvalidAuthenticationToken', 'The access token is invalid.')
      if (req.method === 'GET' && url.pathname === '/subscriptions') {
        if (url.searchParams.get('api-version') !== '2022-12-01') return err(400, 'InvalidApiVersionParameter', 'The api-version is missing or not supported.')
        return json(200, { value: [{ id: `/subscriptions/${sp.subscription_id}`, subscriptionId: sp.subscription_id, tenantId: sp.tenant_id, displayName: 'Pay-As-You-Go', state: 'Enabled' }] })
      }
      if (url.searchParams.get('api-version') !== '2018-05-01') return err(400, 'InvalidApiVersionParameter', 'The api-version is missing or not supported.')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const page = Number(url.searchParams.get('$skiptoken') ?? 1)
        const s = servePage(f, kind, rows, page, 100)
        return json(200, { value: s.items, ...(page < s.last ? { nextLink: `https://management.azure.com${url.pathname}?api-version=2018-05-01&$skiptoken=${page + 1}` } : {}) })
      }
      if (req.method === 'GET' && url.pathname === `/subscriptions/${sp.subscription_id}/providers/Microsoft.Network/dnszones`) {
        return list('zones', f.zones.map((z) => ({ id: z.id, name: z.name, type: 'Microsoft.Network/dnszones', location: 'global', properties: { nameServers: z.nameServers ?? ['ns1-01.azure-dns.com.'], zoneType: 'Public' } })))
      }
      const m = /^(\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.Network\/dnszones\/[^/]+)\/(?:(all)|([A-Za-z]+)\/([^/]+))$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.id === m[1])
      if (!m || !zone) return err(404, 'ParentResourceNotFound', `Can not perform requested operation on nested resource. Parent resource '${m?.[1] ?? url.pathname}' not found.`)
      const view = (s: AzRRset) => ({ id: `${zone.id}/${s.type}/${s.name}`, name: s.name, type: `Microsoft.Network/dnszones/${s.type}`, etag: nextId(), properties: { ...s.properties, fqdn: `${s.name === '@' ? '' : `${s.name}.`}${zone.name}.` } })
      if (req.method === 'GET' && m[2]) return list('records', zone.records.map(view))
      const [type, name] = [m[3]!, decodeURIComponent(m[4]!)]
      const i = zone.records.findIndex((s) => s.name === name && s.type === type)
      if (req.method === 'PUT') {
        const b = (await req.json()) as { properties?: Record<string, any> }
        const p = b.properties ?? {}
        const data = Object.keys(p).filter((k) => k !== 'TTL' && k !== 'metadata' && k !== 'targetResource')
        if (p.targetResource && data.length > 0) return err(400, 'BadRequest', 'An alias record set cannot also hold records.')
        if (typeof p.TTL !== 'number' || (!p.targetResource && data.length !== 1) || (Array.isArray(p[data[0]!]) && p[data[0]!].length === 0)) return err(400, 'BadRequest', 'The record set must have a TTL and records of its type.')
        if (type === 'TXT' && (p.TXTRecords as { value: string[] }[]).some((r) => r.value.some((v) => Buffer.byteLength(v) > 255))) return err(400, 'BadRequest', 'A TXT string is longer than 255 bytes.')
        const others = zone.records.filter((s) => s.name === name && s.type !== type)
        if ((type === 'CNAME' && others.length) || others.some((s) => s.type === 'CNAME')) return err(409, 'Conflict', 'The CNAME record set conflicts with another record set.')
        const set = { name, type, properties: p }
        if (i === -1) zone.records.push(set)
        else zone.records[i] = set
        return json(i === -1 ? 201 : 200, view(set))
      }
      if (req.method === 'DELETE') {
        if (i !== -1) zone.records.splice(i, 1)
        return new Response(null, { status: i === -1 ? 204 : 200 })
      }
      return err(405, 'MethodNotAllowed', 'method not allowed')
    },
  })
  return Object.assign(fake, { oauth: server.oauth })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'azure',
  reference: 'https://learn.microsoft.com/rest/api/dns/record-sets',
  start: () => startAzureFake(),
  base: (f) => f.url,
  badCredential: (f) => JSON.stringify({ ...JSON.parse(f.credential), client_secret: 'wrong' }),
  foreignZone: { id: '/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Network/dnszones/not-mine.example', name: 'not-mine.example' },
}
