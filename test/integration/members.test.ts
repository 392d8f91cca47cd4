// Members and roles (the API contract, section 5 rule 4): invitations, acceptance and the owner rules.
import { describe, test, expect, beforeAll } from 'bun:test'
import { provision, sharedPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

let p: TestPortico
let ws: Workspace
let adminKey: string
let viewerKey: string

beforeAll(async () => {
  p = await sharedPortico()
  ws = await provision(p)
  adminKey = (await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'admin' } })).body.key
  viewerKey = (await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'viewer' } })).body.key
})

describe('members', () => {
  test('an invitation returns the member with its invite token; accepting activates it, again is the same', async () => {
    const inv = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'dev@example.com', role: 'member' } })
    expect(inv.status).toBe(201)
    expect(inv.body).toMatchObject({ email: 'dev@example.com', role: 'member', status: 'invited' })
    expect(inv.body.invite_token).toStartWith('inv_')
    expect(inv.body.id).toStartWith('mem_')
    const acc = await p.api('POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })
    expect(acc.status).toBe(200)
    expect(acc.body).toMatchObject({ id: inv.body.id, status: 'active' })
    expect(acc.body.invite_token).toBeUndefined()
    const again = await p.api('POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })
    expect(again.status).toBe(200)
    expect(again.body.accepted_at).toBe(acc.body.accepted_at)
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: 'inv_unknown' } })).status).toBe(404)
    const dup = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'DEV@example.com' } })
    expect(dup.status).toBe(409)
  })

  test('re-inviting a pending member answers 200 with a fresh token; the old one stops working', async () => {
    const a = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'pending@example.com' } })
    const b = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'pending@example.com' } })
    expect(b.status).toBe(200)
    expect(b.body.id).toBe(a.body.id)
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: a.body.invite_token } })).status).toBe(404)
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: b.body.invite_token } })).status).toBe(200)
  })

  test('a viewer cannot invite', async () => {
    const r = await p.api('POST', '/v1/members', { token: viewerKey, body: { email: 'v@example.com' } })
    expect(r.status).toBe(403)
    expect(r.body.code).toBe('forbidden')
  })

  test('only an owner can make an owner', async () => {
    const byAdmin = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'o1@example.com', role: 'owner' } })
    expect(byAdmin.status).toBe(403)
    const m = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'o2@example.com', role: 'admin' } })
    const promote = await p.api('PATCH', `/v1/members/${m.body.id}`, { token: adminKey, body: { role: 'owner' } })
    expect(promote.status).toBe(403)
    const byOwner = await p.api('PATCH', `/v1/members/${m.body.id}`, { token: ws.apiKey, body: { role: 'owner' } })
    expect(byOwner.status).toBe(200)
    expect(byOwner.body.role).toBe('owner')
    const demote = await p.api('PATCH', `/v1/members/${m.body.id}`, { token: adminKey, body: { role: 'member' } })
    expect(demote.status).toBe(403)
    const invOwner = await p.api('POST', '/v1/members', { token: ws.apiKey, body: { email: 'o3@example.com', role: 'owner' } })
    expect(invOwner.status).toBe(201)
  })

  test('the last active owner cannot be demoted', async () => {
    const solo = await provision(p)
    const members = await p.api('GET', '/v1/members', { token: solo.apiKey })
    const owner = members.body.members[0]
    const r = await p.api('PATCH', `/v1/members/${owner.id}`, { token: solo.apiKey, body: { role: 'admin' } })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe('invalid_request')
  })

  test('another tenant\'s member is 404; a bad role is 400', async () => {
    const other = await provision(p)
    const theirs = (await p.api('GET', '/v1/members', { token: other.apiKey })).body.members[0]
    expect((await p.api('PATCH', `/v1/members/${theirs.id}`, { token: ws.apiKey, body: { role: 'viewer' } })).status).toBe(404)
    const bad = await p.api('PATCH', `/v1/members/${theirs.id}`, { token: ws.apiKey, body: { role: 'king' } })
    expect(bad.status).toBe(400)
  })
})

describe('removing a member', () => {
  const invite = async (token: string, email: string, role = 'member') => {
    const inv = await p.api('POST', '/v1/members', { token, body: { email, role } })
    await p.api('POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })
    return inv.body.id as string
  }
  const listed = async (token: string) => (await p.api('GET', '/v1/members', { token })).body.members.map((m: { id: string }) => m.id)

  test('an admin removes a member: gone from the list, audited, and removing again is 404', async () => {
    const id = await invite(adminKey, 'leaver@example.com')
    const r = await p.api('DELETE', `/v1/members/${id}`, { token: adminKey })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id, email: 'leaver@example.com', status: 'active', removed: true, ended_agent_grants: [], api_keys_kept: [] })
    expect(await listed(adminKey)).not.toContain(id)
    const again = await p.api('DELETE', `/v1/members/${id}`, { token: adminKey })
    expect(again.status).toBe(404)
    expect(again.body.code).toBe('not_found')
    const audit = await p.api('GET', '/v1/audit-log', { token: ws.apiKey })
    expect(audit.body.entries).toEqual(expect.arrayContaining([expect.objectContaining({ target_id: id })]))
  })

  test('removing a pending invitation cancels its token', async () => {
    const inv = await p.api('POST', '/v1/members', { token: adminKey, body: { email: 'not-yet@example.com' } })
    expect((await p.api('DELETE', `/v1/members/${inv.body.id}`, { token: adminKey })).status).toBe(200)
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: inv.body.invite_token } })).status).toBe(404)
  })

  test('a viewer cannot remove; an admin cannot remove an owner; another tenant\'s member is 404', async () => {
    const id = await invite(ws.apiKey, 'second-owner@example.com', 'owner')
    expect((await p.api('DELETE', `/v1/members/${id}`, { token: viewerKey })).status).toBe(403)
    const byAdmin = await p.api('DELETE', `/v1/members/${id}`, { token: adminKey })
    expect(byAdmin.status).toBe(403)
    expect(byAdmin.body.code).toBe('forbidden')
    expect(await listed(ws.apiKey)).toContain(id)
    const other = await provision(p)
    const theirs = (await p.api('GET', '/v1/members', { token: other.apiKey })).body.members[0]
    expect((await p.api('DELETE', `/v1/members/${theirs.id}`, { token: ws.apiKey })).status).toBe(404)
    expect(await listed(other.apiKey)).toContain(theirs.id)
    expect((await p.api('DELETE', `/v1/members/${id}`, { token: ws.apiKey })).status).toBe(200)
  })

  test('the last active owner cannot be removed; with a second owner it can', async () => {
    const solo = await provision(p)
    const owner = (await p.api('GET', '/v1/members', { token: solo.apiKey })).body.members[0]
    const r = await p.api('DELETE', `/v1/members/${owner.id}`, { token: solo.apiKey })
    expect(r.status).toBe(409)
    expect(r.body.code).toBe('conflict')
    expect(await listed(solo.apiKey)).toContain(owner.id)
    await invite(solo.apiKey, 'heir@example.com', 'owner')
    const ok = await p.api('DELETE', `/v1/members/${owner.id}`, { token: solo.apiKey })
    expect(ok.status).toBe(200)
    // The key that owner made belongs to the application: it is listed as kept, and it still works.
    expect(ok.body.api_keys_kept).toEqual([expect.objectContaining({ application_id: solo.appId })])
    expect((await p.api('GET', '/v1/members', { token: solo.apiKey })).status).toBe(200)
  })
})
