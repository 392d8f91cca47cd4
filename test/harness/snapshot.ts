// The one snapshot helper: what users see (the OpenAPI document under test/snapshots/, each MCP tool
// under mcp/__toolsnaps__/<tool>.json) is committed, so a renamed field or tool shows as a diff in
// review. A mismatch fails with the changed leaves, one line each (`~ path: old → new`, `- path: old`,
// `+ path: new`); key order is not a change. `npm run generate` (or `UPDATE_SNAPSHOTS=1` on a test
// run) rewrites the files after a deliberate change. A missing snapshot is written on a developer's machine, and refused in CI
// (`CI` set): there a missing file means a snapshot that was never committed, and writing it would
// pass a test that compared nothing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

const ROOT = join(import.meta.dir, '../..')
const MAX_LINES = 60

/** Every leaf of a JSON value as `path → JSON text`, in document order. */
function leaves(value: unknown, path = '$', out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`, out)
  } else out.set(path, JSON.stringify(value))
  return out
}

/** The differences between two JSON values, readable: empty when they are equal (key order aside). */
export function jsonDiff(before: unknown, after: unknown): string[] {
  const a = leaves(before)
  const b = leaves(after)
  const lines: string[] = []
  for (const [p, v] of a) {
    if (!b.has(p)) lines.push(`- ${p}: ${v}`)
    else if (b.get(p) !== v) lines.push(`~ ${p}: ${v} → ${b.get(p)}`)
  }
  for (const [p, v] of b) if (!a.has(p)) lines.push(`+ ${p}: ${v}`)
  return lines
}

export interface SnapshotEnv {
  UPDATE_SNAPSHOTS?: string
  CI?: string
}

const inCi = (env: SnapshotEnv) => !!env.CI && env.CI !== '0' && env.CI !== 'false'

/**
 * Compares `value` with the committed snapshot `file` (a path from the repository root); throws a
 * readable diff. Writes the file with UPDATE_SNAPSHOTS=1, or when it is missing outside CI.
 */
export function matchSnapshot(file: string, value: unknown, env: SnapshotEnv = process.env as SnapshotEnv): void {
  const path = join(ROOT, file)
  const text = JSON.stringify(value, null, 2) + '\n'
  const exists = existsSync(path)
  if (inCi(env) && (!exists || env.UPDATE_SNAPSHOTS === '1')) {
    throw new Error(`${exists ? 'Snapshots are not rewritten' : `No snapshot ${file}`} in CI: run npm run generate on your machine and commit ${file}`)
  }
  if (env.UPDATE_SNAPSHOTS === '1' || !exists) {
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, text)
    return
  }
  const saved = readFileSync(path, 'utf8')
  if (saved === text) return
  const diff = jsonDiff(JSON.parse(saved), JSON.parse(text))
  if (diff.length === 0) return
  const shown = diff.length > MAX_LINES ? [...diff.slice(0, MAX_LINES), `… and ${diff.length - MAX_LINES} more`] : diff
  throw new Error(
    `${file} differs (${diff.length} change${diff.length === 1 ? '' : 's'}):\n` +
      shown.join('\n') +
      '\nIf the change is meant, regenerate with npm run generate and commit the snapshot with it.',
  )
}
