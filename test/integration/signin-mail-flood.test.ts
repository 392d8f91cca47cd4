// From the person's side: a stranger who opens many consent pages (one client, fresh requests) and asks,
// from several addresses, for a sign-in link to someone's email address cannot flood that mailbox: links
// mailed are budgeted per recipient whatever page asked. The person's own ask is never refused, and a link
// already in their mailbox, opened in the browser they asked from, brings them back to their own request.
// One host holding a whole IPv6 /64 (or an IPv4 /24) has a budget for its asks as a whole.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { livePortico, registerClient, authorize, pkce, mailbox, mailSettled, ownerEmail, type Authorization, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
let clientId: string
const redirectUri = 'http://127.0.0.1:9/callback'

beforeAll(async () => {
  // The deployment's defaults: 5 links per recipient, 30 asks per client address, per 15 minutes.
  p = await livePortico({ TRUST_PROXY: '127.0.0.1', SIGNIN_BUDGET: '5/30/20' })
  ws = await provision(p)
  const reg = await registerClient(p.url, { client_name: 'Helpful agent', redirect_uris: [redirectUri] })
  expect(reg.status).toBe(201)
  clientId = reg.body.client_id
})

afterAll(async () => {
  await p?.stop()
})

/** A fresh consent request of the client: a page anyone can open. */
function consentPage(): Promise<Authorization> {
  return authorize(p.url, { client_id: clientId, redirect_uri: redirectUri, response_type: 'code', code_challenge: pkce().challenge, code_challenge_method: 'S256', scope: 'domains:read', state: 's', resource: `${p.url}/mcp` })
}

/** "Email me a link" on a consent page, from `ip` (behind the trusted proxy), with the page's browser cookies. */
async function ask(auth: Authorization, email: string, ip: string): Promise<number> {
  const res = await fetch(p.url + auth.consentPath, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: auth.jar.header(), 'x-forwarded-for': ip },
    body: new URLSearchParams({ action: 'email', email }).toString(),
  })
  auth.jar.take(res)
  await res.arrayBuffer()
  return res.status
}

const mailsTo = (email: string) => mailbox(p.url).filter((m) => m.to.toLowerCase() === email.toLowerCase())

describe('a mailbox cannot be flooded through fresh consent pages', () => {
  test('a stranger asks for the owner\'s address on 24 fresh consent pages from 3 networks: at most 5 mails arrive; the owner\'s own ask is answered, and a link already mailed brings them to their own request', async () => {
    const victim = await ownerEmail(p.url, ws.apiKey)
    const before = mailsTo(victim).length
    const statuses: number[] = []
    for (let i = 0; i < 24; i++) statuses.push(await ask(await consentPage(), victim, `198.51.${100 + (i % 3)}.${10 + i}`))
    // Every ask is answered alike (nothing says whether the address is a member, or refuses the stranger yet).
    expect(statuses).toEqual(Array(24).fill(200))
    await mailSettled()
    const flooded = mailsTo(victim).length - before
    expect(flooded).toBe(5)

    // The owner, on their own consent page in their own browser, asks too: answered, not refused.
    const own = await consentPage()
    expect(await ask(own, victim, '203.0.113.9')).toBe(200)
    await mailSettled()
    // No sixth mail: the ask coalesced into the links already in the mailbox.
    expect(mailsTo(victim).length - before).toBe(5)
    // A link already there, opened in the owner's browser, signs them in and returns to their own request.
    const link = mailsTo(victim).at(-1)!.text.match(/https?:\/\/\S+\/oauth\/signin\/[\w-]+/)![0]
    const landing = await fetch(link, { headers: { cookie: own.jar.header(), 'x-forwarded-for': '203.0.113.9' } })
    expect(landing.status).toBe(200)
    await landing.arrayBuffer()
    const cont = await fetch(link, { method: 'POST', redirect: 'manual', headers: { cookie: own.jar.header(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.9' }, body: '' })
    expect(cont.status).toBe(303)
    expect(cont.headers.get('location')).toBe(own.consentPath)
    own.jar.take(cont)
    const signedIn = await (await fetch(p.url + own.consentPath, { headers: { cookie: own.jar.header() } })).text()
    expect(signedIn).toMatch(/name="csrf" value="[^"]+"/)
  })

  test('one IPv6 /64 asking from 130 of its addresses is refused once the network has asked 120 times; another /64 still asks', async () => {
    const statuses: number[] = []
    const auth = await consentPage()
    for (let i = 1; i <= 130; i++) statuses.push(await ask(auth, `nobody${i}@example.org`, `2001:db8:34:1::${i.toString(16)}`))
    expect(statuses.slice(0, 120)).toEqual(Array(120).fill(200))
    expect(statuses.slice(120)).toEqual(Array(10).fill(429))
    expect(await ask(auth, 'nobody@example.org', '2001:db8:34:2::1')).toBe(200)
  })
})
