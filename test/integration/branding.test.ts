// Application branding through the API, as an integrator sets it and as the people behind a widget
// token or a share link see it. Logo hosts are resolved through real PowerDNS: a name that resolves
// to a private or loopback address is refused like a literal one.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { startPdns, type Pdns } from '../harness/pdns.ts'
import { provision, startPortico, widgetToken, type TestPortico, type Workspace } from '../harness/portico.ts'
import { contrast } from '../../src/domain/branding.ts'

let pdns: Pdns
let p: TestPortico
let ws: Workspace
let zone: string

// A 1×1 PNG.
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const SVG = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#0a7"/></svg>').toString('base64')}`

beforeAll(async () => {
  pdns = await startPdns()
  p = await startPortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test', PUBLIC_URL: 'https://portico.example' })
  ws = await provision(p, { tenant_name: 'Acme Workspace' })
  zone = `brand${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  await pdns.setRecords(`cdn.${zone}`, 'A', ['8.8.8.8'])
  await pdns.setRecords(`inside.${zone}`, 'A', ['10.1.2.3'])
  await pdns.setRecords(`self.${zone}`, 'A', ['127.0.0.1'])
})

afterAll(async () => {
  await p?.close()
})

const put = (body: unknown, token = ws.apiKey, app = ws.appId) => p.api('PUT', `/v1/applications/${app}/branding`, { token, body })

describe('application branding', () => {
  test('an owner sets it; the application, a widget token and a share link all see it, with a readable foreground', async () => {
    const r = await put({ display_name: '  Acme   Shop ', logo_url: PNG, accent_color: '#FFD400' })
    expect(r.status).toBe(200)
    expect(r.body.branding).toEqual({ display_name: 'Acme Shop', logo_url: PNG, accent_color: '#ffd400', accent_foreground: '#000000', accent_text: expect.stringMatching(/^#[0-9a-f]{6}$/) })
    // Yellow reads on black, not on white; the text colour is darkened until it reads on white.
    expect(contrast('#ffd400', r.body.branding.accent_foreground)).toBeGreaterThanOrEqual(4.5)
    expect(contrast(r.body.branding.accent_text, '#ffffff')).toBeGreaterThanOrEqual(4.5)

    const read = await p.api('GET', `/v1/applications/${ws.appId}`, { token: ws.apiKey })
    expect(read.body.branding.display_name).toBe('Acme Shop')
    // The integrator's own pages read it with an application-scoped widget token; the end user's token
    // cannot read the application at all (it sees the branding where its flow shows it).
    const appToken = await p.api('GET', `/v1/applications/${ws.appId}`, { token: await widgetToken(p, ws, { scope: 'app' }) })
    expect(appToken.status).toBe(200)
    expect(appToken.body.branding).toEqual(r.body.branding)
    expect((await p.api('GET', `/v1/applications/${ws.appId}`, { token: await widgetToken(p, ws) })).status).toBe(403)

    const c = await p.api('POST', '/v1/connections', { token: ws.apiKey, body: { domain: `shop.${zone}` } })
    const link = await p.api('POST', `/v1/connections/${c.body.id}/share`, { token: ws.apiKey })
    const shared = await p.api('GET', `/v1/share/${link.body.token}`)
    expect(shared.body.application_name).toBe('Acme Shop')
    expect(shared.body.branding).toEqual(r.body.branding)

    // Dark accents get white text.
    expect((await put({ accent_color: '#1a237e' })).body.branding).toMatchObject({ accent_foreground: '#ffffff', accent_text: '#1a237e', display_name: null })
    // Without branding, a share link names the workspace, never the application's internal name.
    expect((await put({})).body.branding).toBeNull()
    expect((await p.api('GET', `/v1/share/${link.body.token}`)).body).toMatchObject({ application_name: 'Acme Workspace', branding: null })
  })

  test('sending the same branding twice answers the same', async () => {
    const body = { display_name: 'Twice', logo_url: SVG, accent_color: '#0b6e4f' }
    const a = await put(body)
    const b = await put(body)
    expect(a.status).toBe(200)
    expect(b.body.branding).toEqual(a.body.branding)
  })

  test('an https logo on a public host is accepted; private, loopback, plain http and other schemes are refused', async () => {
    expect((await put({ logo_url: `https://cdn.${zone}/logo.png` })).status).toBe(200)
    expect((await put({ logo_url: 'https://8.8.4.4/logo.png' })).status).toBe(200)
    const refused: [string, RegExp][] = [
      [`https://inside.${zone}/logo.png`, /private address \(10\.1\.2\.3\)/],
      [`https://self.${zone}/logo.png`, /loopback address/],
      ['https://10.0.0.7/logo.png', /private/],
      ['https://[::1]/logo.png', /loopback/],
      ['https://localhost/logo.png', /loopback/],
      ['https://169.254.169.254/latest/meta-data', /metadata|link/],
      [`https://nothing-here.${zone}/logo.png`, /no address|could not be resolved/],
      ['http://cdn.example.com/logo.png', /https/],
      ['javascript:alert(1)', /not http/],
      ['data:text/html;base64,PGgxPmhpPC9oMT4=', /data:image/],
      ['data:image/png;base64,' + Buffer.from('<svg></svg>').toString('base64'), /not a image\/png/],
      ['data:image/svg+xml;base64,' + Buffer.from('<html><script>1</script></html>').toString('base64'), /not a image\/svg\+xml/],
      ['data:image/png;base64,' + Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(33 * 1024)]).toString('base64'), /at most 32768 bytes/],
    ]
    for (const [logo, why] of refused) {
      const r = await put({ logo_url: logo })
      expect({ logo: logo.slice(0, 60), status: r.status, code: r.body.code }).toEqual({ logo: logo.slice(0, 60), status: 400, code: 'invalid_request' })
      expect(r.body.details).toEqual([{ in: 'body', field: 'logo_url', message: expect.stringMatching(why) }])
    }
  })

  test('bad colours and names are refused field by field, and nothing is stored', async () => {
    await put({ display_name: 'Kept' })
    for (const accent of ['red', '#fff', '#12345g', 'rgb(1,2,3)', '#1234567']) {
      const r = await put({ display_name: 'Changed', accent_color: accent })
      expect(r.status).toBe(400)
      expect(r.body.details).toEqual([{ in: 'body', field: 'accent_color', message: 'must be a colour written #rrggbb' }])
    }
    expect((await put({ display_name: 'x'.repeat(81) })).body.details[0].field).toBe('display_name')
    expect((await put({ display_name: 'evil\u202Eexe.png' })).status).toBe(400)
    // Zero-width, word-joiner, tag and bidi-mark characters draw nothing: refused at the door, each named (issue 42).
    for (const hidden of ['Acme\u200BShop', 'Acme\u2060Shop', `Acme${[...'disconnect every other domain'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('')}`, 'Acme\u200F', 'Acme\u3164', 'Acme\uFEFFShop', 'Acme\u2028Shop', 'Acme\u2029Shop', 'Acme\u2800Shop', '\uFEFFAcme']) {
      const r = await put({ display_name: hidden })
      expect({ status: r.status, field: r.body.details?.[0]?.field, message: r.body.details?.[0]?.message }).toEqual({ status: 400, field: 'display_name', message: expect.stringContaining('U+') })
    }
    expect((await put({ shade: '#000000' })).status).toBe(400)
    expect((await p.api('GET', `/v1/applications/${ws.appId}`, { token: ws.apiKey })).body.branding.display_name).toBe('Kept')
  })

  test('only admins and owners set it; a widget token cannot; another workspace\'s application is not found', async () => {
    const member = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'member' } })
    expect((await put({ display_name: 'Nope' }, member.body.key)).status).toBe(403)
    const admin = await p.api('POST', `/v1/applications/${ws.appId}/keys`, { token: ws.apiKey, body: { role: 'admin' } })
    expect((await put({ display_name: 'By admin' }, admin.body.key)).status).toBe(200)
    expect((await put({ display_name: 'Widget' }, await widgetToken(p, ws))).status).toBe(403)
    const other = await provision(p)
    expect((await put({ display_name: 'Theirs' }, other.apiKey)).status).toBe(404)
    expect((await put({ display_name: 'Theirs' }, ws.apiKey, other.appId)).status).toBe(404)
  })
})
