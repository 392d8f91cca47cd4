// A large answer leaves the server in one or two writes, however late it is ready. Bun 1.4.5 writes an
// answer of 15.5 KB or more that is completed after the handler awaited something (a database read,
// compression on the thread pool) piece by piece: the status line, each header name, `: `, its value
// and every CRLF in a send() of their own (oven-sh/bun#41341); on a virtual machine a page of 50
// connections cost five times its JSON that way. Counted here from the operator's side: the server's
// own system calls on the answer's socket, traced with strace while a client asks over a real socket.
import { test, expect, beforeAll, afterAll } from 'bun:test'
import { readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startPdns } from '../harness/pdns.ts'
import { rawExchange } from '../harness/raw-http.ts'
import { provision, type Workspace } from '../harness/portico.ts'
import { agentToken, livePortico, type LivePortico } from '../harness/agents.ts'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'

let p: LivePortico
let ws: Workspace
let port: number
let agent: string
beforeAll(async () => {
  const pdns = await startPdns()
  p = await livePortico({ DNS_RESOLVERS: pdns.dnsAddress, EDGE_CNAME_TARGET: 'edge.portico.test' })
  port = Number(new URL(p.url).port)
  ws = await provision(p)
  const zone = `writes${Date.now().toString(36)}.test`
  await pdns.createZone(zone)
  const bulk = await p.api('POST', '/v1/connections:bulk', { token: ws.apiKey, body: { domains: Array.from({ length: 50 }, (_, i) => `shop${i}.${zone}`) } })
  expect(bulk.status).toBeLessThan(300)
  agent = (await agentToken(p.url, ws.apiKey, 'domains:read domains:write', 'Listing agent')).tokens.access_token
}, 60_000)
afterAll(() => p?.stop())

interface Ask {
  path: string
  headers: Record<string, string>
  body?: string
}

/** The whole answer to `ask` on a connection of its own (closed after it). */
function exchange({ path, headers, body }: Ask): Promise<string> {
  const all = { host: new URL(p.url).host, connection: 'close', ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) }
  const head = Object.entries(all).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  return rawExchange(port, `${body === undefined ? 'GET' : 'POST'} ${path} HTTP/1.1\r\n${head}\r\n${body ?? ''}`)
}

/**
 * For each request, in order: the answer, and how many send calls this process made on the socket it
 * answered on (from the call that began with the status line to that socket's close).
 */
async function tracedWrites(requests: Ask[]): Promise<{ answer: string; writes: number }[]> {
  const file = join(tmpdir(), `portico-writes-${process.pid}-${Date.now()}.txt`)
  const strace = Bun.spawn(['strace', '-f', '-e', 'trace=sendto,sendmsg,writev,write,close', '-s', '12', '-o', file, '-p', String(process.pid)], { stdout: 'ignore', stderr: 'pipe' })
  try {
    // Attached once it says so (one line per thread); a request before that would go untraced.
    const reader = strace.stderr.getReader()
    let said = ''
    while (!said.includes('attached')) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`strace did not attach: ${said}`)
      said += new TextDecoder().decode(value)
    }
    await Bun.sleep(300)
    const answers: string[] = []
    for (const ask of requests) answers.push(await exchange(ask))
    await Bun.sleep(200)
    strace.kill('SIGINT')
    await strace.exited
    const lines = readFileSync(file, 'utf8').split('\n')
    const counts: number[] = []
    const open = new Map<string, number>()
    for (const line of lines) {
      const m = /^\d+\s+(sendto|sendmsg|writev|write|close)\((\d+)/.exec(line)
      if (!m) continue
      const [, call, fd] = m
      if (call === 'close') {
        if (open.has(fd!)) counts.push(open.get(fd!)!)
        open.delete(fd!)
      } else if (/"HTTP\/1\.1 /.test(line)) open.set(fd!, 1)
      else if (open.has(fd!)) open.set(fd!, open.get(fd!)! + 1)
    }
    expect(counts).toHaveLength(requests.length)
    return answers.map((answer, i) => ({ answer, writes: counts[i]! }))
  } finally {
    strace.kill('SIGKILL')
    rmSync(file, { force: true })
  }
}

const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4)
/** A chunked body's content. */
const unchunked = (body: string) => {
  let out = ''
  for (let at = 0; ; ) {
    const eol = body.indexOf('\r\n', at)
    const size = parseInt(body.slice(at, eol), 16)
    if (!size) return out
    out += body.slice(eol + 2, eol + 2 + size)
    at = eol + 2 + size + 2
  }
}

test('a list page, the provider catalog, the tool list an agent reads, /metrics and a small read each leave in at most two writes', async () => {
  const auth = { authorization: `Bearer ${ws.apiKey}` }
  const mcp = { authorization: `Bearer ${agent}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }
  const got = await tracedWrites([
    { path: '/v1/connections?limit=50', headers: auth },
    { path: '/v1/connections?limit=50', headers: { ...auth, 'accept-encoding': 'zstd' } },
    { path: '/v1/connections?limit=50', headers: { ...auth, 'accept-encoding': 'gzip' } },
    { path: '/v1/providers', headers: {} },
    { path: '/mcp', headers: mcp, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) },
    { path: '/metrics', headers: {} },
    { path: `/v1/applications/${ws.appId}`, headers: auth },
  ])
  // Each is large enough to have been written piece by piece, but the last.
  expect(got.map((g) => bodyOf(g.answer).length > 15_500)).toEqual([true, false, false, true, true, true, false])
  expect(got.map((g) => [Number(g.answer.slice(9, 12)), g.writes <= 2])).toEqual(Array(7).fill([200, true]))
  // What the client reads is the whole page: the large answer to a client that takes no coding is chunked.
  const page = JSON.parse(Buffer.from(unchunked(bodyOf(got[0]!.answer)), 'latin1').toString('utf8'))
  expect(page.connections).toHaveLength(50)
  expect(got[0]!.answer).toMatch(/\r\ntransfer-encoding: chunked\r\n/i)
  // A small answer keeps its Content-Length.
  expect(got[6]!.answer).toMatch(/\r\ncontent-length: \d+\r\n/i)
  // The tool list reads as the agent's client reads it.
  expect(JSON.parse(unchunked(bodyOf(got[4]!.answer))).result.tools.length).toBeGreaterThan(10)
}, 60_000)
