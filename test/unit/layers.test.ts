// The house's floors, checked. Every file's imports are read (static, re-exports and dynamic, type
// imports included) and the build fails on an import loop, on an import that looks up a floor (FLOORS),
// on an import against the rules below, on the service importing test support (a provider's
// stand-in, or the test harness), or on SQL written outside the query modules (src/db/).
// The rules are written once, here; docs/architecture.md ("The floors") and the README describe them.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'

/** One rule: files under `files` may not import anything `forbid` names (a path prefix or a package). */
interface Rule {
  files: string
  forbid: string[]
  why: string
  /** Files under `files` that the rule leaves out (server-side code beside browser code). */
  except?: string[]
  /** Only imports inside `files` are allowed (and no package but `packages`): browser code. */
  onlyWithin?: boolean
  /** Packages bundled into browser code: data, not a way to the server. */
  packages?: string[]
  /** Files browser code may import types from (type-only imports, erased from the bundle; test/unit/widget.test.ts checks they are). */
  types?: string[]
  /** Other browser code it may import (a module of no imports of its own, bundled in). */
  shares?: string[]
}

/** The operations floor's own ground: the files at src/ops/'s top that every operation uses and none names an operation. */
export const OPERATION_KIT = [
  'src/ops/agent-text.ts',
  'src/ops/authority.ts',
  'src/ops/checks.ts',
  'src/ops/cursors.ts',
  'src/ops/deadline.ts',
  'src/ops/declared.ts',
  'src/ops/events-doc.ts',
  'src/ops/examples.ts',
  'src/ops/formats.ts',
  'src/ops/registry.ts',
  'src/ops/run.ts',
  'src/ops/schemas.ts',
  'src/ops/validate.ts',
  'src/ops/widget-schemas.ts',
]

/** The list of operations (generated from the folders by `npm run generate`): the one file that imports every operation. */
export const OPERATIONS_LIST = 'src/ops/operations.ts'

const OPERATION_FILE = /^src\/ops\/[^/]+\/[^/]+\.ts$/

/**
 * Imports of an operation's own file (`src/ops/<area>/<operation>.ts`) from anywhere but the list: an
 * operation stands alone, so what two of them share lives in their area's `shared.ts`, never in one of them.
 */
export function operationFileImports(graph: Graph): string[] {
  const out: string[] = []
  for (const [file, targets] of graph) {
    if (file === OPERATIONS_LIST) continue
    for (const t of targets) if (OPERATION_FILE.test(t) && !t.endsWith('/shared.ts') && t !== file) out.push(`${file} -> ${t} (an operation's file is imported only by the list, ${OPERATIONS_LIST})`)
  }
  return out.sort()
}

/**
 * The floors, top to bottom. A file may import files of its own floor and of the floors below it,
 * never of a floor above. Each floor is some paths (a folder ends with `/`); a file is on the floor
 * of its longest matching path. The faces share a floor; RULES says which face may use which.
 */
export const FLOORS: { floor: string; paths: string[] }[] = [
  { floor: 'start', paths: ['src/main.ts'] },
  { floor: 'wiring', paths: ['src/server.ts'] },
  { floor: 'faces', paths: ['mcp/', 'oauth/', 'src/http/', 'src/widget/', 'src/share/'] },
  // The operations, one a file in src/ops/<area>/ (with the area's shared.ts), and the list of them.
  { floor: 'operations', paths: ['src/ops/'] },
  // What every operation is built with: the registry's types, the executor, schemas, checks; it knows no operation.
  { floor: 'operation kit', paths: OPERATION_KIT },
  { floor: 'services', paths: ['src/services.ts'] },
  { floor: 'jobs', paths: ['src/jobs/'] },
  { floor: 'settings', paths: ['src/config.ts'] },
  { floor: 'rules', paths: ['src/domain/'] },
  { floor: 'outside world', paths: ['src/adapters/'] },
  { floor: 'queries', paths: ['src/db/'] },
  {
    floor: 'ground',
    paths: ['src/errors.ts', 'src/ids.ts', 'src/clock.ts', 'src/lifecycle.ts', 'src/logger.ts', 'src/json.ts', 'src/metrics.ts', 'src/failpoints.ts', 'src/crypto.ts', 'src/client-address.ts', 'src/quiet-warnings.ts'],
  },
]

/** The floor index of a repository path (0 is the top), or -1 for a path on no floor. */
export function floorOf(path: string, floors = FLOORS): number {
  let best = -1
  let length = 0
  floors.forEach((f, i) => {
    for (const p of f.paths) if ((p.endsWith('/') ? path.startsWith(p) : path === p) && p.length > length) [best, length] = [i, p.length]
  })
  return best
}

/** Imports that look up a floor, as `file -> target (the X floor looks up to the Y floor)`; imports of packages are not judged here. */
export function upwardImports(graph: Graph, floors = FLOORS): string[] {
  const out: string[] = []
  for (const [file, targets] of graph) {
    const from = floorOf(file, floors)
    if (from < 0) continue
    for (const t of targets) {
      const to = floorOf(t, floors)
      if (to >= 0 && to < from) out.push(`${file} -> ${t} (the ${floors[from]!.floor} floor looks up to the ${floors[to]!.floor} floor)`)
    }
  }
  return out.sort()
}

/** Scanned files on no floor: a new folder or top-level file must be given one. */
export function floorless(graph: Graph, floors = FLOORS): string[] {
  return [...graph.keys()].filter((f) => floorOf(f, floors) < 0).sort()
}

export const RULES: Rule[] = [
  { files: 'src/domain/', forbid: ['src/http/', 'src/ops/', 'mcp/', 'oauth/', 'src/widget/', 'elysia'], why: 'rules know no transport and no face' },
  { files: 'src/domain/', forbid: ['src/config.ts'], why: 'configuration reaches rules as arguments: each rule names the settings it needs' },
  { files: 'src/db/', forbid: ['src/domain/', 'src/adapters/'], why: 'queries define the rows they read; rules and adapters stand above them' },
  { files: 'src/adapters/', forbid: ['src/domain/', 'src/config.ts'], why: 'adapters define the types they speak' },
  { files: 'src/http/', forbid: ['oauth/', 'mcp/'], why: 'the REST face is the faces\' common floor: the OAuth and MCP faces mount on it, not the other way' },
  { files: 'oauth/', forbid: ['mcp/'], why: 'the MCP face is served by the OAuth face, not the other way' },
  { files: 'src/ops/', forbid: ['src/http/', 'mcp/', 'src/widget/', 'elysia'], why: 'operations do not know which face serves them' },
  { files: 'src/jobs/', forbid: ['src/ops/', 'src/http/', 'mcp/', 'oauth/', 'src/widget/', 'elysia'], why: 'jobs run rules (src/domain/), not operations or faces' },
  { files: 'src/adapters/', forbid: ['src/ops/', 'src/http/', 'mcp/', 'oauth/', 'src/widget/', 'elysia'], why: 'adapters know nothing of the API' },
  { files: 'src/db/', forbid: ['src/ops/', 'src/http/', 'mcp/', 'oauth/', 'src/widget/', 'elysia'], why: 'queries know nothing of the API' },
  { files: 'src/errors.ts', forbid: ['src/', 'mcp/', 'oauth/', 'elysia'], why: 'the error vocabulary is the floor everyone stands on' },
  {
    files: 'src/widget/',
    except: ['src/widget/build.ts', 'src/widget/route.ts'],
    forbid: [],
    onlyWithin: true,
    packages: ['simple-icons'],
    types: ['src/ops/widget-schemas.ts'],
    why: 'browser code talks HTTP only (it is bundled alone; build.ts and route.ts are its server side)',
  },
  { files: 'src/share/client.ts', forbid: [], onlyWithin: true, shares: ['src/widget/fill.ts'], why: 'the share page\'s script talks HTTP only (bundled alone by src/share/page.ts)' },
]

/**
 * Test support kept beside what it stands in for: a hosted provider's stand-in
 * (src/adapters/dns-providers/<id>/stand-in.ts) lives in the provider's folder, as lego keeps
 * provider_test.go beside its provider. The service never loads one: only the test harness (test/, not
 * scanned here) and other stand-ins import a stand-in, and only a stand-in imports the test harness.
 */
export const isTestSupport = (file: string) => /(^|\/)stand-in\.ts$/.test(file)

/** Imports of test support by the service, as `file -> target (why)`. */
export function testSupportImports(graph: Graph): string[] {
  const out: string[] = []
  for (const [file, targets] of graph) {
    if (isTestSupport(file)) continue
    for (const t of targets) {
      if (isTestSupport(t)) out.push(`${file} -> ${t} (a stand-in is test support: only the test harness and other stand-ins import it)`)
      else if (t.startsWith('test/')) out.push(`${file} -> ${t} (the service imports nothing of the test harness; only a stand-in does)`)
    }
  }
  return out.sort()
}

/** SQL is written only in the query modules; operations, jobs, rules, adapters and faces call them. */
export const SQL_ONLY_UNDER = 'src/db/'

/**
 * Operations files whose SQL has not been moved to query modules yet (issue 18 moved them one file per
 * commit, starting with the ones other branches were least likely to touch). Empty it file by file.
 */
export const SQL_NOT_YET_MOVED: string[] = []

const ROOT = normalize(join(import.meta.dir, '../..'))
const SCANNED = ['src', 'oauth', 'mcp']

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`
    if (e.isDirectory()) return sourceFiles(p)
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : []
  })
}

/** The code without comments (a commented-out import is no import); strings are kept. */
export function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g

/** What a file imports: repository paths for relative imports, package names otherwise. */
export function importsOf(file: string, code: string): string[] {
  const out: string[] = []
  for (const m of stripComments(code).matchAll(IMPORT)) {
    const spec = m[1] ?? m[2] ?? m[3]!
    if (spec.startsWith('.')) out.push(relative(ROOT, join(ROOT, dirname(file), spec)))
    else out.push(spec.startsWith('node:') || spec.startsWith('bun:') ? spec : spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'))
  }
  return out
}

export type Graph = Map<string, string[]>

export function readGraph(): Graph {
  const graph: Graph = new Map()
  for (const f of SCANNED.flatMap(sourceFiles)) graph.set(f, importsOf(f, readFileSync(join(ROOT, f), 'utf8')))
  return graph
}

const matches = (target: string, prefix: string) => (prefix.endsWith('/') || prefix.endsWith('.ts') ? target.startsWith(prefix) : target === prefix)

/** Imports that break a rule, as `file -> target (why)`. */
export function violations(graph: Graph, rules: Rule[] = RULES): string[] {
  const out: string[] = []
  for (const [file, targets] of graph) {
    for (const rule of rules) {
      if (!file.startsWith(rule.files) || rule.except?.includes(file)) continue
      for (const t of targets) {
        const bad = rule.onlyWithin ? (!t.startsWith(rule.files) && !rule.packages?.includes(t) && !rule.types?.includes(t) && !rule.shares?.includes(t)) || !!rule.except?.includes(t) : rule.forbid.some((p) => matches(t, p))
        if (bad) out.push(`${file} -> ${t} (${rule.why})`)
      }
    }
  }
  return out.sort()
}

/** Import loops among the files (strongly connected components of more than one file, or a self-import). */
export function loops(graph: Graph): string[][] {
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const on = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    on.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = []
      let w: string
      do {
        w = stack.pop()!
        on.delete(w)
        scc.push(w)
      } while (w !== v)
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort())
    }
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

/** Rules whose `files` names no file of the tree: a renamed folder would leave its rule checking nothing. */
export function idleRules(graph: Graph, rules: Rule[] = RULES): string[] {
  return rules.filter((r) => ![...graph.keys()].some((f) => f.startsWith(r.files) && !r.except?.includes(f))).map((r) => r.files)
}

/** Files listed as still holding SQL that hold none (the listing outlived the move). */
export function staleSqlListings(read: (f: string) => string, listed: string[] = SQL_NOT_YET_MOVED): string[] {
  return listed.filter((f) => sqlStatements(read(f)).length === 0)
}

const readRepo = (f: string) => readFileSync(join(ROOT, f), 'utf8')

/** The database's clock read in a file's SQL (`now()`, `current_timestamp`, ...): rules and queries take time from the injected clock. */
export function databaseClockReads(code: string): string[] {
  const statements = [...stripComments(code).matchAll(/(?:^|[^\w$.])(?:[\w$]+\.)*(?:sql|tx|db|trx)\s*`((?:[^`\\]|\\.)*)`/g)].map((m) => m[1]!)
  // What is inside `${…}` is JavaScript, not SQL.
  return statements.flatMap((q) => [...q.replace(/\$\{[^}]*\}/g, '').matchAll(/(?<![.\w])(now\(\)|current_timestamp|localtimestamp|clock_timestamp\(\)|statement_timestamp\(\)|transaction_timestamp\(\))/gi)].map((m) => m[1]!))
}

/** Where time must come from the injected clock (src/clock.ts), so lifecycle rules are tested by moving time. */
export const CLOCKED = ['src/domain/', 'src/db/', 'src/ops/', 'src/jobs/']
/**
 * The migration runner stamps when a migration ran: the database's own time is the truth there. The
 * authorization server's store (oidc-provider's adapter has no clock: its expiry is real time) and the
 * ACME client's account and HTTP-01 answers (the CA's time) read the database's time too.
 */
export const DATABASE_TIME_ALLOWED = ['src/db/migrate.ts', 'src/db/oauth-store.ts', 'src/db/acme.ts']

/**
 * SQL written in a file: a tagged template on a database handle (`sql`, `tx`, `db`, `ctx.sql` …),
 * `.unsafe(`, or any tagged template (`lock`, `leaseHandle(db)` …) whose text starts as a statement.
 */
export function sqlStatements(code: string): string[] {
  const text = stripComments(code)
  const handles = [...text.matchAll(/(?:^|[^\w$.])((?:[\w$]+\.)*(?:sql|tx|db|trx)\s*`)|(\.unsafe\s*\()/g)].map((m) => (m[1] ?? m[2])!)
  const statements = [...text.matchAll(/([\w$)\]])`\s*(select\b|insert\s+into\b|update\s+[\w."]+\s+(?:as\s+\w+\s+|\w+\s+)?set\b|delete\s+from\b|with\s+\w+\s+as\s*\(|set\s+local\b|truncate\b|notify\b|listen\b)/gi)]
    .filter((m) => !/(?:^|[^\w$.])(?:[\w$]+\.)*(?:sql|tx|db|trx)\s*$/.test(text.slice(0, m.index! + 1)))
    .map((m) => `${m[1]}\` ${m[2]!.split(/\s/)[0]!.toLowerCase()}`)
  return [...handles, ...statements]
}

describe('layers', () => {
  const graph = readGraph()

  test('the scan sees the tree', () => {
    expect(graph.size).toBeGreaterThan(100)
    expect(graph.get('src/server.ts')).toContain('src/ops/index.ts')
  })

  test('every rule checks files that exist', () => {
    expect(idleRules(graph)).toEqual([])
  })

  test('no import breaks a layer rule', () => {
    // The rules see imports to judge: every folder they guard imports something.
    for (const r of RULES.filter((r) => r.files.endsWith('/'))) expect({ floor: r.files, imports: [...graph].filter(([f]) => f.startsWith(r.files)).flatMap(([, t]) => t).length > 0 }).toEqual({ floor: r.files, imports: true })
    expect(violations(graph)).toEqual([])
  })

  test('the service loads no stand-in and nothing of the test harness', () => {
    // The check sees what it judges: every hosted provider's folder has its stand-in, which imports the harness.
    const standIns = [...graph.keys()].filter(isTestSupport)
    expect(standIns.length).toBeGreaterThan(30)
    expect(standIns.filter((f) => !graph.get(f)!.some((t) => t.startsWith('test/harness/')))).toEqual([])
    expect(testSupportImports(graph)).toEqual([])
  })

  test('no import loops', () => {
    expect(loops(graph)).toEqual([])
  })

  test('operations are one a file in src/ops/<area>/: none imports another, the kit imports none', () => {
    const files = [...graph.keys()].filter((f) => OPERATION_FILE.test(f) && !f.endsWith('/shared.ts'))
    expect(files.length).toBeGreaterThan(90)
    expect(graph.get(OPERATIONS_LIST)!.filter((t) => OPERATION_FILE.test(t)).sort()).toEqual(files.sort())
    expect(operationFileImports(graph)).toEqual([])
    // Every kit file exists (a renamed one would leave the list judging nothing) and sits below the operations.
    for (const f of OPERATION_KIT) expect({ f, scanned: graph.has(f) }).toEqual({ f, scanned: true })
  })

  test('no import looks up a floor, and every file is on one', () => {
    expect(floorless(graph)).toEqual([])
    // Every floor holds files, so a renamed folder cannot leave its floor judging nothing.
    expect(FLOORS.filter((f) => ![...graph.keys()].some((file) => f.paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)))).map((f) => f.floor)).toEqual([])
    expect(upwardImports(graph)).toEqual([])
  })

  test('no SQL is written outside the query modules (src/db/)', () => {
    const scanned = [...graph.keys()].filter((f) => !f.startsWith(SQL_ONLY_UNDER) && !SQL_NOT_YET_MOVED.includes(f))
    // Operations, jobs, rules, adapters and every face are scanned.
    for (const floor of ['src/ops/', 'src/jobs/', 'src/domain/', 'src/adapters/', 'src/http/', 'oauth/', 'mcp/']) expect({ floor, scanned: scanned.some((f) => f.startsWith(floor)) }).toEqual({ floor, scanned: true })
    // The scan finds SQL where it is written (the query modules), so finding none elsewhere means something.
    expect([...graph.keys()].filter((f) => f.startsWith(SQL_ONLY_UNDER)).flatMap((f) => sqlStatements(readRepo(f))).length).toBeGreaterThan(200)
    expect(scanned.flatMap((f) => sqlStatements(readRepo(f)).map((s) => `${f}: ${s}`))).toEqual([])
  })

  test('rules take time from the injected clock, not the database', () => {
    const files = [...graph.keys()].filter((f) => CLOCKED.some((d) => f.startsWith(d)) && !DATABASE_TIME_ALLOWED.includes(f))
    expect(files.length).toBeGreaterThan(80)
    expect(files.flatMap((f) => databaseClockReads(readRepo(f)).map((r) => `${f}: ${r}`))).toEqual([])
  })

  test('the files still holding SQL are listed only while they do', () => {
    expect(staleSqlListings(readRepo)).toEqual([])
  })
})

// The test of the test: the same checks on synthetic trees must fail where they should.
describe('the layer checks catch what they are for', () => {
  test('a rule file importing the HTTP floor is a violation', () => {
    const g: Graph = new Map([
      ['src/domain/x.ts', importsOf('src/domain/x.ts', "import { ApiError } from '../http/errors2.ts'\nimport { Elysia } from 'elysia'")],
      ['src/http/errors2.ts', []],
    ])
    expect(violations(g)).toEqual([
      'src/domain/x.ts -> elysia (rules know no transport and no face)',
      'src/domain/x.ts -> src/http/errors2.ts (rules know no transport and no face)',
    ])
  })

  test('operations importing a face, adapters importing operations, browser code importing the server', () => {
    const g: Graph = new Map([
      ['src/ops/a.ts', importsOf('src/ops/a.ts', "import type { Mount } from '../http/app.ts'")],
      ['src/adapters/b.ts', importsOf('src/adapters/b.ts', "export { x } from '../ops/registry.ts'")],
      ['src/widget/flow.ts', importsOf('src/widget/flow.ts', "const m = await import('../domain/share.ts')")],
      ['src/widget/route.ts', importsOf('src/widget/route.ts', "import { buildRouter } from '../http/app.ts'")],
    ])
    expect(violations(g)).toEqual([
      'src/adapters/b.ts -> src/ops/registry.ts (adapters know nothing of the API)',
      'src/ops/a.ts -> src/http/app.ts (operations do not know which face serves them)',
      'src/widget/flow.ts -> src/domain/share.ts (browser code talks HTTP only (it is bundled alone; build.ts and route.ts are its server side))',
    ])
  })

  test('a stand-in imported by the service, or the harness imported by anything but a stand-in, is found', () => {
    const g: Graph = new Map([
      ['src/adapters/dns-providers/acme/adapter.ts', importsOf('src/adapters/dns-providers/acme/adapter.ts', "import type { AcmeFake } from './stand-in.ts'")],
      ['src/domain/x.ts', importsOf('src/domain/x.ts', "import { nextId } from '../../test/harness/provider-fakes/common.ts'")],
      ['src/adapters/dns-providers/acme/stand-in.ts', importsOf('src/adapters/dns-providers/acme/stand-in.ts', "import { json } from '../../../../test/harness/provider-fakes/common.ts'\nimport { seed } from '../other/stand-in.ts'\nimport { acme } from './card.ts'")],
      ['src/adapters/dns-providers/acme/card.ts', importsOf('src/adapters/dns-providers/acme/card.ts', "import { defineCard } from '../card-types.ts'")],
    ])
    expect(testSupportImports(g)).toEqual([
      'src/adapters/dns-providers/acme/adapter.ts -> src/adapters/dns-providers/acme/stand-in.ts (a stand-in is test support: only the test harness and other stand-ins import it)',
      'src/domain/x.ts -> test/harness/provider-fakes/common.ts (the service imports nothing of the test harness; only a stand-in does)',
    ])
  })

  test('the real tree with a stand-in added to the provider registry fails', () => {
    const g = readGraph()
    const registry = 'src/adapters/dns-providers/registry.generated.ts'
    expect(g.get(registry)!.length).toBeGreaterThan(30)
    g.set(registry, [...g.get(registry)!, 'src/adapters/dns-providers/dynu/stand-in.ts'])
    expect(testSupportImports(g)).toEqual([`${registry} -> src/adapters/dns-providers/dynu/stand-in.ts (a stand-in is test support: only the test harness and other stand-ins import it)`])
  })

  test('a commented-out import is no import', () => {
    expect(importsOf('src/domain/x.ts', "// import { a } from '../http/app.ts'\n/* import b from 'elysia' */")).toEqual([])
  })

  test('a loop is found, through three files and through a type-only import', () => {
    const g: Graph = new Map([
      ['src/domain/a.ts', importsOf('src/domain/a.ts', "import type { B } from './b.ts'")],
      ['src/domain/b.ts', importsOf('src/domain/b.ts', "import { c } from './c.ts'")],
      ['src/domain/c.ts', importsOf('src/domain/c.ts', "export * from './a.ts'")],
      ['src/domain/d.ts', importsOf('src/domain/d.ts', "import { a } from './a.ts'")],
    ])
    expect(loops(g)).toEqual([['src/domain/a.ts', 'src/domain/b.ts', 'src/domain/c.ts']])
  })

  test('SQL in an operation is found', () => {
    expect(sqlStatements('const [r] = await ctx.sql`select 1`')).toEqual(['ctx.sql`'])
    expect(sqlStatements('await tx`update t set a = 1`; db.unsafe(q)')).toEqual(['tx`', '.unsafe('])
    expect(sqlStatements("description: 'answers `conflict` when `ctx` is used'")).toEqual([])
  })

  test('SQL behind any tag is found, a template that is not a statement is not', () => {
    expect(sqlStatements('await leaseHandle(deps.db)`update connections set rail_lease_until = null`')).toEqual([')` update'])
    expect(sqlStatements('const [{ held }] = await lock`select pg_try_advisory_lock(${key}) as held`')).toEqual(['k` select'])
    expect(sqlStatements('await deps.db`select 1`')).toEqual(['deps.db`'])
    expect(sqlStatements('const t = `${prefix}_01` + html`<p>update your settings</p>`')).toEqual([])
    expect(sqlStatements('// await lock`select 1`')).toEqual([])
  })

  test('SQL added to a real rule or job is found by the same scan', () => {
    for (const f of ['src/domain/lifecycle.ts', 'src/jobs/verify-sweep.ts', 'src/adapters/acme.ts', 'oauth/people.ts']) {
      expect(sqlStatements(readRepo(f))).toEqual([])
      expect(sqlStatements(readRepo(f) + '\nawait deps.db`delete from monitor_state`')).toEqual(['deps.db`'])
    }
  })

  test('an import that looks up a floor is found: queries or adapters reading rules, rules reading settings, the ground reading anything', () => {
    const g: Graph = new Map([
      ['src/db/webhooks.ts', importsOf('src/db/webhooks.ts', "import type { AttemptRecord } from '../domain/webhook-delivery.ts'")],
      ['src/adapters/resolver.ts', importsOf('src/adapters/resolver.ts', "import type { Dns } from '../domain/dns.ts'")],
      ['src/domain/sell.ts', importsOf('src/domain/sell.ts', "import type { Config } from '../config.ts'\nimport { insertOrder } from '../db/sell-orders.ts'")],
      ['src/config.ts', importsOf('src/config.ts', "import { trustedProxies } from '../oauth/client-address.ts'")],
      ['src/ids.ts', importsOf('src/ids.ts', "import type { Sql } from './db/sql.ts'")],
      ['src/services.ts', importsOf('src/services.ts', "import type { FailureThrottle } from './http/throttle.ts'")],
      ['src/ops/agents.ts', importsOf('src/ops/agents.ts', "import { GRANT_TTL_S } from '../../oauth/provider.ts'")],
      ['src/http/auth.ts', importsOf('src/http/auth.ts', "import { presentation } from '../../oauth/dpop.ts'")],
    ])
    expect(upwardImports(g)).toEqual([
      'src/adapters/resolver.ts -> src/domain/dns.ts (the outside world floor looks up to the rules floor)',
      'src/config.ts -> oauth/client-address.ts (the settings floor looks up to the faces floor)',
      'src/db/webhooks.ts -> src/domain/webhook-delivery.ts (the queries floor looks up to the rules floor)',
      'src/domain/sell.ts -> src/config.ts (the rules floor looks up to the settings floor)',
      'src/ids.ts -> src/db/sql.ts (the ground floor looks up to the queries floor)',
      'src/ops/agents.ts -> oauth/provider.ts (the operations floor looks up to the faces floor)',
      'src/services.ts -> src/http/throttle.ts (the services floor looks up to the faces floor)',
    ])
    // The faces share a floor; which face may use which is a rule.
    expect(violations(g).filter((v) => !v.includes('looks up'))).toEqual([
      'src/adapters/resolver.ts -> src/domain/dns.ts (adapters define the types they speak)',
      'src/db/webhooks.ts -> src/domain/webhook-delivery.ts (queries define the rows they read; rules and adapters stand above them)',
      'src/domain/sell.ts -> src/config.ts (configuration reaches rules as arguments: each rule names the settings it needs)',
      'src/http/auth.ts -> oauth/dpop.ts (the REST face is the faces\' common floor: the OAuth and MCP faces mount on it, not the other way)',
    ])
  })

  test('a file on no floor is found, and the longest path decides a file\'s floor', () => {
    const g: Graph = new Map([
      ['src/plugins/x.ts', []],
      ['src/domain/x.ts', []],
    ])
    expect(floorless(g)).toEqual(['src/plugins/x.ts'])
    expect(FLOORS[floorOf('src/domain/domain-connect/apply.ts')]!.floor).toBe('rules')
    expect(FLOORS[floorOf('src/server.ts')]!.floor).toBe('wiring')
    expect(floorOf('src/serverless.ts')).toBe(-1)
  })

  test('the real tree with a deliberately added upward import fails', () => {
    const g = readGraph()
    g.set('src/db/connections.ts', [...g.get('src/db/connections.ts')!, 'src/domain/lifecycle.ts'])
    g.set('src/domain/apply.ts', [...g.get('src/domain/apply.ts')!, 'src/jobs/lanes.ts'])
    expect(upwardImports(g)).toEqual([
      'src/db/connections.ts -> src/domain/lifecycle.ts (the queries floor looks up to the rules floor)',
      'src/domain/apply.ts -> src/jobs/lanes.ts (the rules floor looks up to the jobs floor)',
    ])
  })

  test('a job taking its repair rail from the operations floor is a violation', () => {
    const g: Graph = new Map([['src/jobs/monitor-sweep.ts', importsOf('src/jobs/monitor-sweep.ts', "import { managedRepairRail } from '../ops/rails.ts'")]])
    expect(violations(g)).toEqual(['src/jobs/monitor-sweep.ts -> src/ops/rails.ts (jobs run rules (src/domain/), not operations or faces)'])
  })

  test('an operation importing another operation, or the kit importing one, is found', () => {
    const g: Graph = new Map([
      ['src/ops/connect/recheck.ts', importsOf('src/ops/connect/recheck.ts', "import { ConnectionSchema } from './shared.ts'\nimport { getConnectionOp } from './get-connection.ts'")],
      ['src/ops/run.ts', importsOf('src/ops/run.ts', "import { recheckOp } from './connect/recheck.ts'")],
      [OPERATIONS_LIST, importsOf(OPERATIONS_LIST, "import { recheckOp } from './connect/recheck.ts'")],
    ])
    expect(operationFileImports(g)).toEqual([
      "src/ops/connect/recheck.ts -> src/ops/connect/get-connection.ts (an operation's file is imported only by the list, src/ops/operations.ts)",
      "src/ops/run.ts -> src/ops/connect/recheck.ts (an operation's file is imported only by the list, src/ops/operations.ts)",
    ])
    expect(upwardImports(g)).toEqual(['src/ops/run.ts -> src/ops/connect/recheck.ts (the operation kit floor looks up to the operations floor)'])
  })

  test('a rule over a folder that is gone is idle', () => {
    const g = readGraph()
    expect(idleRules(g, [...RULES, { files: 'src/services/', forbid: ['src/http/'], why: 'a renamed floor' }])).toEqual(['src/services/'])
  })

  test('a listing of a file without SQL is stale', () => {
    const files: Record<string, string> = {
      'src/ops/moved.ts': 'export const op = defineOp({ handler: (ctx) => moved(ctx.sql) })',
      'src/ops/still.ts': 'await ctx.sql`select 1`',
    }
    const read = (f: string) => files[f]!
    expect(staleSqlListings(read, ['src/ops/moved.ts', 'src/ops/still.ts'])).toEqual(['src/ops/moved.ts'])
  })

  test('the database clock is found in SQL, and a clock method or a Date is not', () => {
    expect(databaseClockReads('await tx`update webhooks set disabled_at = now() where id = ${id}`')).toEqual(['now()'])
    expect(databaseClockReads('sql`select 1 where expires_at > CURRENT_TIMESTAMP`')).toEqual(['CURRENT_TIMESTAMP'])
    expect(databaseClockReads('const now = () => deps.clock.now(); now(); Date.now(); sql`select ${now()}`')).toEqual([])
  })

  test('SQL added to a real operation is found by the same scan', () => {
    const f = 'src/ops/api-rail/reapply.ts'
    expect(sqlStatements(readRepo(f))).toEqual([])
    expect(sqlStatements(readRepo(f) + '\nawait ctx.db`update connections set managed = false`')).toEqual(['ctx.db`'])
  })

  test('the real tree with a deliberately added forbidden import fails', () => {
    const g = readGraph()
    g.set('src/domain/lifecycle.ts', [...g.get('src/domain/lifecycle.ts')!, 'src/http/app.ts'])
    expect(violations(g)).toContain('src/domain/lifecycle.ts -> src/http/app.ts (rules know no transport and no face)')
  })
})
