// `npm run generate`: rewrites every file derived from the code, without a database:
// - src/ops/operations.ts, the registry's list, from the operation files (scripts/operations-registry.ts);
// - test/snapshots/openapi.json, the served OpenAPI document;
// - mcp/__toolsnaps__/<tool>.json, each MCP tool as tools/list describes it to a token holding every
//   agent scope, one file per tool (what test/integration/mcp-tools.test.ts checks through both protocol
//   revisions); the file of a tool that is gone is deleted;
// - docs/authority-matrix.md, docs/events.md, docs/providers/README.md;
// - packages/client/src/generated/ (types from the OpenAPI document), packages/react/src/widget-types.ts;
// - the generated regions of hand-written documents (`<!-- generated: NAME -->…<!-- /generated -->`):
//   counts and lists of locales, adapters and providers, the providers-by-rail table, toolset sizes.
// Prints the files it changed; with `--check`, changes nothing and exits 1 naming the stale files.
// .ci/run runs it and fails when the committed files are not what it writes. The registry's list is
// written first and everything else is loaded after it (scripts/derived.ts), so an operation file added
// or deleted is served in the same run.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { OPERATIONS_FILE, operationsModule, readPrevious } from './operations-registry.ts'

const ROOT = join(import.meta.dir, '..')

function read(file: string): string | null {
  try {
    return readFileSync(join(ROOT, file), 'utf8')
  } catch {
    return null
  }
}

if (import.meta.main) {
  const started = performance.now()
  const check = process.argv.includes('--check')
  const registry = operationsModule(ROOT, readPrevious(ROOT))
  const listed: [string, string][] = read(OPERATIONS_FILE) === registry ? [] : [[OPERATIONS_FILE, registry]]
  if (!check && listed.length) writeFileSync(join(ROOT, OPERATIONS_FILE), registry)
  const { derivedFiles, staleToolSnapshots } = await import('./derived.ts')
  const files = await derivedFiles()
  const stale = staleToolSnapshots()
  const changed: [string, string | null][] = [...listed, ...Object.entries(files).filter(([file, text]) => file !== OPERATIONS_FILE && read(file) !== text), ...stale.map((f): [string, null] => [f, null])]
  if (!check) for (const [file, text] of changed) text === null ? rmSync(join(ROOT, file)) : writeFileSync(join(ROOT, file), text)
  const took = `${Math.round(performance.now() - started)} ms`
  if (changed.length === 0) console.log(`generate: ${Object.keys(files).length} derived files, all current (${took})`)
  else if (check) {
    console.error(`generate: stale, run npm run generate and commit:\n${changed.map(([f]) => `  ${f}`).join('\n')}`)
    process.exit(1)
  } else console.log(`generate: rewrote ${changed.length} of ${Object.keys(files).length} derived files (${took}):\n${changed.map(([f, text]) => `  ${f}${text === null ? ' (deleted)' : ''}`).join('\n')}`)
}
