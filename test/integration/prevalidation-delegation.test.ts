// The `_acme-challenge` delegation is one per DNS name (issue 50, what a tester broke): the apex and
// the wildcard of one name share it in a workspace, and disconnecting one does not ask the customer
// to remove what the other still needs; another workspace is refused; a reconnect asks for the same
// CNAME (placed once); asking again with another `validation` is a 409, not the old mode; a process
// restarted without DCV settings says why a connection in `issuing` waits.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { provision, type Workspace } from '../harness/portico.ts'
import { startServed, type Served } from '../harness/served.ts'
import { issueBeforeCutoverDue } from '../../src/domain/prevalidation.ts'

let s: Served
let ws: Workspace
let other: Workspace
const tag = Date.now().toString(36)
const zone = `share${tag}.test`
const dcvZone = `dcvs${tag}.test`

beforeAll(async () => {
  // The DCV zone's server is never written here (no certificate is ordered): its settings are enough.
  s = await startServed(zone, { DCV_ZONE: dcvZone, DCV_PDNS_API_URL: 'http://127.0.0.1:9/api/v1/servers/localhost', DCV_PDNS_API_KEY: 'unused' })
  ws = await provision(s.p)
  other = await provision(s.p)
})

afterAll(async () => {
  await s?.stop()
})

const fqdn = (host: string) => `${host}.${zone}`
type Rec = { type: string; host: string; value: string; purpose?: string }
const create = (key: string, body: Record<string, unknown>) => s.p.api('POST', '/v1/connections', { token: key, body })
const delegation = (c: { records: Rec[] }) => c.records.find((r) => r.purpose === 'dcv_delegation')!

describe('one _acme-challenge delegation per DNS name', () => {
  test('the apex and the wildcard of one name share it; disconnecting one keeps what the other needs', async () => {
    const apex = await create(ws.apiKey, { domain: fqdn('wild'), validation: 'before_cutover' })
    const wild = await create(ws.apiKey, { domain: `*.${fqdn('wild')}` })
    expect(apex.status).toBe(201)
    expect(wild.status).toBe(201)
    expect(delegation(wild.body)).toEqual(delegation(apex.body))
    expect(delegation(apex.body).host).toBe('_acme-challenge.wild')

    const out = (await s.p.api('POST', `/v1/connections/${wild.body.id}:disconnect`, { token: ws.apiKey, body: {} })).body
    const cname = `_acme-challenge.${fqdn('wild')}`
    expect(out.records.manual_steps.join('\n')).not.toContain(cname)
    const kept = out.records.left_in_place.find((r: { name: string }) => r.name === cname)
    expect(kept.note).toContain(`still needed by the connection of ${fqdn('wild')}`)
    // The ownership TXT is its own and still to be removed.
    expect(out.records.manual_steps.some((m: string) => m.includes('TXT'))).toBe(true)

    // The apex alone: its disconnect asks for the CNAME's removal.
    const last = (await s.p.api('POST', `/v1/connections/${apex.body.id}:disconnect`, { token: ws.apiKey, body: {} })).body
    expect(last.records.manual_steps.join('\n')).toContain(cname)
  })

  test('another workspace asking for the same _acme-challenge name is refused, with the reason', async () => {
    const mine = await create(ws.apiKey, { domain: `*.${fqdn('taken')}` })
    expect(mine.status).toBe(201)
    const theirs = await create(other.apiKey, { domain: fqdn('taken'), validation: 'before_cutover' })
    expect(theirs.status).toBe(409)
    expect(theirs.body).toMatchObject({ code: 'conflict', details: { reason: 'dcv_delegation_taken' } })
    expect(theirs.body.title).toContain(`_acme-challenge.${fqdn('taken')}`)
    // The usual path needs no delegation: nothing stands in its way.
    expect((await create(other.apiKey, { domain: fqdn('taken') })).status).toBe(201)
  })

  test('a disconnect and reconnect of the same host asks for the same CNAME', async () => {
    const first = await create(ws.apiKey, { domain: fqdn('again'), validation: 'before_cutover' })
    await s.p.api('POST', `/v1/connections/${first.body.id}:disconnect`, { token: ws.apiKey, body: {} })
    const second = await create(ws.apiKey, { domain: fqdn('again'), validation: 'before_cutover' })
    expect(second.status).toBe(201)
    expect(second.body.id).not.toBe(first.body.id)
    expect(delegation(second.body)).toEqual(delegation(first.body))
    // Another host has a label of its own.
    const elsewhere = await create(ws.apiKey, { domain: fqdn('elsewhere'), validation: 'before_cutover' })
    expect(delegation(elsewhere.body).value).not.toBe(delegation(first.body).value)
  })

  test('asking again with another validation is a 409 validation_mismatch, not the old mode', async () => {
    const made = await create(ws.apiKey, { domain: fqdn('mode') })
    expect(made.body.validation ?? 'http').toBe('http')
    const again = await create(ws.apiKey, { domain: fqdn('mode'), validation: 'before_cutover' })
    expect(again.status).toBe(409)
    expect(again.body).toMatchObject({ code: 'conflict', details: { reason: 'validation_mismatch', connection_id: made.body.id } })
    // The same mode, or none said: the open connection, as before.
    expect((await create(ws.apiKey, { domain: fqdn('mode'), validation: 'http' })).status).toBe(200)
    expect((await create(ws.apiKey, { domain: fqdn('mode') })).status).toBe(200)
  })
  test('a connection in issuing on a process restarted without DCV settings says dcv_not_configured', async () => {
    const c = (await create(ws.apiKey, { domain: fqdn('restart'), validation: 'before_cutover' })).body
    for (const r of c.records as Rec[]) await s.pdns.setRecords(fqdn(r.host), r.type, [r.type === 'CNAME' ? `${r.value}.` : `"${r.value}"`])
    expect((await s.p.api('POST', `/v1/connections/${c.id}:recheck`, { token: ws.apiKey })).body.validation_stage).toBe('issuing')
    // The restarted process: the same database, no DCV_* settings.
    await issueBeforeCutoverDue({ db: s.p.db, clock: s.p.clock, config: s.p.config, edge: s.p.services.edge!, issuer: s.p.services.issuer, dcv: undefined })
    const waiting = (await s.p.api('GET', `/v1/connections/${c.id}`, { token: ws.apiKey })).body
    expect(waiting.validation_stage).toBe('issuing')
    expect(waiting.validation_detail).toContain('dcv_not_configured')
    expect(waiting.validation_detail).toContain('DCV_ZONE')
    // Files share the database: no other file's edge sweep is to order it.
    await s.p.api('POST', `/v1/connections/${c.id}:disconnect`, { token: ws.apiKey, body: {} })
  })
  test('domains:check of a wildcard answers the pre-validation steps, and refuses validation http as create does', async () => {
    const check = (body: Record<string, unknown>) => s.p.api('POST', '/v1/domains:check', { token: ws.apiKey, body })
    const r = await check({ domain: `*.${fqdn('checked')}` })
    expect(r.status).toBe(200)
    expect(r.body.validation).toMatchObject({ mode: 'before_cutover', available: true })
    expect(r.body.validation.steps.map((x: { step: string }) => x.step)).toEqual(['prove', 'route'])
    expect(r.body.validation.steps[0].records.map((x: Rec) => `${x.type} ${x.host}`)).toEqual(['TXT _portico-challenge.checked', 'CNAME _acme-challenge.checked'])
    const http = await check({ domain: `*.${fqdn('checked')}`, validation: 'http' })
    expect(http.status).toBe(400)
    expect(http.body.code).toBe('invalid_request')
    expect(JSON.stringify(http.body.details)).toContain('wildcard_needs_dns_01')
    // A named host asked without validation: the usual path, no steps.
    expect((await check({ domain: fqdn('checked') })).body.validation).toBeUndefined()
  })
})
