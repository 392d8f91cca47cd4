// Every file a test reads is in the repository: a test that reads a document from elsewhere on one
// machine passes there and fails everywhere else. Test sources may name absolute paths only where the
// Debian packages scripts/test.sh installs put their files (`/usr/`) and scratch space (`/tmp`);
// anything the project owns is read relative to the test (`import.meta.dir`), from test/fixtures/.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '../..')
const ALLOWED = ['/usr/', '/tmp', '/dev/null', '/proc/']

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'fixtures' || e.name === 'snapshots' ? [] : sources(`${dir}/${e.name}`)) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : [],
  )
}

const FILE_CALL = /(?:\b(?:readFileSync|readdirSync|existsSync|statSync|openSync|createReadStream|readFile|Bun\.file)|(?<![.\w])(?:join|resolve))\(\s*['"`](\/[^'"`$]*)/g
const HOME = /['"`]((?:\/work|\/home|\/root|\/Users)\/[^'"`$]*)/g

/**
 * Absolute paths a source reads files from (a literal given to a file call) outside the allowed system
 * locations, and any path into a machine's home or work folders, however it is used.
 */
export function foreignPaths(code: string): string[] {
  const read = [...code.matchAll(FILE_CALL)].map((m) => m[1]!).filter((p) => !ALLOWED.some((a) => p === a || p === a.replace(/\/$/, '') || p.startsWith(a.endsWith('/') ? a : `${a}/`)))
  const homes = [...code.matchAll(HOME)].map((m) => m[1]!)
  return [...new Set([...read, ...homes])]
}

describe('tests read files of the repository', () => {
  // A provider's stand-in and reference card are test support kept in its folder (src/adapters/dns-providers/<id>/).
  const files = [...sources('test'), ...sources('bench'), ...sources('src/adapters/dns-providers').filter((f) => /\/(stand-in|card)\.ts$/.test(f))]

  test('the scan sees the tests', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files).toContain('test/unit/widget.test.ts')
    expect(files).toContain('src/adapters/dns-providers/dynu/stand-in.ts')
  })

  test('no test names a path outside the repository and the system packages', () => {
    // This file names such paths on purpose, as the examples its own last test checks.
    expect(files.filter((f) => f !== 'test/unit/test-sources.test.ts').flatMap((f) => foreignPaths(readFileSync(join(ROOT, f), 'utf8')).map((p) => `${f}: ${p}`))).toEqual([])
  })

  test('the scan catches a document read from another checkout, and lets system files and URL paths be', () => {
    // The examples are put together here, so this file itself reads nothing from elsewhere.
    const call = (fn: string, q: string, path: string, rest = '') => `${fn}(${q}${path}${q}${rest})`
    expect(foreignPaths(call('readFileSync', "'", '/work/shared/CONTRACT.md', ", 'utf8'"))).toEqual(['/work/shared/CONTRACT.md'])
    expect(foreignPaths(call('Bun.file', '`', '/home/me/notes.json'))).toEqual(['/home/me/notes.json'])
    expect(foreignPaths("const DOC = '/work/shared/DESIGN.md'")).toEqual(['/work/shared/DESIGN.md'])
    expect(foreignPaths(call('readFileSync', "'", '/srv/contract.md'))).toEqual(['/srv/contract.md'])
    expect(foreignPaths("readFileSync('/usr/share/doc/x.sql'); mkdtemp('/tmp/x'); fetch(`${base}/v1/connections`); '/v2/whoami'; parts.join('/')")).toEqual([])
  })
})
