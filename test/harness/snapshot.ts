// Snapshots of what users see (the OpenAPI document, MCP tools/list), committed under test/snapshots/
// so a renamed field or tool shows as a diff in review. A mismatch fails with the changed leaves, one
// line each (`~ path: old → new`, `- path: old`, `+ path: new`); UPDATE_SNAPSHOTS=1 rewrites the files.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const DIR = join(import.meta.dir, '../snapshots')
const MAX_LINES = 60

/** Every leaf of a JSON value as `path → JSON text`, in document order. */
function leaves(value: unknown, path = '$', out = new Map<string, string>()): Map<string, string> {
  if (value !== null && typeof value === 'object' && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leaves(v, Array.isArray(value) ? `${path}[${k}]` : `${path}.${k}`, out)
  } else out.set(path, JSON.stringify(value))
  return out
}

/** The differences between two JSON values, readable: empty when they are equal. */
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

/** Compares `value` with test/snapshots/<name>.json; throws a readable diff, or rewrites it with UPDATE_SNAPSHOTS=1. */
export function matchSnapshot(name: string, value: unknown): void {
  const file = join(DIR, `${name}.json`)
  const text = JSON.stringify(value, null, 2) + '\n'
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    writeFileSync(file, text)
    return
  }
  if (!existsSync(file)) throw new Error(`No snapshot test/snapshots/${name}.json yet: run the test with UPDATE_SNAPSHOTS=1 and commit the file`)
  const saved = readFileSync(file, 'utf8')
  if (saved === text) return
  const diff = jsonDiff(JSON.parse(saved), JSON.parse(text))
  const shown = diff.length > MAX_LINES ? [...diff.slice(0, MAX_LINES), `… and ${diff.length - MAX_LINES} more`] : diff
  throw new Error(
    `${name} differs from test/snapshots/${name}.json (${diff.length || 'order or formatting'} change${diff.length === 1 ? '' : 's'}):\n` +
      shown.join('\n') +
      '\nIf the change is meant, regenerate with UPDATE_SNAPSHOTS=1 and commit the snapshot with it.',
  )
}
