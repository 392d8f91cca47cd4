// What an integrator installs: `npm pack` of packages/client and packages/react gives tarballs that a
// project outside the repository installs (offline: the tarballs, and React from this repository's
// node_modules), type-checks under strict with this repository's TypeScript, and runs: the five-minute
// examples of docs/client.md and docs/react.md, taken from the pages as they are written. The client's
// example runs against a real Portico (its workers on: verification and webhooks happen by themselves).
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { provision, startPortico, type TestPortico, type Workspace } from '../harness/portico.ts'

const ROOT = join(import.meta.dir, '../..')
const BIN = join(ROOT, 'node_modules/.bin')
let tmp = ''
let project = ''
const tarballs: Record<string, string> = {}

/** Runs a command to its end (never longer than `timeoutMs`); answers its exit code and output. */
async function sh(cmd: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 120_000): Promise<{ code: number; out: string; stdout: string }> {
  const proc = Bun.spawn(cmd, { cwd, env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, ...env }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  try {
    const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
    return { code: await proc.exited, out: out + err, stdout: out }
  } finally {
    clearTimeout(timer)
  }
}

/** The code block after `<!-- example: name -->` in a docs page. */
function example(page: string, name: string): string {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8')
  const m = text.match(new RegExp(`<!-- example: ${name} -->\\n\`\`\`tsx?\\n([\\s\\S]*?)\\n\`\`\``))
  if (!m) throw new Error(`docs/${page} has no example ${name}`)
  return m[1]! + '\n'
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'portico-pack-'))
  for (const pkg of ['client', 'react']) {
    const r = await sh(['npm', 'pack', '--json', '--pack-destination', tmp, '--no-audit', '--no-fund'], join(ROOT, 'packages', pkg))
    if (r.code !== 0) throw new Error(`npm pack of packages/${pkg} failed:\n${r.out}`)
    // The build's own output comes first (prepack); the pack's JSON is the rest.
    tarballs[pkg] = join(tmp, (JSON.parse(r.stdout.slice(r.stdout.search(/^\[/m))) as { filename: string }[])[0]!.filename)
  }
  project = join(tmp, 'integrator-app')
  mkdirSync(project)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'integrator-app', private: true, type: 'module' }, null, 2))
}, 180_000)

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true })
})

describe('the packed packages', () => {
  test('each tarball holds its built package and nothing of the repository', async () => {
    for (const [pkg, file] of Object.entries(tarballs)) {
      expect(existsSync(file)).toBe(true)
      const list = await sh(['tar', '-tzf', file], tmp)
      const files = list.out.trim().split('\n')
      expect(files).toContain('package/dist/index.js')
      expect(files).toContain('package/dist/index.d.ts')
      expect(files.filter((f) => !f.startsWith('package/dist/') && f !== 'package/package.json')).toEqual([])
      const manifest = JSON.parse((await sh(['tar', '-xzOf', file, 'package/package.json'], tmp)).stdout)
      expect(manifest.dependencies ?? {}).toEqual({})
      expect(manifest.name).toBe(`@portico/${pkg}`)
    }
  })

  test('install offline into a project outside the repository', async () => {
    const r = await sh(['npm', 'install', '--offline', '--no-audit', '--no-fund', '--legacy-peer-deps', tarballs.client!, tarballs.react!], project)
    expect({ code: r.code, out: r.code === 0 ? '' : r.out }).toEqual({ code: 0, out: '' })
    // React and the types the examples use, as the integrator's own dependencies (from this repository: no network).
    for (const dep of ['react', 'react-dom', 'scheduler', '@types/react', '@types/react-dom', '@types/node', 'undici-types', 'csstype']) {
      if (!existsSync(join(ROOT, 'node_modules', dep))) continue
      mkdirSync(join(project, 'node_modules', dep, '..'), { recursive: true })
      symlinkSync(join(ROOT, 'node_modules', dep), join(project, 'node_modules', dep))
    }
    expect(existsSync(join(project, 'node_modules/@portico/client/dist/index.js'))).toBe(true)
    expect(existsSync(join(project, 'node_modules/@portico/react/dist/index.js'))).toBe(true)
  }, 120_000)

  test('the five-minute examples type-check under strict, as written', async () => {
    writeFileSync(join(project, 'client-example.ts'), example('client.md', 'client'))
    writeFileSync(join(project, 'react-example.tsx'), example('react.md', 'react'))
    writeFileSync(join(project, 'render.tsx'), "import { renderToString } from 'react-dom/server'\nimport { ConnectDomain } from './react-example.js'\n\nconsole.log(renderToString(<ConnectDomain customerId=\"customer-42\" />))\n")
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', jsx: 'react-jsx', types: ['node'], lib: ['es2022', 'dom'] }, include: ['*.ts', '*.tsx'] }),
    )
    const r = await sh([join(BIN, 'tsc'), '-p', project], project)
    expect(r.out.trim()).toBe('')
    expect(r.code).toBe(0)
  }, 120_000)

  describe('the client example against a real Portico', () => {
    let p: TestPortico
    let server: { stop(force?: boolean): unknown }
    let ws: Workspace
    let port = 0
    let gate: Promise<unknown> = Promise.resolve()

    beforeAll(async () => {
      p = await startPortico({ WEBHOOK_ALLOW_LOOPBACK: '1', PORTICO_ROLE: 'all' })
      // The connection is created only once `gate` settles: the forged delivery below reaches the
      // example's webhook server before Portico's own.
      const s = Bun.serve({
        port: 0,
        hostname: '127.0.0.1',
        fetch: async (req) => {
          if (req.method === 'POST' && new URL(req.url).pathname === '/v1/connections') await gate
          return p.handle(req, '127.0.0.1')
        },
      })
      port = s.port!
      server = s
      ws = await provision(p, { environment: 'test' })
    })

    afterAll(async () => {
      await server?.stop(true)
      await p?.close()
    })

    test('runs to the connection.live webhook', async () => {
      const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
      const webhookPort = probe.port!
      probe.stop(true)
      // One forged (unsigned) POST on the example's webhook port, before Portico's delivery: it is
      // refused with a 400 and the example lives on to the real webhook.
      let forged: number | string = 'never answered'
      gate = (async () => {
        for (const until = Date.now() + 30_000; Date.now() < until; await Bun.sleep(50)) {
          try {
            forged = (await fetch(`http://127.0.0.1:${webhookPort}/portico`, { method: 'POST', body: '{"type":"connection.live"}' })).status
            return
          } catch {
            // not listening yet
          }
        }
      })()
      const r = await sh([join(BIN, 'bun'), 'client-example.ts'], project, { PORTICO_URL: `http://127.0.0.1:${port}`, PORTICO_API_KEY: ws.apiKey, WEBHOOK_PORT: String(webhookPort) }, 60_000)
      await gate
      expect(forged as number | string).toBe(400)
      expect({ code: r.code, out: r.code === 0 ? 'ok' : r.out }).toEqual({ code: 0, out: 'ok' })
      expect(r.out).toMatch(/\.live\.sandbox\.example is pending; add CNAME /)
      expect(r.out).toContain('no such connection')
      expect(r.out).toMatch(/live: shop-\d+\.live\.sandbox\.example \(1 records\)/)
      expect(r.out).toMatch(/webhook for con_\w+ received/)
    }, 90_000)
  })

  test('the React example renders with the installed packages', async () => {
    const r = await sh([join(BIN, 'bun'), 'render.tsx'], project)
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^<div id="portico-\w+"><\/div>$/m)
  }, 60_000)
})
