// The connect MCP App in a real browser, hosted the way the io.modelcontextprotocol/ui extension's host
// side does it: an agent client reads tools/list, finds the UI resource a tool names in
// `_meta.ui.resourceUri`, reads it with resources/read, loads it into a sandboxed frame (scripts only, no
// same origin), answers its `ui/initialize`, then hands it the tool's result with
// `ui/notifications/tool-result`; the page's own `tools/call` requests go back through the host to
// Portico. The frame must show the records to add and the status. Screenshot in test-artifacts/.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { livePortico, documentToken, type LivePortico } from '../harness/agents.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { startPdns } from '../harness/pdns.ts'

const ARTIFACTS = 'test-artifacts'
let p: LivePortico
let ws: Workspace
let browser: Browser
let client: Client
let host: ReturnType<typeof Bun.serve>
let zone: string

// The host page: a sandboxed frame and the host half of the extension's postMessage protocol.
const HOST_PAGE = `<!doctype html><html><body><h1>Agent host</h1><iframe id="app" sandbox="allow-scripts" style="width:100%;height:600px"></iframe><script>
const frame = document.getElementById('app')
window.hostLog = []
window.addEventListener('message', async (e) => {
  if (e.source !== frame.contentWindow) return
  const m = e.data
  window.hostLog.push(m.method)
  const reply = (result) => frame.contentWindow.postMessage({ jsonrpc: '2.0', id: m.id, result }, '*')
  if (m.method === 'ui/initialize') reply({ protocolVersion: m.params.protocolVersion, hostInfo: { name: 'test-host', version: '1' }, hostCapabilities: { serverTools: {} }, hostContext: { theme: 'light' } })
  else if (m.method === 'ui/notifications/initialized') frame.contentWindow.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: window.toolResult }, '*')
  else if (m.method === 'tools/call') reply(await (await fetch('/tools-call', { method: 'POST', body: JSON.stringify(m.params) })).json())
})
window.show = (html, result) => { window.toolResult = result; frame.srcdoc = html }
</script></body></html>`

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true })
  const pdns = await startPdns()
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico-test.test', WEBHOOK_ALLOW_LOOPBACK: '1' })
  ws = await provision(p)
  zone = `app${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  const { tokens } = await documentToken(p.url, ws.apiKey, 'domains:read domains:write')
  client = new Client({ name: 'test-host', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${p.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
  host = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      if (new URL(req.url).pathname === '/tools-call') return Response.json(await client.callTool((await req.json()) as { name: string; arguments: Record<string, unknown> }))
      return new Response(HOST_PAGE, { headers: { 'content-type': 'text/html' } })
    },
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
})

afterAll(async () => {
  await browser?.close()
  host?.stop(true)
  await client?.close()
  await p?.stop()
})

describe('connect MCP App', () => {
  test('a host renders the UI resource of the records tool in a sandboxed frame, with the records and the status', async () => {
    const { tools } = await client.listTools()
    const tool = tools.find((t) => t.name === 'connections_records_get')!
    const uri = (tool._meta as { ui?: { resourceUri?: string } })?.ui?.resourceUri
    expect(uri).toBe('ui://portico/connect')
    const { resources } = await client.listResources()
    expect(resources.find((r) => r.uri === uri)?.mimeType).toBe('text/html;profile=mcp-app')
    const read = await client.readResource({ uri: uri! })
    const html = (read.contents[0] as { text: string }).text
    expect(html).toContain('<script>')

    const created = await client.callTool({ name: 'connections_create', arguments: { domain: `shop.${zone}`, application_id: ws.appId } })
    const id = (created.structuredContent as { id: string }).id
    const result = await client.callTool({ name: 'connections_records_get', arguments: { id } })
    const records = (result.structuredContent as { records: { type: string; host: string; value: string }[] }).records
    expect(records.length).toBeGreaterThan(0)
    // Hosts without the extension get the same content as text.
    const fallback = (result.content as { text: string }[])[1]!.text
    expect(fallback).toContain('Records to add')
    for (const r of records) expect(fallback).toContain(r.value)

    const page = await browser.newPage()
    await page.goto(`http://127.0.0.1:${host.port}/`)
    await page.evaluate(([h, r]) => (window as unknown as { show: (h: string, r: unknown) => void }).show(h as string, r), [html, result] as const)
    const frame = page.frameLocator('#app')
    await frame.locator('table.je-table').waitFor({ timeout: 10_000 })
    const shown = await frame.locator('table.je-table').innerText()
    for (const r of records) {
      expect(shown).toContain(r.type)
      expect(shown).toContain(r.value)
    }
    expect(await frame.locator('h2').innerText()).toBe(`shop.${zone}`)
    // Styled with the widget's stylesheet (adopted by the frame's document): the copy buttons are 44 px targets.
    expect(await frame.locator('.je-copy').first().evaluate((el) => getComputedStyle(el).minHeight)).toBe('44px')
    // The frame is sandboxed without same-origin access: it cannot reach the host page's DOM.
    expect(await page.locator('#app').getAttribute('sandbox')).toBe('allow-scripts')
    expect(await page.evaluate(() => (window as unknown as { hostLog: string[] }).hostLog)).toEqual(expect.arrayContaining(['ui/initialize', 'ui/notifications/initialized']))

    // The records read has no status: the page asks the host for the connection (tools/call through
    // the host to Portico) and shows it.
    await frame.locator('#status').waitFor({ timeout: 10_000 })
    expect(await frame.locator('#status').getAttribute('data-status')).toBe('pending')
    expect(await page.evaluate(() => (window as unknown as { hostLog: string[] }).hostLog)).toContain('tools/call')
    await page.screenshot({ path: `${ARTIFACTS}/mcp-app.png`, fullPage: true })
  })
})
