// External MCP checks against a real Portico: starts one on a loopback port (test database, as the
// tests do), provisions a workspace, walks the agent OAuth flow for a token, then runs
//   npx @modelcontextprotocol/inspector@2.12.0 --cli --server-url <url>/mcp --transport http --method tools/list --header "Authorization: Bearer <token>"
//   bunx --bun @modelcontextprotocol/conformance@0.2.0-alpha.12 authorization --url <url> --scenario authorization-server-metadata-endpoint
//   bunx --bun @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url <proxy> --spec-version 2025-11-25
//   bunx --bun @modelcontextprotocol/conformance@0.2.0-alpha.12 server --url <proxy> --requirements 2026-07-28
// and prints what each said. The server suite cannot send a bearer token, so it talks to a loopback
// proxy that adds the token obtained through the real flow and forwards everything else unchanged.
// Scenarios that test the reference server's fixtures (tools, prompts and resources Portico does not
// offer) are listed per revision in scripts/conformance/<revision>.yaml with the reason, and passed to
// the suite as expected failures; every other scenario must pass (the suite also fails on a listed one
// that passes).
// Usage: DATABASE_URL=postgres://… bun scripts/mcp-external-checks.ts [inspector|conformance-as|conformance-server]...
// Both tools come from the npm registry through npx/bunx caches; nothing is added to package.json.
import { livePortico, agentToken } from '../test/harness/agents.ts'
import { provision, closeShared } from '../test/harness/portico.ts'

const which = process.argv.slice(2)
const want = (name: string) => which.length === 0 || which.includes(name)

/** A loopback proxy to `target` that adds the bearer token to every request. */
function tokenProxy(target: string, token: string) {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const headers = new Headers(req.headers)
      headers.set('authorization', `Bearer ${token}`)
      headers.delete('host')
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer()
      const res = await fetch(target + new URL(req.url).search, { method: req.method, headers, body, redirect: 'manual' })
      return new Response(res.body, { status: res.status, headers: res.headers })
    },
  })
}

async function run(cmd: string[], env: Record<string, string> = {}): Promise<number> {
  const shown = cmd.map((c) => c.replace(/Bearer \S+/, 'Bearer <token>')).map((c) => (c.includes(' ') ? JSON.stringify(c) : c))
  console.log(`\n$ ${shown.join(' ')}`)
  const proc = Bun.spawn(cmd, { stdout: 'inherit', stderr: 'inherit', env: { ...process.env, ...env } })
  return proc.exited
}

const p = await livePortico()
let failed = 0
try {
  const ws = await provision(p)
  const { tokens } = await agentToken(p.url, ws.apiKey, 'domains:read domains:write domains:disconnect', 'External checks')
  const mcpUrl = `${p.url}/mcp`
  if (want('inspector')) {
    failed += (await run(['npx', '-y', '@modelcontextprotocol/inspector@2.12.0', '--cli', '--server-url', mcpUrl, '--transport', 'http', '--method', 'tools/list', '--strict', '--header', `Authorization: Bearer ${tokens.access_token}`])) === 0 ? 0 : 1
  }
  const conformance = [`${import.meta.dir}/../node_modules/.bin/bunx`, '--bun', '@modelcontextprotocol/conformance@0.2.0-alpha.12']
  if (want('conformance-as')) {
    failed += (await run([...conformance, 'authorization', '--url', p.url, '--scenario', 'authorization-server-metadata-endpoint'])) === 0 ? 0 : 1
  }
  if (want('conformance-server')) {
    const proxy = tokenProxy(mcpUrl, tokens.access_token)
    const proxyUrl = `http://127.0.0.1:${proxy.port}/mcp`
    const baseline = (revision: string) => ['--expected-failures', `${import.meta.dir}/conformance/${revision}.yaml`]
    try {
      failed += (await run([...conformance, 'server', '--url', proxyUrl, '--spec-version', '2025-11-25', ...baseline('2025-11-25')])) === 0 ? 0 : 1
      failed += (await run([...conformance, 'server', '--url', proxyUrl, '--requirements', '2026-07-28', ...baseline('2026-07-28')])) === 0 ? 0 : 1
    } finally {
      proxy.stop(true)
    }
  }
} finally {
  await p.stop()
  await closeShared()
}
process.exit(failed ? 1 : 0)
