// What the person meant to allow bounds the agent (issue 32), checked from the agent's side against real
// PowerDNS: with the default scopes an agent's connections carry the application's planned records and
// nothing else; records of its own need `domains:records`, which the consent page describes in plain
// words; a write replacing records already in the customer's zone waits for the person's yes, whatever
// the scopes; API keys keep what the contract gives them. Look-alike client names are refused at
// registration while real application names register.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { livePortico, agentToken, ownerEmail, personAnswers, registerClient, authorize, pkce, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import honest from '../fixtures/honest-app-names.json'

const EDGE = 'edge.portico-test.test'
const EDGE_IPS = ['203.0.114.10', '203.0.114.11']
let pdns: Pdns
let p: LivePortico
let ws: Workspace
let seq = 0
const fresh = () => `intent${Date.now().toString(36)}${++seq}.test`

beforeAll(async () => {
  pdns = await startPdns()
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: EDGE, EDGE_APEX_IPV4: EDGE_IPS.join(','), WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
})
afterAll(async () => {
  await p.stop()
})

async function mcpCall(token: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${p.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })
  const body = (await res.json()) as { result?: { isError?: boolean; content: { text: string }[]; structuredContent?: any }; error?: unknown }
  const parsed = body.result ? JSON.parse(body.result.content[0]!.text) : null
  return { status: res.status, challenge: res.headers.get('www-authenticate'), result: body.result, body: parsed, error: body.error }
}

const MX_RECORDS = [{ type: 'MX', host: '@', value: 'mail.attacker.example', priority: 10 }]

describe('records an agent may write', () => {
  test('with the default scopes: planned records only; records of its own are a step-up to domains:records, on MCP and /v1', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:write', 'Default agent')
    const custom = await mcpCall(tokens.access_token, 'connections_create', { domain: `shop.${zone}`, application_id: ws.appId, records: MX_RECORDS })
    expect(custom.status).toBe(403)
    expect(custom.challenge).toContain('error="insufficient_scope"')
    expect(custom.challenge).toContain('domains:records')
    const rest = await fetch(`${p.url}/v1/connections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain: `shop.${zone}`, application_id: ws.appId, records: MX_RECORDS }),
    })
    expect(rest.status).toBe(403)
    expect(((await rest.json()) as { code: string }).code).toBe('insufficient_scope')
    // Without records: the application's planned ones. The workspace has one application, so it may be left out.
    const planned = await mcpCall(tokens.access_token, 'connections_create', { domain: `shop.${zone}` })
    expect(planned.result?.isError).toBeFalsy()
    expect(planned.body).toMatchObject({ records_source: 'planned', records: [{ type: 'CNAME', host: 'shop', value: EDGE }] })
  })

  test('with domains:records, which the consent page names in plain words, an agent may give its own set', async () => {
    const reg = await registerClient(p.url, { client_name: 'Records agent', redirect_uris: ['http://127.0.0.1:9/cb'] })
    const auth = await authorize(p.url, { client_id: reg.body.client_id, redirect_uri: 'http://127.0.0.1:9/cb', response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:write domains:records' })
    const page = await (await fetch(p.url + auth.consentPath)).text()
    expect(page).toContain('mail (MX) records')
    expect(page).toContain('nameserver (NS) records')
    const zone = fresh()
    await pdns.createZone(zone)
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:write domains:records', 'Records agent')
    const out = await mcpCall(tokens.access_token, 'connections_create', { domain: zone, application_id: ws.appId, records: [{ type: 'TXT', host: '@', value: 'agent-verification=1' }] })
    expect(out.result?.isError).toBeFalsy()
    expect(out.body.records_source).toBe('custom')
  })

  test('API keys keep what the contract gives them: a custom set, applied without anyone asked', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(zone, 'MX', ['10 mx.before.example.'], 3600)
    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: zone, records: [{ type: 'MX', host: '@', value: 'mx.after.example', priority: 10 }] } })
    expect(c.status).toBe(201)
    const applied = await p.api('POST', `/v1/connections/${c.body.id}/apply`, { token: ws.apiKey, body: { credential: pdns.apiKey, api_url: pdns.apiUrl } })
    expect(applied.status).toBe(200)
  })
})

describe('a write replacing records in the customer\'s zone is shown to the person first, whatever the scope', () => {
  test('an agent applying at an apex with addresses and mail: nothing is written until the person confirms the replaced sets; then the retry writes, mail untouched', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    await pdns.setRecords(zone, 'A', ['198.51.100.7'], 600)
    await pdns.setRecords(zone, 'MX', ['10 mx.customer.example.'], 3600)
    const account = await p.api('POST', '/v1/provider-accounts', { token: ws.apiKey, body: { provider: 'powerdns', credential: pdns.apiKey, api_url: pdns.apiUrl, label: 'zone host' } })
    expect(account.status).toBe(201)
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:write domains:records', 'Applying agent')
    const created = await mcpCall(tokens.access_token, 'connections_create', { domain: zone, application_id: ws.appId })
    const id = created.body.id as string
    const apply = () => mcpCall(tokens.access_token, 'connections_apply', { id, provider_account_id: account.body.id })
    const asked = await apply()
    expect(asked.result?.isError).toBe(true)
    expect(asked.body.code).toBe('confirmation_required')
    expect(asked.body.details.action).toBe('apply')
    const a = async () => (await pdns.listRecords(zone)).filter((r) => r.name === `${zone}.` && r.type === 'A').map((r) => r.content).sort()
    expect(await a()).toEqual(['198.51.100.7'])
    // The person sees what would be replaced, by name.
    const shown = await (await fetch(asked.body.details.confirm_url)).text()
    expect(shown).toContain('198.51.100.7')
    await personAnswers(asked.body.details.confirm_url, await ownerEmail(p.url, ws.apiKey))
    const done = await apply()
    expect(done.result?.isError).toBeFalsy()
    expect(await a()).toEqual(EDGE_IPS)
    const mx = (await pdns.listRecords(zone)).filter((r) => r.type === 'MX').map((r) => r.content)
    expect(mx).toEqual(['10 mx.customer.example.'])
    // Applying again replaces nothing of the customer's: no question.
    expect((await apply()).result?.isError).toBeFalsy()
  })

  test('a write that only adds records goes ahead without asking', async () => {
    const zone = fresh()
    await pdns.createZone(zone)
    const account = await p.api('POST', '/v1/provider-accounts', { token: ws.apiKey, body: { provider: 'powerdns', credential: pdns.apiKey, api_url: pdns.apiUrl } })
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:write', 'Adding agent')
    const created = await mcpCall(tokens.access_token, 'connections_create', { domain: `shop.${zone}` })
    const out = await mcpCall(tokens.access_token, 'connections_apply', { id: created.body.id, provider_account_id: account.body.id })
    expect(out.result?.isError).toBeFalsy()
    expect(out.body.changed).toBe(true)
  })
})

describe('look-alike names at registration, with an honest control set', () => {
  test('look-alikes are refused; every honest name registers through the real endpoint', async () => {
    for (const name of ['OpenAl', 'Anthrop1c', 'Geminl', 'C\u3164laude', 'Cla\u200Bude', 'Сlaude', 'Cluade', 'Perplexlty']) {
      const r = await registerClient(p.url, { client_name: name, redirect_uris: ['https://helper.example/cb'] })
      expect({ name, status: r.status, error: r.body.error }).toEqual({ name, status: 400, error: 'invalid_client_metadata' })
    }
    let registered = 0
    for (const { name, redirect_uri } of honest.names) {
      const r = await registerClient(p.url, { client_name: name, redirect_uris: [redirect_uri] })
      if (r.status === 201) registered++
      else console.log('refused honest name', name, r.body)
    }
    console.log(`honest application names registered: ${registered} of ${honest.names.length}`)
    expect(registered).toBe(honest.names.length)
  }, 120_000)
})
