// Google Cloud DNS v1 and Google's OAuth token endpoint, the parts the adapter uses
// (https://cloud.google.com/dns/docs/reference/rest/v1/resourceRecordSets/list, …/changes/create,
// https://developers.google.com/identity/protocols/oauth2/service-account#authorizingrequests):
// POST /token checks the JWT-bearer assertion's RS256 signature against the service account's public
// key and its claims (iss, aud, scope, exp), answering `{access_token, expires_in, token_type}` or
// `{error: "invalid_grant"}`; API errors are `{error: {code, message, status, errors: [{reason}]}}`
// (401 UNAUTHENTICATED, 404 NOT_FOUND, 409 ALREADY_EXISTS, 412 conditionNotMet for a deletion that
// does not match, 429 RESOURCE_EXHAUSTED with no wait, as the card says); lists paged by `pageToken`,
// the server deciding how many a page holds. A set may carry a `routingPolicy` instead of rrdatas.
import { createVerify, generateKeyPairSync } from 'node:crypto'
import { googleCloudDns as card } from './card.ts'
import { cardThrottle, json, nextId, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import { oauthServer, type ProviderOAuthFake } from '../../../../test/harness/provider-fakes/oauth.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface GRRset {
  kind: 'dns#resourceRecordSet'
  name: string
  type: string
  ttl: number
  rrdatas?: string[]
  /** geo, wrr or primaryBackup items, each with its own rrdatas (then the set has none of its own). */
  routingPolicy?: Record<string, unknown>
}

/**
 * With a person's OAuth grant (https://developers.google.com/identity/protocols/oauth2/web-server):
 * GET /o/oauth2/v2/auth is the consent, POST /token trades a code (PKCE) for an hour's access token and,
 * with access_type=offline, a refresh token (not rotated); Cloud Resource Manager GET /v1/projects
 * (https://cloud.google.com/resource-manager/reference/rest/v1/projects/list) lists the person's projects.
 */
/**
 * Answers a test injects with `refuseNext`: `changedMeanwhile`, someone's change to the zone landing
 * between Portico's read and its POST …/changes (`edit` applies it), so Google refuses the change as
 * it refuses a deletion that no longer matches: 412 FAILED_PRECONDITION, reason conditionNotMet,
 * nothing written (https://cloud.google.com/dns/docs/reference/rest/v1/changes/create).
 */
export const GCD_REFUSALS = {
  changedMeanwhile: (edit: () => void, set: string) => () => {
    edit()
    return json(412, { error: { code: 412, message: `Precondition not met for 'entity.change.deletions[${set}]'`, status: 'FAILED_PRECONDITION', errors: [{ message: `Precondition not met for 'entity.change.deletions[${set}]'`, domain: 'global', reason: 'conditionNotMet' }] } })
  },
}

export function startGoogleDnsFake(project = 'portico-test-' + nextId()): Fake<GRRset> & { wrongKey: string; oauth: ProviderOAuthFake; project: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const email = `dns-writer@${project}.iam.gserviceaccount.com`
  const keyJson = (pem: string) => JSON.stringify({ type: 'service_account', project_id: project, private_key_id: nextId(), private_key: pem, client_email: email, token_uri: 'https://oauth2.googleapis.com/token' })
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  const tokens = new Set<string>()
  const server = oauthServer({
    authorizePath: '/o/oauth2/v2/auth',
    tokenPath: '/token',
    prefix: 'ya29.a0',
    expiresIn: 3599,
    rotate: false,
    refreshWhen: (u) => u.searchParams.get('access_type') === 'offline',
    accept: (t) => tokens.add(t),
    refuse: (t) => tokens.delete(t),
  })
  const err = (code: number, status: string, message: string, reason: string, headers: Record<string, string> = {}) => json(code, { error: { code, message, status, errors: [{ domain: 'global', reason, message }] } }, headers)
  const fake = startFake<GRRset>({
    credential: keyJson(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    zoneId: (name) => 'zone-' + name.replace(/\./g, '-'),
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      const granted = await server.handle(req, url)
      if (granted) return granted
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = new URLSearchParams(await req.text())
        const [h, c, sig] = (form.get('assertion') ?? '').split('.')
        const ok = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && !!sig && createVerify('RSA-SHA256').update(`${h}.${c}`).verify(publicKey, sig, 'base64url')
        const claims = ok ? JSON.parse(Buffer.from(c!, 'base64url').toString()) : null
        if (!claims || claims.iss !== email || claims.aud !== 'https://oauth2.googleapis.com/token' || !String(claims.scope).includes('clouddns') || claims.exp < Date.now() / 1000) {
          return json(400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' })
        }
        const t = 'ya29.' + nextId()
        tokens.add(t)
        return json(200, { access_token: t, expires_in: 3599, token_type: 'Bearer' })
      }
      const bearer = /^Bearer (.+)$/.exec(req.headers.get('authorization') ?? '')?.[1]
      if (!bearer || !tokens.has(bearer)) return err(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.', 'authError')
      if (req.method === 'GET' && url.pathname === '/v1/projects') {
        // The person's projects: one with the zones, one without.
        return json(200, {
          projects: [
            { projectNumber: '4710', projectId: `${project}-nodns`, lifecycleState: 'ACTIVE', name: 'Cloud DNS API not enabled' },
            { projectNumber: '4711', projectId: `${project}-empty`, lifecycleState: 'ACTIVE', name: 'Empty' },
            { projectNumber: '4712', projectId: project, lifecycleState: 'ACTIVE', name: 'DNS' },
          ],
        })
      }
      const prefix = `/dns/v1/projects/${project}`
      const list = (kind: 'zones' | 'records', key: string, rows: unknown[]) => {
        const page = Number(url.searchParams.get('pageToken') || 1)
        const s = servePage(f, kind, rows, page, Number(url.searchParams.get('maxResults') ?? 1000))
        return json(200, { kind: 'dns#list', [key]: s.items, ...(page < s.last ? { nextPageToken: String(page + 1) } : {}) })
      }
      if (url.pathname.startsWith(`/dns/v1/projects/${project}-nodns/`)) return err(403, 'PERMISSION_DENIED', `Cloud DNS API has not been used in project ${project}-nodns before or it is disabled.`, 'accessNotConfigured')
      if (req.method === 'GET' && url.pathname === `/dns/v1/projects/${project}-empty/managedZones`) return json(200, { kind: 'dns#managedZonesListResponse', managedZones: [] })
      if (req.method === 'GET' && url.pathname === `${prefix}/managedZones`) return list('zones', 'managedZones', f.zones.map((z) => ({ kind: 'dns#managedZone', name: z.id, dnsName: `${z.name}.`, visibility: 'public', nameServers: z.nameServers ?? ['ns-cloud-a1.googledomains.com.'] })))
      const m = new RegExp(`^${prefix}/managedZones/([^/]+)/(rrsets|changes)$`).exec(url.pathname)
      const zone = m && f.zones.find((z) => z.id === m[1])
      if (!m || !zone) return err(404, 'NOT_FOUND', `The 'parameters.managedZone' resource named '${m?.[1] ?? ''}' does not exist.`, 'notFound')
      if (req.method === 'GET' && m[2] === 'rrsets') return list('records', 'rrsets', zone.records)
      if (req.method !== 'POST' || m[2] !== 'changes') return err(405, 'METHOD_NOT_ALLOWED', 'method not allowed', 'methodNotAllowed')
      const b = (await req.json()) as { additions?: GRRset[]; deletions?: GRRset[] }
      const next = [...zone.records]
      for (const d of b.deletions ?? []) {
        const i = next.findIndex((s) => s.name === d.name && s.type === d.type && s.ttl === d.ttl && !s.routingPolicy && [...(s.rrdatas ?? [])].sort().join('\n') === [...(d.rrdatas ?? [])].sort().join('\n'))
        if (i === -1) return err(412, 'FAILED_PRECONDITION', `The resource 'entity.change.deletions[${d.name}][${d.type}]' does not match the current state`, 'conditionNotMet')
        next.splice(i, 1)
      }
      for (const a of b.additions ?? []) {
        if (!a.name?.endsWith(`${zone.name}.`) || !Array.isArray(a.rrdatas) || a.rrdatas.length === 0) return err(400, 'INVALID_ARGUMENT', 'Invalid value for entity.change.additions', 'invalid')
        if (a.type === 'TXT' && a.rrdatas.some((v) => !v.startsWith('"'))) return err(400, 'INVALID_ARGUMENT', 'TXT rrdatas must be quoted strings', 'invalid')
        if (next.some((s) => s.name === a.name && s.type === a.type)) return err(409, 'ALREADY_EXISTS', `The resource 'entity.change.additions[${a.name}][${a.type}]' named '${a.name} (${a.type})' already exists`, 'alreadyExists')
        if ((a.type === 'CNAME' && next.some((s) => s.name === a.name)) || next.some((s) => s.name === a.name && s.type === 'CNAME')) return err(400, 'INVALID_ARGUMENT', 'CNAME cannot coexist with other records', 'cnameResourceRecordSetConflict')
        next.push({ kind: 'dns#resourceRecordSet', name: a.name, type: a.type, ttl: a.ttl ?? 300, rrdatas: a.rrdatas })
      }
      zone.records = next
      return json(200, { kind: 'dns#change', id: nextId(), status: 'done', additions: b.additions ?? [], deletions: b.deletions ?? [] })
    },
  })
  return Object.assign(fake, { wrongKey: keyJson(other), oauth: server.oauth, project })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'google-cloud-dns', reference: 'https://cloud.google.com/dns/docs/reference/rest/v1/changes/create', start: () => startGoogleDnsFake(), base: (f) => f.url, badCredential: (f) => (f as ReturnType<typeof startGoogleDnsFake>).wrongKey, foreignZone: { id: 'zone-not-mine', name: 'not-mine.example' } }
