// The 60 published templates (test/fixtures/domain-connect/templates) through the whole
// protocol: Portico loads them from DOMAIN_CONNECT_TEMPLATES_DIR, builds each signed apply URL, the
// loopback DNS Provider verifies the signature with the key it fetches from DNS at
// `_dck1.<syncPubKeyDomain>`, applies the template to a PowerDNS zone that already holds records, and
// every rendered record then answers over DNS. Templates that block the synchronous flow go through
// the provider's OAuth consent and API, as a Service Provider's server would.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { startDcProvider, type DcProvider } from '../harness/dc-provider.ts'
import { compatibleGroups, fillVariables } from '../harness/dc-variables.ts'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'
import { loadTemplatesFromDir, type Template } from '../../src/domain/domain-connect/template.ts'
import { applyTemplate, type DesiredRecord } from '../../src/domain/domain-connect/apply.ts'

const PUBLIC_DIR = join(import.meta.dir, '../fixtures/domain-connect/templates')
const SECRET = 'service-provider-secret'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let provider: DcProvider
let templates: Template[]
let seq = 0
const fresh = () => `pub${Date.now().toString(36)}${++seq}.test`

const SEED: [string, string, string[]][] = [
  ['@', 'A', ['192.0.2.10']],
  ['www', 'A', ['192.0.2.10']],
  ['@', 'MX', ['10 mx.old-mail.test.']],
  ['@', 'TXT', ['"v=spf1 include:_spf.old-mail.test ~all"', '"site-verification=abc123"']],
  ['@', 'CAA', ['0 issue "letsencrypt.org"']],
]

beforeAll(async () => {
  pdns = await startPdns()
  templates = loadTemplatesFromDir(PUBLIC_DIR).templates
  const clients = Object.fromEntries(templates.map((t) => [t.providerId, SECRET]))
  provider = await startDcProvider({ pdns, templatesDir: PUBLIC_DIR, async: true, clients })
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, DOMAIN_CONNECT_TEMPLATES_DIR: PUBLIC_DIR, DATA_DIR: mkdtempSync(join(tmpdir(), 'portico-dc-data-')) })
  ws = await provision(p)
  // Stand-ins for the Service Providers' key publication: Portico's key at each template's key host.
  const cat = await p.api('GET', '/v1/templates')
  expect(cat.body.count).toBe(60)
  const txt = (cat.body.signing.txt as string[]).map((t) => `"${t}"`)
  const keyDomains = [...new Set(templates.flatMap((t) => (t.syncPubKeyDomain ? [t.syncPubKeyDomain.toLowerCase()] : [])))].sort((a, b) => a.length - b.length)
  for (const d of keyDomains) {
    try {
      await pdns.createZone(d)
    } catch {
      // served already (a parent zone, or an earlier file of this process)
    }
    await pdns.setRecords(`_dck1.${d}`, 'TXT', txt)
  }
})

afterAll(async () => {
  await provider?.stop()
  await p?.close()
})

async function seed(zone: string) {
  for (const [host, type, contents] of SEED) await pdns.setRecords(host === '@' ? zone : `${host}.${zone}`, type, contents, 3600)
}

async function applyAsync(t: Template, zone: string, host: string, params: Record<string, string>, groupIds?: string[]) {
  const redirect = 'https://sp.example/callback'
  const consent = new URL(`${provider.url}/v2/domainTemplates/providers/${encodeURIComponent(t.providerId)}`)
  for (const [k, v] of Object.entries({ domain: zone, host, client_id: t.providerId, redirect_uri: redirect, response_type: 'code', scope: t.serviceId, state: 'x' })) consent.searchParams.set(k, v)
  const c = await fetch(consent, { redirect: 'manual' })
  const code = new URL(c.headers.get('location')!).searchParams.get('code')!
  const tok = await fetch(`${provider.url}/v2/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, grant_type: 'authorization_code', client_id: t.providerId, client_secret: SECRET, redirect_uri: redirect }),
  })
  const { access_token } = (await tok.json()) as { access_token: string }
  // The apply parameters as a JSON body this time (the draft allows query string or body).
  return fetch(`${provider.url}/v2/domainTemplates/providers/${encodeURIComponent(t.providerId)}/services/${encodeURIComponent(t.serviceId)}/apply`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ domain: zone, host, ...params, ...(groupIds ? { groupId: groupIds.join(',') } : {}) }),
  })
}

async function answers(zone: string, r: DesiredRecord): Promise<boolean> {
  const dns = p.services.dns
  const values = async (type: 'A' | 'AAAA' | 'CNAME' | 'TXT' | 'MX' | 'CAA') => {
    const l = await dns.lookup(r.name, type)
    return l.status === 'ok' ? l.values : []
  }
  switch (r.type) {
    case 'A':
    case 'AAAA':
    case 'CNAME':
    case 'TXT':
    case 'CAA':
      return (await values(r.type)).includes(r.data)
    case 'MX':
      return (await values('MX')).includes(`${r.priority} ${r.data}`)
    case 'SPFM': {
      const spf = (await values('TXT')).find((v) => v.startsWith('v=spf1 '))
      return spf !== undefined && r.data.split(' ').every((term) => spf.split(' ').includes(term))
    }
    case 'REDIR301':
    case 'REDIR302': {
      const res = await fetch(provider.url, { headers: { host: r.name }, redirect: 'manual' })
      return res.status === (r.type === 'REDIR301' ? 301 : 302) && res.headers.get('location') === r.data
    }
    default: {
      // NS (a delegation answers with a referral), SRV and APEXCNAME (ALIAS): read the zone itself.
      const type = r.type === 'APEXCNAME' ? 'ALIAS' : r.type
      const rows = (await pdns.listRecords(zone)).filter((x) => x.type === type && x.name === `${r.name}.`).map((x) => x.content.replace(/\.$/, ''))
      const want = r.type === 'SRV' ? `${r.priority} ${r.data}` : r.data
      return rows.includes(want)
    }
  }
}

describe('the 60 published templates through Portico, the loopback provider and PowerDNS', () => {
  const files = readdirSync(PUBLIC_DIR).filter((f) => f.endsWith('.json')).sort()

  test('the sample is all there', () => {
    expect(files.length).toBe(60)
    expect(templates.length).toBe(60)
  })

  test('a serviceId several providers publish needs provider_id', async () => {
    const shared = templates.filter((t) => t.serviceId === 'website')
    expect(shared.length).toBeGreaterThan(1)
    const r = await p.api('POST', '/v1/templates/website/apply-url', { token: ws.apiKey, body: { domain: 'example.com', provider_base: provider.url } })
    expect(r.status).toBe(400)
    expect(r.body.details[0].field).toBe('provider_id')
    for (const t of shared) expect(r.body.details[0].message).toContain(t.providerId)
  })

  for (const file of files) {
    test(file, async () => {
      const t = templates.find((x) => x.fileName === file)!
      const zone = fresh()
      await pdns.createZone(zone)
      await seed(zone)
      const host = t.hostRequired ? 'shop' : ''
      const params = fillVariables(t)
      const groupIds = compatibleGroups(t, zone, host, params)
      let res: Response
      if (t.syncBlock) {
        res = await applyAsync(t, zone, host, params, groupIds)
        expect(res.status).toBe(202)
      } else {
        const url = await p.api('POST', `/v1/templates/${encodeURIComponent(t.serviceId)}/apply-url`, {
          token: ws.apiKey,
          body: { domain: zone, host, provider_base: provider.url, provider_id: t.providerId, params, ...(groupIds ? { group_ids: groupIds } : {}) },
        })
        expect(url.status).toBe(200)
        expect(url.body.signed).toBe(t.syncPubKeyDomain !== undefined)
        res = await fetch(url.body.apply_url, { redirect: 'manual' })
        expect(res.status, await res.clone().text()).toBe(200)
      }
      expect(provider.applied.at(-1)).toMatchObject({ serviceId: t.serviceId, domain: zone, host })
      const rendered = applyTemplate({ template: t, domain: zone, host, params, groupIds, zone: [] })
      if (!rendered.ok) throw new Error(rendered.error)
      for (const r of rendered.records) expect(await answers(zone, r), `${r.type} ${r.name} ${r.data}`).toBe(true)
      // The pre-existing CAA records are never a conflict.
      const caa = await p.services.dns.lookup(zone, 'CAA')
      expect(caa.status === 'ok' ? caa.values : []).toContain('0 issue "letsencrypt.org"')
    })
  }
})
