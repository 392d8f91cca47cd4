// Agent grants under attack (issue 21), each test written as the attack it stops: racing refreshes,
// a replayed refresh token, RFC 7009 revocation of either token kind, a DPoP-bound token without (or
// with a replayed) proof, and a grant outliving the person or key that approved it.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { createHash, randomUUID } from 'node:crypto'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose'
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { livePortico, agentToken, authorize, clientToken, pkce, signInOnConsent, token, ownerEmail, personAnswers, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
beforeAll(async () => {
  p = await livePortico()
  ws = await provision(p)
})
afterAll(async () => {
  await p.stop()
})

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' }

/** An MCP call with an Authorization header as given (scheme included) and any extra headers. */
async function mcp(authorization: string, extra: Record<string, string> = {}, body: unknown = LIST): Promise<number> {
  const res = await fetch(`${p.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, authorization, ...extra },
    body: JSON.stringify(body),
  })
  await res.arrayBuffer()
  return res.status
}

async function grantOf(clientId: string, apiKey = ws.apiKey) {
  const list = await p.api('GET', '/v1/agent-grants', { token: apiKey })
  expect(list.status).toBe(200)
  return list.body.grants.find((g: { client_id: string }) => g.client_id === clientId)
}

const refresh = (clientId: string, refreshToken: string, headers: Record<string, string> = {}) =>
  token(p.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }, headers)

describe('refresh rotation: one chain, a reuse grace that repeats the answer', () => {
  test('ten parallel refreshes of one token (real HTTP requests) get one successor: one live chain', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Racing agent')
    const answers = await Promise.all(Array.from({ length: 10 }, () => refresh(clientId, tokens.refresh_token!)))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    expect(new Set(answers.map((a) => a.body.refresh_token)).size).toBe(1)
    expect(new Set(answers.map((a) => a.body.access_token)).size).toBe(1)
    const grant = await grantOf(clientId)
    // One unused refresh token is left in the grant: the successor.
    const live = await p.db`select id from oauth_store where model = 'RefreshToken' and grant_id = ${grant.id} and consumed_at is null`
    expect(live.map((r: { id: string }) => r.id)).toEqual([answers[0]!.body.refresh_token])
    expect(await mcp(`Bearer ${answers[0]!.body.access_token}`)).toBe(200)
    expect((await refresh(clientId, answers[0]!.body.refresh_token)).status).toBe(200)
    expect((await grantOf(clientId)).status).toBe('active')
  })

  test('a client retrying after a lost response gets a working token again', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Retrying agent')
    const lost = await refresh(clientId, tokens.refresh_token!)
    expect(lost.status).toBe(200)
    const retry = await refresh(clientId, tokens.refresh_token!)
    expect(retry.status).toBe(200)
    // The same successor, not a second chain.
    expect(retry.body.refresh_token).toBe(lost.body.refresh_token)
    expect(await mcp(`Bearer ${retry.body.access_token}`)).toBe(200)
  })

  test('a replay after the successor was used revokes the whole grant: the live access token fails next, the list says why', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Stolen agent')
    const first = await refresh(clientId, tokens.refresh_token!)
    const second = await refresh(clientId, first.body.refresh_token)
    expect(second.status).toBe(200)
    expect(await mcp(`Bearer ${second.body.access_token}`)).toBe(200)
    // The thief replays the first refresh token: its grace ended when its successor was used.
    const replay = await refresh(clientId, tokens.refresh_token!)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe('invalid_grant')
    expect(await mcp(`Bearer ${second.body.access_token}`)).toBe(401)
    const rest = await fetch(`${p.url}/v1/applications`, { headers: { authorization: `Bearer ${second.body.access_token}` } })
    expect(rest.status).toBe(401)
    expect((await refresh(clientId, second.body.refresh_token)).status).toBe(400)
    expect(await grantOf(clientId)).toMatchObject({ status: 'revoked', revoked_at: expect.any(String), revoked_reason: 'token_reuse' })
  })

  test('a second party replaying inside the grace gets the same successor, and once it was used any replay ends the grant', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Copied agent')
    const client = await refresh(clientId, tokens.refresh_token!)
    const thief = await refresh(clientId, tokens.refresh_token!)
    expect(thief.status).toBe(200)
    expect(thief.body.refresh_token).toBe(client.body.refresh_token)
    // The client moves on with the successor; the copied older token is now a sign of theft.
    const next = await refresh(clientId, client.body.refresh_token)
    expect(next.status).toBe(200)
    const replay = await refresh(clientId, tokens.refresh_token!)
    expect(replay.status).toBe(400)
    expect(await mcp(`Bearer ${next.body.access_token}`)).toBe(401)
    expect((await refresh(clientId, next.body.refresh_token)).status).toBe(400)
    expect((await grantOf(clientId)).revoked_reason).toBe('token_reuse')
  })

  test('a repeat of a DPoP-bound refresh inside the grace needs a proof by the same key', async () => {
    const key = await dpopKey()
    const proof = async () => ({ dpop: await key.proof('POST', `${p.url}/oauth/token`) })
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Bound racer', proof)
    const first = await refresh(clientId, tokens.refresh_token!, await proof())
    expect(first.status).toBe(200)
    const thief = await dpopKey()
    expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(400)
    expect((await refresh(clientId, tokens.refresh_token!, { dpop: await thief.proof('POST', `${p.url}/oauth/token`) })).status).toBe(400)
    const again = await refresh(clientId, tokens.refresh_token!, await proof())
    expect(again.body.refresh_token).toBe(first.body.refresh_token)
  })

  test('a replay after the grace period revokes the grant even when the successor was never used', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Late replay agent')
    const next = await refresh(clientId, tokens.refresh_token!)
    expect(next.status).toBe(200)
    p.clock.advance(61_000)
    try {
      expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(400)
    } finally {
      p.clock.advance(-61_000)
    }
    expect(await mcp(`Bearer ${next.body.access_token}`)).toBe(401)
    expect((await grantOf(clientId)).revoked_reason).toBe('token_reuse')
  })
})

describe('RFC 7009 revocation agrees with the grant list', () => {
  const revoke = (clientId: string, t: string) =>
    fetch(`${p.url}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: t, client_id: clientId }).toString(),
    })

  test('revoking the refresh token stops the access token too', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Refresh revoker')
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    expect((await revoke(clientId, tokens.refresh_token!)).status).toBe(200)
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(401)
    expect(await grantOf(clientId)).toMatchObject({ status: 'revoked', revoked_reason: 'revoked_by_client' })
  })

  test('revoking the access token is supported and ends the refresh token as well', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Access revoker')
    const res = await revoke(clientId, tokens.access_token)
    expect(res.status).toBe(200)
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(401)
    expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(400)
    expect((await grantOf(clientId)).revoked_reason).toBe('revoked_by_client')
  })

  test('another client cannot revoke a token it was not issued, and unknown tokens answer 200', async () => {
    const victim = await agentToken(p.url, ws.apiKey, 'domains:read', 'Victim agent')
    const other = await agentToken(p.url, ws.apiKey, 'domains:read', 'Other agent')
    expect((await revoke(other.clientId, victim.tokens.access_token)).status).toBe(400)
    expect(await mcp(`Bearer ${victim.tokens.access_token}`)).toBe(200)
    expect((await revoke(other.clientId, 'not-a-token')).status).toBe(200)
    expect((await revoke('agc_unknown', victim.tokens.access_token)).status).toBe(401)
  })

  test('the list shows last use and expiry, and DELETE records the workspace as the reason', async () => {
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Listed agent')
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    await Bun.sleep(50) // the last-use write is off the request path
    const g = await grantOf(clientId)
    expect(g.last_used_at).toBeString()
    expect(new Date(g.expires_at).getTime() - new Date(g.created_at).getTime()).toBe(30 * 24 * 3600 * 1000)
    const del = await p.api('DELETE', `/v1/agent-grants/${g.id}`, { token: ws.apiKey })
    expect(del.body).toMatchObject({ status: 'revoked', revoked_reason: 'revoked_by_workspace' })
    expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(400)
  })
})

describe('one grant per person and client (issue 42)', () => {
  const redirectUri = 'http://127.0.0.1:9/callback'
  const grantsOf = async (clientId: string) =>
    ((await p.api('GET', '/v1/agent-grants', { token: ws.apiKey })).body.grants as { id: string; client_id: string; status: string; scopes: string[] }[]).filter((g) => g.client_id === clientId)
  const tool = (accessToken: string, name: string, args: Record<string, unknown> = {}) => mcp(`Bearer ${accessToken}`, {}, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } })

  test('a step-up widens the grant the person gave the client: one row, and revoking it ends the first token and its refresh token too', async () => {
    const first = await agentToken(p.url, ws.apiKey, 'domains:read domains:write', 'Stepping agent')
    // The agent meets a tool it lacks the scope for, and goes back to its person for it.
    expect(await tool(first.tokens.access_token, 'connections_disconnect', { id: 'con_none' })).toBe(403)
    const second = await clientToken(p.url, ws.apiKey, first.clientId, redirectUri, 'domains:disconnect')
    const rows = await grantsOf(first.clientId)
    expect(rows.map((g) => ({ status: g.status, scopes: g.scopes }))).toEqual([{ status: 'active', scopes: ['domains:read', 'domains:write', 'domains:disconnect'] }])
    // Both tokens work, each with what it was issued for.
    expect(await mcp(`Bearer ${first.tokens.access_token}`)).toBe(200)
    expect(await mcp(`Bearer ${second.access_token}`)).toBe(200)
    // "Your agents", signed in as the person, shows the client once.
    const auth = await authorize(p.url, { client_id: first.clientId, redirect_uri: redirectUri, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's', resource: `${p.url}/mcp` })
    await signInOnConsent(p.url, auth, await ownerEmail(p.url, ws.apiKey))
    const page = await fetch(`${p.url}/oauth/agents`, { headers: { cookie: auth.jar.header() } }).then((r) => r.text())
    const active = page.slice(page.indexOf('id="active"'), page.indexOf('id="ended"') > 0 ? page.indexOf('id="ended"') : undefined)
    expect(active.match(/<h2>Stepping agent<\/h2>/g)).toHaveLength(1)
    // Revoking the one grant ends every token the client holds from the person.
    const del = await p.api('DELETE', `/v1/agent-grants/${rows[0]!.id}`, { token: ws.apiKey })
    expect(del.status).toBe(200)
    expect(await mcp(`Bearer ${first.tokens.access_token}`)).toBe(401)
    expect(await mcp(`Bearer ${second.access_token}`)).toBe(401)
    expect((await refresh(first.clientId, first.tokens.refresh_token!)).status).toBe(400)
    expect((await refresh(first.clientId, second.refresh_token!)).status).toBe(400)
  })

  test('approving the same client again, even with fewer scopes, keeps one grant; an older duplicate grant still ends with the one revoked', async () => {
    const first = await agentToken(p.url, ws.apiKey, 'domains:read domains:write', 'Returning agent')
    const again = await clientToken(p.url, ws.apiKey, first.clientId, redirectUri, 'domains:read')
    expect((await grantsOf(first.clientId)).map((g) => g.scopes)).toEqual([['domains:read', 'domains:write']])
    // A duplicate left by the old behaviour (a second live grant of the same person and client), made by hand:
    const [g] = (await p.db`select * from agent_grants where client_id = ${first.clientId}`) as { id: string; tenant_id: string; account_id: string; approved_member_id: string }[]
    await p.db`drop index if exists agent_grants_one_live`
    try {
      await p.db`insert into agent_grants (id, tenant_id, client_id, account_id, approved_member_id, scopes, created_at) values ('grant_old_dup', ${g!.tenant_id}, ${first.clientId}, ${g!.account_id}, ${g!.approved_member_id}, '{domains:read}', now() - interval '1 day')`
      // RFC 7009 revocation by the client of the newer grant's token ends the duplicate as well.
      await fetch(`${p.url}/oauth/token/revocation`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: again.access_token, client_id: first.clientId }).toString() })
      const states = (await p.db`select id, revoked_reason from agent_grants where client_id = ${first.clientId} order by id`) as { id: string; revoked_reason: string | null }[]
      expect(states.every((s) => s.revoked_reason === 'revoked_by_client')).toBe(true)
      expect(states).toHaveLength(2)
    } finally {
      await p.db`delete from agent_grants where id = 'grant_old_dup'`
      await p.db`create unique index if not exists agent_grants_one_live on agent_grants (tenant_id, client_id, account_id) where revoked_at is null`
    }
    expect(await mcp(`Bearer ${first.tokens.access_token}`)).toBe(401)
  })
})

/** A DPoP key pair and a proof maker (RFC 9449 section 4.2). */
async function dpopKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  const jwk = await exportJWK(publicKey)
  const proof = (htm: string, htu: string, accessToken?: string, key: CryptoKey = privateKey) =>
    new SignJWT({ htm, htu, jti: randomUUID(), ...(accessToken ? { ath: createHash('sha256').update(accessToken).digest('base64url') } : {}) })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
      .setIssuedAt()
      .sign(key)
  return { proof }
}

describe('DPoP (RFC 9449) where a token is bound', () => {
  test('a bound token without a proof gets 401, with a proof passes, and a replayed proof fails, on /mcp and /v1', async () => {
    const key = await dpopKey()
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read', 'DPoP agent', async () => ({ dpop: await key.proof('POST', `${p.url}/oauth/token`) }))
    expect(tokens.token_type).toBe('DPoP')
    const at = tokens.access_token
    expect(JSON.parse(Buffer.from(at.split('.')[1]!, 'base64url').toString()).cnf.jkt).toBeString()

    // Stolen and sent as a plain Bearer token, or under DPoP without a proof: refused.
    expect(await mcp(`Bearer ${at}`)).toBe(401)
    expect(await mcp(`DPoP ${at}`)).toBe(401)
    // With a proof for this request: accepted.
    const proof = await key.proof('POST', `${p.url}/mcp`, at)
    expect(await mcp(`DPoP ${at}`, { dpop: proof })).toBe(200)
    // The same proof again: a replay.
    expect(await mcp(`DPoP ${at}`, { dpop: proof })).toBe(401)
    // A proof for another URL, or without the token hash, or from another key: refused.
    expect(await mcp(`DPoP ${at}`, { dpop: await key.proof('POST', `${p.url}/v1/applications`, at) })).toBe(401)
    expect(await mcp(`DPoP ${at}`, { dpop: await key.proof('POST', `${p.url}/mcp`) })).toBe(401)
    const thief = await dpopKey()
    expect(await mcp(`DPoP ${at}`, { dpop: await thief.proof('POST', `${p.url}/mcp`, at) })).toBe(401)

    // /v1 the same way.
    const v1 = async (authorization: string, proof?: string) =>
      (await fetch(`${p.url}/v1/applications`, { headers: { authorization, ...(proof ? { dpop: proof } : {}) } })).status
    expect(await v1(`Bearer ${at}`)).toBe(401)
    const restProof = await key.proof('GET', `${p.url}/v1/applications`, at)
    expect(await v1(`DPoP ${at}`, restProof)).toBe(200)
    expect(await v1(`DPoP ${at}`, restProof)).toBe(401)
  })

  test('refusals are challenged per RFC 9449 section 7.1 on /mcp and /v1, and /v1 401s carry RFC 6750 challenges', async () => {
    const key = await dpopKey()
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Challenged agent', async () => ({ dpop: await key.proof('POST', `${p.url}/oauth/token`) }))
    const at = tokens.access_token
    const challengeOf = async (url: string, authorization: string | null, extra: Record<string, string> = {}) => {
      const post = url.endsWith('/mcp')
      const res = await fetch(url, {
        method: post ? 'POST' : 'GET',
        headers: { ...(authorization ? { authorization } : {}), ...(post ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION } : {}), ...extra },
        body: post ? JSON.stringify(LIST) : undefined,
      })
      await res.arrayBuffer()
      return { status: res.status, challenge: res.headers.get('www-authenticate') }
    }
    for (const path of ['/mcp', '/v1/applications']) {
      const url = `${p.url}${path}`
      // No proof, a proof for another URL, another key's proof: invalid_dpop_proof with the algorithms.
      for (const extra of [{} as Record<string, string>, { dpop: await key.proof(path === '/mcp' ? 'GET' : 'POST', url, at) }, { dpop: await (await dpopKey()).proof(path === '/mcp' ? 'POST' : 'GET', url, at) }]) {
        const r = await challengeOf(url, `DPoP ${at}`, extra)
        expect(r.status).toBe(401)
        expect(r.challenge).toMatch(/^DPoP error="invalid_dpop_proof", error_description="[^"]+", algs="ES256[^"]*"$/)
      }
      // The bound token under the Bearer scheme: invalid_token, challenged under DPoP.
      const asBearer = await challengeOf(url, `Bearer ${at}`)
      expect(asBearer.status).toBe(401)
      expect(asBearer.challenge).toStartWith('DPoP error="invalid_token"')
    }
    // /v1: a 401 without a credential, and with a wrong one, names the Bearer scheme (RFC 6750 section 3).
    expect(await challengeOf(`${p.url}/v1/applications`, null)).toEqual({ status: 401, challenge: 'Bearer realm="portico"' })
    expect((await challengeOf(`${p.url}/v1/applications`, 'Bearer sk_live_nope')).challenge).toMatch(/^Bearer realm="portico", error="invalid_token"/)
    const prm = await (await fetch(`${p.url}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(prm.dpop_signing_alg_values_supported).toContain('ES256')
  })

  test('an unbound token still works as Bearer, and not under the DPoP scheme', async () => {
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read', 'Bearer agent')
    expect(tokens.token_type).toBe('Bearer')
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    expect(await mcp(`DPoP ${tokens.access_token}`)).toBe(401)
  })

  test('a bound refresh token needs a proof from the same key', async () => {
    const key = await dpopKey()
    const { tokens, clientId } = await agentToken(p.url, ws.apiKey, 'domains:read', 'DPoP refresher', async () => ({ dpop: await key.proof('POST', `${p.url}/oauth/token`) }))
    expect((await refresh(clientId, tokens.refresh_token!)).status).toBe(400)
    const thief = await dpopKey()
    expect((await refresh(clientId, tokens.refresh_token!, { dpop: await thief.proof('POST', `${p.url}/oauth/token`) })).status).toBe(400)
    const ok = await refresh(clientId, tokens.refresh_token!, { dpop: await key.proof('POST', `${p.url}/oauth/token`) })
    expect(ok.status).toBe(200)
    expect(ok.body.token_type).toBe('DPoP')
  })
})

describe('a grant is tied to who approved it', () => {
  test('removing the approving member revokes the grant', async () => {
    const team = await provision(p)
    const { tokens, clientId } = await agentToken(p.url, team.apiKey, 'domains:read', 'Member-bound agent')
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    // A second owner, so the workspace can still be read once the approver is gone.
    const invite = await p.api('POST', '/v1/members', { token: team.apiKey, body: { email: 'second@example.com', role: 'owner' } })
    await p.api('POST', '/v1/members:accept', { body: { invite_token: invite.body.invite_token } })
    const [approver] = await p.db`select m.id from members m join api_keys k on k.created_by = m.id where k.tenant_id = ${team.tenantId}`
    const removed = await p.api('DELETE', `/v1/members/${approver!.id}`, { token: team.apiKey })
    expect(removed.status).toBe(200)
    expect(removed.body.ended_agent_grants).toHaveLength(1)
    // The workspace's grant list shows it ended, with the reason, before the agent comes back.
    const list = await p.api('GET', '/v1/agent-grants', { token: team.apiKey })
    expect(list.body.grants).toEqual([expect.objectContaining({ revoked_reason: 'approver_removed' })])
    // The agent's next step, a refresh or a call, finds the grant ended.
    const refused = await refresh(clientId, tokens.refresh_token!)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toBe('invalid_grant')
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(401)
    const [g] = await p.db`select revoked_at, revoked_reason from agent_grants where client_id = ${clientId}`
    expect(g).toMatchObject({ revoked_at: expect.any(Date), revoked_reason: 'approver_removed' })
  })

  test('lowering the approving member\'s role narrows the grant on the agent\'s next call', async () => {
    const team = await provision(p)
    const { tokens, clientId } = await agentToken(p.url, team.apiKey, 'domains:read domains:write', 'Narrowed agent')
    const invite = await p.api('POST', '/v1/members', { token: team.apiKey, body: { email: 'other-owner@example.com', role: 'owner' } })
    await p.api('POST', '/v1/members:accept', { body: { invite_token: invite.body.invite_token } })
    const [approver] = await p.db`select m.id from members m join api_keys k on k.created_by = m.id where k.tenant_id = ${team.tenantId}`
    expect((await p.api('PATCH', `/v1/members/${approver!.id}`, { token: team.apiKey, body: { role: 'viewer' } })).status).toBe(200)
    const create = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'connections_create', arguments: { application_id: team.appId, domain: 'narrowed.example' } } }
    expect(await mcp(`Bearer ${tokens.access_token}`, {}, create)).toBe(403)
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    const [g] = await p.db`select scopes, revoked_at from agent_grants where client_id = ${clientId}`
    expect(g).toEqual({ scopes: ['domains:read'], revoked_at: null })
  })

  test('the approving member is recorded on the grant, and no API key stands behind it', async () => {
    const key = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'admin' } })
    const { tokens, clientId } = await agentToken(p.url, key.body.key, 'domains:read', 'Member-approved agent')
    const grant = await grantOf(clientId)
    const [owner] = await p.db`select id from members where tenant_id = ${ws.tenantId} and role = 'owner'`
    expect(grant).toMatchObject({ approved_by: owner!.id, approved_by_member: owner!.id, status: 'active' })
    // Revoking a key of the workspace has nothing to do with a person's approval.
    expect((await p.api('DELETE', `/v1/applications/${ws.appId}/keys/${key.body.id}`, { token: ws.apiKey })).status).toBe(200)
    expect(await mcp(`Bearer ${tokens.access_token}`)).toBe(200)
    expect((await grantOf(clientId)).status).toBe('active')
  })
})

describe('a destructive tool is confirmed by the person on Portico\'s page, never by the client', () => {
  /** A pending connection as the widget would leave it (creating one through /v1 needs DNS, which this file does not run). */
  async function pendingConnection(domain: string): Promise<string> {
    const id = `con_confirm_${randomUUID().replace(/-/g, '').slice(0, 12)}`
    await p.db`
      insert into connections (id, tenant_id, application_id, domain, apex_domain, status, desired_records, planned_target, verification_token, created_at, updated_at)
      values (${id}, ${ws.tenantId}, ${ws.appId}, ${domain}, ${domain}, 'pending', '[]'::jsonb, '{}'::jsonb, 'tok', now(), now())`
    return id
  }
  const disconnectedAt = async (id: string) => ((await p.db`select disconnected_at from connections where id = ${id}`)[0] as { disconnected_at: Date | null }).disconnected_at
  const errorOf = (out: unknown) => JSON.parse(((out as { content: { text: string }[] }).content)[0]!.text)

  /** The official SDK v2 client on 2026-07-28; with `answer`, it declares form elicitation and answers every question itself. */
  async function agentClient(answer?: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, boolean> }) {
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:disconnect', 'Asking agent')
    const asked: string[] = []
    const client = new ClientV2(
      { name: 'portico-elicitation-test', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: answer ? { elicitation: { form: {} } } : {} },
    )
    if (answer) {
      client.setRequestHandler('elicitation/create', async (req) => {
        const message = (req.params as { message: string }).message
        asked.push(message)
        return answer(message)
      })
    }
    await client.connect(new TransportV2(new URL(`${p.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
    return { client, asked, token: tokens.access_token! }
  }

  /** A raw 2026-07-28 tools/call of connections_disconnect, declaring `capabilities`. */
  const rawCall = (bearer: string, capabilities: Record<string, unknown>, params: Record<string, unknown>) =>
    fetch(`${p.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'connections_disconnect', authorization: `Bearer ${bearer}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: 'connections_disconnect',
          _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } },
          ...params,
        },
      }),
    }).then(async (r) => ({ status: r.status, body: await r.json() }))

  test('a client declaring form elicitation is never asked to confirm in a form: it gets the person\'s link, and only the person\'s yes on the page disconnects', async () => {
    const domain = 'ask-the-person.example'
    const id = await pendingConnection(domain)
    const { client, asked, token: bearer } = await agentClient(() => ({ action: 'accept', content: { confirm: true } }))
    // The tool as this client sees it: confirm is the person's to give, not an argument.
    const listed = (await client.listTools()).tools.find((t) => t.name === 'connections_disconnect')!
    expect(listed.inputSchema.properties).not.toHaveProperty('confirm')
    const out = await client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(out.isError).toBe(true)
    const err = errorOf(out)
    expect({ code: err.code, reason: err.details.reason }).toEqual({ code: 'confirmation_required', reason: 'person_confirmation' })
    expect(err.details.confirm_url).toContain('/oauth/confirm/')
    // The client was asked nothing it could answer for the person.
    expect(asked).toEqual([])
    // A made-up form answer sent in-band, with or without a request state, changes nothing.
    const yes = { confirm: { action: 'accept', content: { confirm: true } } }
    const forged = await rawCall(bearer, { elicitation: { form: {} } }, { arguments: { id }, inputResponses: yes })
    expect(forged.body.result?.isError ?? !!forged.body.error).toBe(true)
    expect(await disconnectedAt(id)).toBeNull()
    // The person opens the link, signs in as themselves and confirms: the same call goes through.
    await personAnswers(err.details.confirm_url, await ownerEmail(p.url, ws.apiKey))
    const ok = await client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(ok.isError).toBeFalsy()
    expect(ok.structuredContent).toMatchObject({ domain, disconnected: true })
    expect(asked).toEqual([])
    expect(await disconnectedAt(id)).toBeInstanceOf(Date)
    await client.close()
  })

  test('the model cannot pass confirm at all, and the person\'s no on the page leaves the domain in place', async () => {
    const domain = 'person-says-no.example'
    const id = await pendingConnection(domain)
    const { client: model } = await agentClient(() => ({ action: 'accept', content: { confirm: true } }))
    const withConfirm = await model.callTool({ name: 'connections_disconnect', arguments: { id, confirm: domain } })
    expect(withConfirm.isError).toBe(true)
    expect(errorOf(withConfirm)).toMatchObject({ code: 'invalid_request', details: [{ field: 'confirm' }] })
    const link = errorOf(await model.callTool({ name: 'connections_disconnect', arguments: { id } })).details.confirm_url as string
    const no = await personAnswers(link, await ownerEmail(p.url, ws.apiKey), 'refuse')
    expect(no.status).toBe(410)
    expect((await model.callTool({ name: 'connections_disconnect', arguments: { id } })).isError).toBe(true)
    expect(await disconnectedAt(id)).toBeNull()
    await model.close()
  })

  test('URL elicitation on 2026-07-28: the client\'s accept (with or without a form-shaped yes) does not disconnect; a forged, altered or borrowed request state is refused; after the person\'s yes on the page the genuine retry goes through', async () => {
    const id = await pendingConnection('sealed-state.example')
    const other = await pendingConnection('other-sealed.example')
    const { token: agent } = await agentClient()
    const url = { elicitation: { url: {} } }
    const first = await rawCall(agent, url, { arguments: { id } })
    expect(first.body.result.resultType).toBe('input_required')
    const request = Object.values(first.body.result.inputRequests as Record<string, { params?: { mode?: string; url?: string } }>)[0]!
    expect(request.params?.mode).toBe('url')
    const link = request.params!.url!
    expect(link).toContain('/oauth/confirm/')
    const state = first.body.result.requestState as string
    // The issue's client: it answers the URL question with accept and a yes of its own; the person never opened the link.
    for (const inBand of [{ action: 'accept', content: { confirm: true } }, { action: 'accept' }]) {
      const r = await rawCall(agent, url, { arguments: { id }, inputResponses: { confirm: inBand }, requestState: state })
      expect(r.body.result?.resultType === 'input_required' || r.body.result?.isError === true).toBe(true)
      expect(await disconnectedAt(id)).toBeNull()
    }
    const accept = { confirm: { action: 'accept' } }
    // A state the model made up, or one with a byte changed, fails verification.
    for (const forged of ['eyJjb25uZWN0aW9uIjoi' + id + '"}', state.slice(0, -2) + (state.endsWith('A') ? 'BB' : 'AA')]) {
      const r = await rawCall(agent, url, { arguments: { id }, inputResponses: accept, requestState: forged })
      expect(r.body.error?.code ?? r.body.result?.isError).toBeTruthy()
    }
    // The state for one connection does not stand for another; another agent cannot use this agent's state.
    const swapped = await rawCall(agent, url, { arguments: { id: other }, inputResponses: accept, requestState: state })
    expect(swapped.body.result?.isError ?? !!swapped.body.error).toBe(true)
    const { token: stranger } = await agentClient()
    const borrowed = await rawCall(stranger, url, { arguments: { id }, inputResponses: accept, requestState: state })
    expect(borrowed.body.error).toBeDefined()
    expect(await disconnectedAt(id)).toBeNull()
    expect(await disconnectedAt(other)).toBeNull()
    // The person confirms on the page; then the genuine state goes through.
    await personAnswers(link, await ownerEmail(p.url, ws.apiKey))
    const ok = await rawCall(agent, url, { arguments: { id }, inputResponses: accept, requestState: state })
    expect(ok.body.result.isError).toBeFalsy()
    expect(await disconnectedAt(id)).toBeInstanceOf(Date)
  })

  test('disconnect without confirm refuses without handing the model the value to pass', async () => {
    const domain = 'confirm-me.example'
    const id = await pendingConnection(domain)
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:disconnect', 'Careful agent')
    const call = (args: Record<string, unknown>) =>
      fetch(`${p.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION, authorization: `Bearer ${tokens.access_token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'connections_disconnect', arguments: { id, ...args } } }),
      }).then((r) => r.json())
    for (const args of [{}, { confirm: 'other.example' }]) {
      const out = await call(args)
      expect(out.result.isError).toBe(true)
      expect(JSON.stringify(out)).not.toContain(domain)
    }
    // Nothing was removed.
    expect(await p.db`select disconnected_at from connections where id = ${id}`).toEqual([{ disconnected_at: null }])
  })

  test('2026-07-28 without elicitation: confirmation_required carries a one-time link; the person confirms there and the retry disconnects', async () => {
    const domain = 'no-elicitation.example'
    const id = await pendingConnection(domain)
    const { client } = await agentClient()
    const refused = await client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(refused.isError).toBe(true)
    const err = errorOf(refused)
    expect({ code: err.code, reason: err.details.reason, action: err.details.action }).toEqual({ code: 'confirmation_required', reason: 'person_confirmation', action: 'disconnect' })
    expect(err.details.confirm_url).toContain('/oauth/confirm/')
    // Retrying without the person's yes changes nothing, and asks the same question (the same link).
    expect(errorOf(await client.callTool({ name: 'connections_disconnect', arguments: { id } })).details.confirm_url).toBe(err.details.confirm_url)
    expect(await disconnectedAt(id)).toBeNull()
    // A forged link is refused; the real one asks the person to sign in, then shows the question.
    expect((await fetch(err.details.confirm_url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A')))).status).toBe(404)
    const answered = await personAnswers(err.details.confirm_url, await ownerEmail(p.url, ws.apiKey))
    expect(answered.page).toContain('id="done"')
    const ok = await client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(ok.isError).toBeFalsy()
    expect(await disconnectedAt(id)).toBeInstanceOf(Date)
    await client.close()
  })

  test('only the person who approved the agent says yes for it: another owner of the workspace is told so and confirms nothing', async () => {
    const id = await pendingConnection('approvers-own-yes.example')
    const { client } = await agentClient()
    const link = errorOf(await client.callTool({ name: 'connections_disconnect', arguments: { id } })).details.confirm_url as string
    const email = `co-owner-${Date.now().toString(36)}@example.com`
    const invite = await p.api('POST', '/v1/members', { token: ws.apiKey, body: { email, role: 'owner' } })
    expect((await p.api('POST', '/v1/members:accept', { body: { invite_token: invite.body.invite_token } })).status).toBeLessThan(300)
    const other = await personAnswers(link, email)
    expect(other.status).toBe(403)
    expect(other.page).toContain('id="not-yours"')
    expect(other.page).not.toContain('id="confirm"')
    expect(errorOf(await client.callTool({ name: 'connections_disconnect', arguments: { id } })).code).toBe('confirmation_required')
    expect(await disconnectedAt(id)).toBeNull()
    // The approver's own yes goes through.
    expect((await personAnswers(link, await ownerEmail(p.url, ws.apiKey))).page).toContain('id="done"')
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id } })).isError).toBeFalsy()
    await client.close()
  })

  test('the yes is bound to the agent and the connection, used once; a person who refuses ends the question', async () => {
    const a = await pendingConnection('bound-yes-a.example')
    const b = await pendingConnection('bound-yes-b.example')
    const { client } = await agentClient()
    const { client: otherAgent } = await agentClient()
    const link = async (c: typeof client, id: string) => errorOf(await c.callTool({ name: 'connections_disconnect', arguments: { id } })).details.confirm_url as string
    await personAnswers(await link(client, a), await ownerEmail(p.url, ws.apiKey))
    // Another agent, or another connection, finds no yes.
    expect((await otherAgent.callTool({ name: 'connections_disconnect', arguments: { id: a } })).isError).toBe(true)
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id: b } })).isError).toBe(true)
    expect(await disconnectedAt(a)).toBeNull()
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id: a } })).isError).toBeFalsy()
    // The person says no: the question closes and nothing is removed.
    const no = await personAnswers(await link(client, b), await ownerEmail(p.url, ws.apiKey), 'refuse')
    expect(no.status).toBe(410)
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id: b } })).isError).toBe(true)
    expect(await disconnectedAt(b)).toBeNull()
    await client.close()
    await otherAgent.close()
  })

  test('a yes recorded any other way than on the page (as a client\'s form answer once was) does not count', async () => {
    const id = await pendingConnection('old-form-yes.example')
    const { client } = await agentClient()
    const err = errorOf(await client.callTool({ name: 'connections_disconnect', arguments: { id } }))
    await p.db`update person_confirmations set confirmed_at = now(), confirmed_by = 'mem_x', confirmed_via = 'elicitation' where id = ${err.details.confirmation_id}`
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id } })).isError).toBe(true)
    expect(await disconnectedAt(id)).toBeNull()
    await client.close()
  })

  test('/v1 with an agent token: confirm naming the domain is not enough; the link\'s yes is', async () => {
    const domain = 'rest-agent.example'
    const id = await pendingConnection(domain)
    const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:disconnect', 'REST agent')
    const disconnect = (confirm?: string) =>
      fetch(`${p.url}/v1/connections/${id}:disconnect${confirm ? `?confirm=${confirm}` : ''}`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } }).then(async (r) => ({ status: r.status, body: await r.json() }))
    const named = await disconnect(domain)
    expect(named.status).toBe(400)
    expect(named.body.code).toBe('confirmation_required')
    expect(named.body.details.confirm_url).toContain('/oauth/confirm/')
    expect((await disconnect('other.example')).status).toBe(409)
    await personAnswers(named.body.details.confirm_url, await ownerEmail(p.url, ws.apiKey))
    const ok = await disconnect()
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ domain, disconnected: true })
    // A repeat answers the same outcome.
    expect((await disconnect()).status).toBe(200)
  })

  type Answer = { action: 'accept'; content: { confirm: boolean } } | { action: 'decline' } | { action: 'cancel' }

  /**
   * The official SDK v1 client on 2025-11-25; with `answer`, it declares form elicitation and answers
   * every question itself. `sessionId` stands for a client replaying one.
   */
  async function legacyClient(accessToken: string, answer?: (message: string) => Answer, opts: { sessionId?: string; capabilities?: Record<string, unknown> } = {}) {
    const asked: string[] = []
    const client = new ClientV1({ name: 'portico-elicitation-test-v1', version: '1.0.0' }, { capabilities: opts.capabilities ?? (answer ? { elicitation: { form: {} } } : {}) })
    if (answer) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params.message)
        return answer(req.params.message)
      })
    }
    const transport = new TransportV1(new URL(`${p.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
    })
    // With a session id the client resumes it and skips initialize, as one reconnecting does.
    await client.connect(transport)
    if (!opts.sessionId) expect(transport.protocolVersion).toBe('2025-11-25')
    return { client, transport, asked }
  }
  const disconnectToken = async (name: string) => (await agentToken(p.url, ws.apiKey, 'domains:read domains:disconnect', name)).tokens.access_token!

  test('2025-11-25 with form elicitation: the client is asked nothing, gets the link, and nothing is removed until the person confirms on the page', async () => {
    const accessToken = await disconnectToken('Form agent (2025)')
    const domain = 'legacy-form.example'
    const id = await pendingConnection(domain)
    const yes = await legacyClient(accessToken, () => ({ action: 'accept', content: { confirm: true } }))
    // A client that only asks in forms is not given a session: it has nothing Portico would ask.
    expect(yes.transport.sessionId).toBeUndefined()
    const refused = await yes.client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(refused.isError).toBe(true)
    expect(yes.asked).toEqual([])
    const err = errorOf(refused)
    expect(err.code).toBe('confirmation_required')
    expect(await disconnectedAt(id)).toBeNull()
    await personAnswers(err.details.confirm_url, await ownerEmail(p.url, ws.apiKey))
    const ok = await yes.client.callTool({ name: 'connections_disconnect', arguments: { id } })
    await yes.client.close()
    expect(ok.isError).toBeFalsy()
    expect(ok.structuredContent).toMatchObject({ domain, disconnected: true })
    expect(await disconnectedAt(id)).toBeInstanceOf(Date)
  })

  test('2025-11-25 without elicitation: no session id, the link as on 2026-07-28; another agent\'s or a made-up session id changes nothing', async () => {
    const accessToken = await disconnectToken('Plain agent (2025)')
    const domain = 'legacy-plain.example'
    const id = await pendingConnection(domain)
    const plain = await legacyClient(accessToken)
    expect(plain.transport.sessionId).toBeUndefined()
    expect((await plain.client.listTools()).tools.find((t) => t.name === 'connections_disconnect')!.inputSchema.properties).not.toHaveProperty('confirm')
    const refused = await plain.client.callTool({ name: 'connections_disconnect', arguments: { id } })
    expect(refused.isError).toBe(true)
    const link = errorOf(refused).details.confirm_url as string
    await plain.client.close()

    // A session id is the agent's own: borrowed by another agent (or made up) it carries nothing.
    const asking = await legacyClient(accessToken, undefined, { capabilities: { elicitation: { url: {} } } })
    const issued = asking.transport.sessionId!
    expect(issued).toBeString()
    await asking.client.close()
    const otherToken = await disconnectToken('Borrowing agent (2025)')
    for (const sessionId of [issued, `${Buffer.from('{"a":"x","url":true}').toString('base64url')}.AAAA`]) {
      const borrowed = await legacyClient(otherToken, undefined, { sessionId })
      const out = await borrowed.client.callTool({ name: 'connections_disconnect', arguments: { id } })
      await borrowed.client.close()
      // A plain refusal with its link, not the URL elicitation error a real session would get.
      expect(out.isError).toBe(true)
      expect(errorOf(out).code).toBe('confirmation_required')
    }
    expect(await disconnectedAt(id)).toBeNull()

    await personAnswers(link, await ownerEmail(p.url, ws.apiKey))
    const ok = await legacyClient(accessToken)
    const done = await ok.client.callTool({ name: 'connections_disconnect', arguments: { id } })
    await ok.client.close()
    expect(done.isError).toBeFalsy()
    expect(await disconnectedAt(id)).toBeInstanceOf(Date)
  })

  test('URL-mode elicitation: the v1 SDK gets the -32042 error with the page to open, the v2 SDK an input_required URL; the client\'s own accept does nothing, and after the person confirms the retry goes through', async () => {
    const accessToken = await disconnectToken('URL agent (2025)')
    const legacyId = await pendingConnection('url-mode-legacy.example')
    const client = new ClientV1({ name: 'portico-url-elicitation', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } })
    const transport = new TransportV1(new URL(`${p.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } })
    await client.connect(transport)
    const urlOf = async () => {
      try {
        await client.callTool({ name: 'connections_disconnect', arguments: { id: legacyId } })
      } catch (err) {
        expect(err).toBeInstanceOf(UrlElicitationRequiredError)
        return (err as UrlElicitationRequiredError).elicitations[0]!.url
      }
      return ''
    }
    const url = await urlOf()
    expect(url).toContain('/oauth/confirm/')
    // Calling again without the person asks again: nothing is removed.
    expect(await urlOf()).toBe(url)
    expect(await disconnectedAt(legacyId)).toBeNull()
    await personAnswers(url, await ownerEmail(p.url, ws.apiKey))
    expect((await client.callTool({ name: 'connections_disconnect', arguments: { id: legacyId } })).isError).toBeFalsy()
    expect(await disconnectedAt(legacyId)).toBeInstanceOf(Date)
    await client.close()

    const modernId = await pendingConnection('url-mode-modern.example')
    const opened: string[] = []
    const states: (Date | null)[] = []
    const modern = new ClientV2({ name: 'portico-url-elicitation-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { url: {} } } })
    modern.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as { mode?: string; url?: string }
      opened.push(params.url!)
      states.push(await disconnectedAt(modernId))
      // The first time the client accepts on its own; the second time the person has confirmed on the page first.
      if (opened.length === 2) await personAnswers(params.url!, await ownerEmail(p.url, ws.apiKey))
      return opened.length === 1 ? { action: 'accept', content: { confirm: true } } : { action: 'accept' }
    })
    await modern.connect(new TransportV2(new URL(`${p.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }))
    const done = await modern.callTool({ name: 'connections_disconnect', arguments: { id: modernId } })
    // Asked twice: the client's own accept left the domain connected.
    expect(opened).toHaveLength(2)
    expect(states).toEqual([null, null])
    expect(done.isError).toBeFalsy()
    expect(await disconnectedAt(modernId)).toBeInstanceOf(Date)
    await modern.close()
  })
})
