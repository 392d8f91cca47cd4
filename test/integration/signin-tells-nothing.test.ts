// Signing in as a person, from the side of whoever might abuse it: "email me a link" answers in the
// same time for a member and a stranger (the mail goes out after the answer); asking for somebody's
// address over and over never stops their own link; a sign-in from another site is refused; a link
// opened in another browser says so, naming the address and workspace; the mail holds no word a
// stranger chose, and the link's page shows who asks and where the answer goes.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { livePortico, mailbox, mailSettled, linkIn, ownerEmail, registerClient, authorize, answer, pkce, CookieJar, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'

let p: LivePortico
let ws: Workspace
let owner: string
const LOOPBACK = 'http://127.0.0.1:9/callback'

beforeAll(async () => {
  // The production sign-in budget (5 links per address and page, 30 asks per client address, 20 failures, per 15 minutes);
  // the test's own loopback peer is a trusted proxy so each request can say which client it is.
  p = await livePortico({ SIGNIN_BUDGET: '5/30/20', TRUST_PROXY: '127.0.0.1' })
  ws = await provision(p)
  owner = await ownerEmail(p.url, ws.apiKey)
})

afterAll(async () => {
  await p?.stop()
})

const askLink = (email: string, client: string, headers: Record<string, string> = {}) =>
  fetch(`${p.url}/oauth/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': client, ...headers },
    body: new URLSearchParams({ action: 'email', email }).toString(),
  })

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

describe('email me a link', () => {
  test('a member and a stranger get the same answer in the same time, though the member\'s mail takes 400 ms to send', async () => {
    // A slow SMTP server: the answer must not wait for it.
    const box = mailbox(p.url)
    const caught = p.services.mailPeople!
    p.services.mailPeople = async (m) => {
      await Bun.sleep(400)
      return caught(m)
    }
    try {
      const timed = async (email: string, client: string) => {
        const t0 = performance.now()
        const r = await askLink(email, client)
        const page = await r.text()
        return { ms: performance.now() - t0, status: r.status, page: page.replace(email, 'ADDRESS') }
      }
      const member: number[] = []
      const stranger: number[] = []
      let pages: string[] = []
      for (let i = 0; i < 5; i++) {
        // Alternating, each ask from its own client and for its own page of links (no coalescing in the way).
        const a = await timed(owner, `198.51.100.${i + 1}`)
        const b = await timed(`nobody${i}@example.org`, `198.51.100.${i + 101}`)
        expect([a.status, b.status]).toEqual([200, 200])
        pages = [a.page, b.page]
        member.push(a.ms)
        stranger.push(b.ms)
      }
      // The same words…
      expect(pages[0]).toBe(pages[1]!)
      // …and the same time: neither waits for the 400 ms send (measured: medians of five asks each).
      const [m, s] = [median(member), median(stranger)]
      console.log(`sign-in ask, median of 5: member ${m.toFixed(1)} ms, stranger ${s.toFixed(1)} ms (mail send 400 ms)`)
      expect(m).toBeLessThan(200)
      expect(Math.abs(m - s)).toBeLessThan(100)
      // The member's mail did go out, after the answer.
      await mailSettled()
      expect(box.filter((x) => x.to === owner).length).toBeGreaterThanOrEqual(1)
      expect(box.some((x) => x.to.startsWith('nobody'))).toBe(false)
    } finally {
      p.services.mailPeople = caught
    }
  })

  test('a stranger asking for the owner\'s address again and again cannot stop the owner\'s own ask: it coalesces into the links already sent', async () => {
    const victim = await ownerEmail(p.url, (await provision(p)).apiKey)
    await mailSettled()
    const before = mailbox(p.url).filter((m) => m.to === victim).length
    for (let i = 0; i < 12; i++) expect((await askLink(victim, '203.0.113.66')).status).toBe(200)
    // The owner, from home: the same answer, never a refusal.
    const own = await askLink(victim, '192.0.2.10')
    expect(own.status).toBe(200)
    expect(await own.text()).toContain('id="sent"')
    await mailSettled()
    const mails = mailbox(p.url).filter((m) => m.to === victim).slice(before)
    // At most the budget's five links went out (no flood), and they are there for the owner to use.
    expect(mails.length).toBeGreaterThanOrEqual(1)
    expect(mails.length).toBeLessThanOrEqual(5)
    const jar = new CookieJar()
    const landing = await fetch(await linkIn(p.url, victim), { headers: { cookie: jar.header() } })
    expect(landing.status).toBe(200)
    // The asker's own address does have a budget: 30 asks per 15 minutes.
    const statuses: number[] = []
    for (let i = 0; i < 30; i++) statuses.push((await askLink(`someone${i}@example.org`, '203.0.113.66')).status)
    expect(statuses.at(-1)).toBe(429)
  })
})

describe('a sign-in from another site', () => {
  test('Continue sent from another site is refused with a page that says so, and the link stays usable', async () => {
    expect((await askLink(owner, '192.0.2.20')).status).toBe(200)
    const link = await linkIn(p.url, owner)
    const forged = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site' },
      body: '',
    })
    expect(forged.status).toBe(403)
    expect(forged.headers.get('set-cookie')).toBeNull()
    expect(await forged.text()).toContain('This form was sent from another site')
    // An Origin alone (an older browser) decides the same.
    const byOrigin = await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://attacker.example' }, body: '' })
    expect(byOrigin.status).toBe(403)
    // A same-site subdomain is another site too.
    expect((await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'sec-fetch-site': 'same-site' }, body: '' })).status).toBe(403)
    // Nothing was used up: from Portico's own page, Continue signs in.
    const mine = await fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: p.url, 'sec-fetch-site': 'same-origin' }, body: '' })
    expect(mine.status).toBe(303)
    expect(mine.headers.get('set-cookie')).toMatch(/^portico_person=/)
  })

  test('every form that signs in or acts refuses another site: the ask, the consent answer, sign-out, revoke', async () => {
    const cross = { origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' }
    expect((await askLink(owner, '192.0.2.21', cross)).status).toBe(403)
    for (const path of ['/oauth/signout', '/oauth/agents/agg_x/revoke', '/oauth/consent/some-request', '/oauth/confirm/some-token']) {
      const r = await fetch(`${p.url}${path}`, { method: 'POST', redirect: 'manual', headers: cross, body: 'action=email&email=a%40b.example' })
      expect({ path, status: r.status }).toEqual({ path, status: 403 })
    }
  })
})

describe('a link opened in another browser', () => {
  test('says so and names the address and workspace it signs in; in the browser that asked it does not', async () => {
    const w = await provision(p)
    const person = await ownerEmail(p.url, w.apiKey)
    const asked = await askLink(person, '192.0.2.30')
    const cookie = asked.headers.get('set-cookie')!.split(';')[0]!
    expect(cookie).toMatch(/^portico_asked=/)
    const link = await linkIn(p.url, person)
    const elsewhere = await (await fetch(link)).text()
    expect(elsewhere).toContain('id="other-browser"')
    const note = /id="other-browser">(.*?)<\/p>/.exec(elsewhere)![1]!
    expect(note).toContain(person)
    const [t] = await p.db`select name from tenants where id = ${w.tenantId}`
    expect(note).toContain(t!.name)
    const here = await (await fetch(link, { headers: { cookie } })).text()
    expect(here).not.toContain('id="other-browser"')
    expect(here).toContain(person)
  })
})

describe('mail carries no stranger\'s words', () => {
  test('an agent named like a phishing mail: the member\'s mail holds none of its text; the link\'s page shows who asks and the host', async () => {
    const name = 'Account review: confirm at https://verify-account.example/login within 24h'
    const reg = await registerClient(p.url, { client_name: name, redirect_uris: [LOOPBACK] })
    expect(reg.status).toBe(201)
    const { challenge } = pkce()
    const auth = await authorize(p.url, { client_id: reg.body.client_id, redirect_uri: LOOPBACK, response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', state: 's', scope: 'domains:read' })
    // A member whose five links of the window are not spent yet (they are counted per recipient, whatever page asked).
    const member = await ownerEmail(p.url, (await provision(p)).apiKey)
    await mailSettled()
    const before = mailbox(p.url).length
    const sent = await answer(p.url, auth, { action: 'email', email: member }, LOOPBACK)
    expect(sent.status).toBe(200)
    await mailSettled()
    const mail = mailbox(p.url).slice(before).find((m) => m.to === member)!
    expect(mail).toBeDefined()
    for (const word of ['Account review', 'verify-account', 'within 24h', '127.0.0.1:9']) {
      expect(mail.text).not.toContain(word)
      expect(mail.subject).not.toContain(word)
    }
    // The only address in the mail is Portico's own sign-in link.
    const urls = mail.text.match(/https?:\/\/\S+/g) ?? []
    expect(urls).toHaveLength(1)
    expect(urls[0]!.startsWith(`${p.url}/oauth/signin/`)).toBe(true)
    // The page the link opens shows who asks, as outside text, with the host its answer goes to.
    const landing = await (await fetch(urls[0]!)).text()
    const who = /id="who-asks">(.*?)<\/p>/.exec(landing)![1]!
    expect(who).toContain('verify-account.example')
    expect(who).toContain('127.0.0.1:9')
    expect(who).toContain('An agent calling itself')
  })
})
