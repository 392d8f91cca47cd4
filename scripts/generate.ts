// `npm run generate`: rewrites every file derived from the code, in one process, without a database:
// - test/snapshots/openapi.json, the served OpenAPI document;
// - mcp/__toolsnaps__/<tool>.json, each MCP tool as tools/list describes it to a token holding every
//   agent scope, one file per tool (what test/integration/mcp-tools.test.ts checks through both protocol
//   revisions); the file of a tool that is gone is deleted;
// - src/ops/operations.ts, the registry's list, from the operation files (scripts/operations-registry.ts:
//   `npm run generate` writes it first, in a process of its own, so what follows serves the list as written);
// - the provider registries, from the provider folders (scripts/provider-registry.ts: `npm run generate`
//   writes them first, in a process of its own, so what follows reads the registry as written);
// - docs/authority-matrix.md, docs/events.md, docs/providers/README.md;
// - test/snapshots/event-types.json, the published event types (scripts/event-types.ts): it only grows,
//   and generate refuses, naming them, to drop a type already published;
// - packages/client/src/generated/ (types from the OpenAPI document), packages/react/src/widget-types.ts;
// - src/widget/locales/tags.ts and index.ts, the locale lists, from the locale files (scripts/locales.ts);
// - the generated regions of hand-written documents (`<!-- generated: NAME -->…<!-- /generated -->`):
//   counts and lists of locales, adapters and providers, the providers-by-rail table, toolset sizes and
//   each tool's annotations, the provider recordings,
//   each test-mode scenario's events (from the transition table).
// Prints the files it changed; with `--check`, changes nothing and exits 1 naming the stale files.
// .ci/run runs it and fails when the committed files are not what it writes.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import '../src/quiet-warnings.ts'
import { OPERATIONS } from '../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../src/http/openapi.ts'
import type { AnyOp } from '../src/ops/registry.ts'
import { authorityMarkdown } from '../src/ops/authority.ts'
import { eventsMarkdown } from '../src/ops/events-doc.ts'
import { parityCensus, PROVIDERS, type Provider } from '../src/domain/providers.ts'
import { HOSTED } from '../src/adapters/dns-providers/index.ts'
import { localeFiles, localeTagsOnDisk } from './locales.ts'
import { eventTypesFile, parsePublished, PUBLISHED_EVENT_TYPES } from './event-types.ts'
import { EVENT_TYPES } from '../src/domain/events.ts'
import { directionOf } from '../src/widget/locale.ts'
import { SCENARIOS } from '../src/domain/test-mode.ts'
import { buildTools } from '../mcp/tools.ts'
import { TOOLSETS, type Toolset } from '../mcp/toolsets.ts'
import { toolsetTokens } from './mcp-tool-tokens.ts'
import { renderProviderDocs } from '../test/harness/provider-cards/render.ts'
import { registryFiles, writeRegistries } from './provider-registry.ts'
import { operationsFile, writeOperations } from './operations-registry.ts'
import { generate as clientFiles, servedDocument } from '../packages/client/scripts/generate.ts'
import { widgetTypes } from '../packages/react/scripts/generate.ts'
import { readRecord } from '../bench/lib/record.ts'
import { renderDoc as benchmarksMarkdown } from '../bench/lib/benchmarks-doc.ts'

const ROOT = join(import.meta.dir, '..')

/** A JSON snapshot's text, as test/harness/snapshot.ts writes and compares it. */
export const snapshotText = (value: unknown) => JSON.stringify(value, null, 2) + '\n'

/** What the REST face and the MCP server are built from (src/server.ts). */
const SERVED = withOpenApi(OPERATIONS)

/** Where each MCP tool's snapshot lives: one file per tool, so adding a tool adds a file. */
export const TOOLSNAPS = 'mcp/__toolsnaps__'
export const toolSnapshot = (name: string) => `${TOOLSNAPS}/${name}.json`

/**
 * The snapshots of what users see: path from the repository root → value. The OpenAPI document, and
 * each MCP tool as tools/list describes it (a toolset's list is its tools in the registry's order).
 */
export function snapshots(): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'test/snapshots/openapi.json': buildOpenApi(SERVED, { publicUrl: 'https://portico.example', version: 'snapshot' }),
  }
  for (const tool of buildTools(SERVED)) out[toolSnapshot(tool.name)] = tool.descriptor
  return out
}

/** Files under mcp/__toolsnaps__/ that no tool writes (a tool removed or renamed): generate deletes them. */
export function staleToolSnapshots(): string[] {
  const wanted = new Set(Object.keys(snapshots()))
  return readdirSync(join(ROOT, TOOLSNAPS)).map((f) => `${TOOLSNAPS}/${f}`).filter((f) => !wanted.has(f)).sort()
}

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen']
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']
export const inWords = (n: number) => (n < 20 ? WORDS[n]! : `${TENS[Math.floor(n / 10)]}${n % 10 ? '-' + WORDS[n % 10] : ''}`)
const capital = (s: string) => s.replace(/^./, (c) => c.toUpperCase())
const thousands = (n: number) => n.toLocaleString('en-US')

/** docs/providers.md's table of end users' providers by rail, each with its catalog rank. */
function providersByRail(): string {
  const census = PROVIDERS.filter((p) => p.audience === 'end_user')
  const automatic = census.filter((p) => p.built.api_credential || p.built.oauth)
  const dc = (p: Provider) => p.capabilities.domain_connect.sync || p.capabilities.domain_connect.async
  const rows: [string, Provider[]][] = [
    ['API credential (adapter built, contract-tested)', census.filter((p) => p.built.api_credential)],
    ['OAuth sign-in (offered when the client is configured)', census.filter((p) => p.built.oauth)],
    ['Domain Connect (where the provider onboarded the template)', census.filter(dc)],
    ['manual only', census.filter((p) => !automatic.includes(p) && !dc(p))],
  ]
  return [
    '| rail | providers (catalog rank by share) | count |',
    '| --- | --- | --- |',
    ...rows.map(([label, ps]) => `| ${label} | ${ps.map((p) => `${p.name} (${p.rank})`).join(', ')} | ${ps.length} |`),
  ].join('\n')
}

/** docs/agents.md's table of tools/list sizes per toolset. */
function toolsetSizes(): string {
  const lines = ['| toolset | tools | characters | tokens |', '| --- | --- | --- | --- |']
  for (const [name, s] of toolsetTokens()) {
    const label = name === 'default' ? 'default (all)' : `\`${name}\`: ${TOOLSETS[name as Toolset].replace(/^./, (c) => c.toLowerCase())}`
    lines.push(`| ${label} | ${s.tools} | ${thousands(s.chars)} | ${thousands(s.tokens)} |`)
  }
  return lines.join('\n')
}

/** What the person confirms before a tool acts: from the errors it declares and what it does to the zone. */
function confirms(op: AnyOp): string {
  if (!op.errors.includes('confirmation_required')) return ''
  return op.zone === 'removes' ? 'always' : 'when the write would replace records already in the zone'
}

/**
 * docs/agents.md's table of each tool's annotations (mcp/annotations.ts, as tools/list serves them):
 * tools with the same hints and the same confirmation share a row, rows in the registry's order.
 */
export function toolAnnotationsTable(): string {
  const yes = (b: boolean | undefined) => (b ? 'yes' : 'no')
  const rows = new Map<string, string[]>()
  for (const tool of buildTools(SERVED)) {
    const a = tool.descriptor.annotations!
    const key = `${yes(a.readOnlyHint)} | ${yes(a.destructiveHint)} | ${yes(a.idempotentHint)} | ${yes(a.openWorldHint)} | ${confirms(tool.op)}`
    rows.set(key, [...(rows.get(key) ?? []), `\`${tool.name}\``])
  }
  const lines = ['| tool | readOnly | destructive | idempotent | openWorld | the person confirms |', '| --- | --- | --- | --- | --- | --- |']
  for (const [key, names] of rows) lines.push(`| ${names.join(', ')} | ${key} |`.replace(/ {2}\|$/, ' |'))
  return lines.join('\n')
}

/** docs/test-mode.md's events per scenario, from the scenarios (their paths through the transition table). */
function scenarioEvents(): Record<string, string> {
  const list = (events: readonly string[]) => (events.length ? events.map((e) => `\`${e}\``).join(', ') : 'none')
  const out: Record<string, string> = {}
  for (const [name, sc] of Object.entries(SCENARIOS) as [string, { events: readonly string[]; eventsByRecheck?: readonly string[] }][]) {
    out[`scenario-events-${name}`] = list(sc.events)
    if (sc.eventsByRecheck) out[`scenario-events-by-recheck-${name}`] = list(sc.eventsByRecheck)
  }
  return out
}

/** The provider recordings (test/fixtures/provider-recordings/): each file's provider and the repository that recorded it. */
export function providerRecordings(): { provider: string; name: string; by: string }[] {
  const dir = join(ROOT, 'test/fixtures/provider-recordings')
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const r = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { provider: string; origin: { repository: string } }
      const by = r.origin.repository.split(' ')[0]!.split('/').pop()!
      return { provider: r.provider, name: PROVIDERS.find((p) => p.id === r.provider)?.name ?? r.provider, by }
    })
}

/** docs/providers.md's list of the recorded providers, by the client that recorded them. */
function recordedProviders(): string {
  const list = (xs: string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(xs)
  const byClient = new Map<string, string[]>()
  for (const r of providerRecordings()) byClient.set(r.by, [...(byClient.get(r.by) ?? []), r.name])
  return [...byClient].map(([by, names]) => `${by}'s for ${list(names)}`).join('; ')
}

/** The generated regions' text, by name: one source each, wherever the documents repeat it. */
export function regions(): Record<string, string> {
  // The locale files on disk, not the list imported: a locale just added counts before its list is written.
  const LOCALE_TAGS = localeTagsOnDisk(ROOT)
  const rtl = LOCALE_TAGS.filter((l) => directionOf(l) === 'rtl')
  const ltr = LOCALE_TAGS.filter((l) => directionOf(l) === 'ltr')
  const automatic = parityCensus().built.automatic
  return {
    'locale-count': String(LOCALE_TAGS.length),
    'rtl-languages': new Intl.ListFormat('en', { type: 'conjunction' }).format(rtl.map((l) => new Intl.DisplayNames(['en'], { type: 'language' }).of(l) ?? l)),
    'locale-list': `${ltr.map((l) => `\`${l}\``).join(', ')}, and ${rtl.map((l) => `\`${l}\``).join(' and ')} right to left`,
    'adapter-count': String(Object.keys(HOSTED).filter((id) => PROVIDERS.find((p) => p.id === id)?.audience === 'end_user').length),
    'provider-count': String(PROVIDERS.filter((p) => p.audience === 'end_user').length),
    'automatic-count': capital(inWords(automatic)),
    'providers-by-rail': providersByRail(),
    'toolset-sizes': toolsetSizes(),
    'tool-annotations': toolAnnotationsTable(),
    'recording-count': inWords(providerRecordings().length),
    'recorded-providers': recordedProviders(),
    ...scenarioEvents(),
  }
}

/** The documents holding generated regions. */
const WITH_REGIONS = ['README.md', 'docs/api.md', 'docs/agents.md', 'docs/providers.md', 'docs/test-mode.md', 'docs/widget.md']

const REGION = /<!-- generated: ([a-z-]+) -->([\s\S]*?)<!-- \/generated -->/g

/** `text` with each region's content replaced; a block region (its content on lines of its own) stays one. */
export function fillRegions(text: string, values: Record<string, string>, file = 'text'): string {
  return text.replace(REGION, (_all, name: string, old: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`${file}: unknown generated region "${name}"`)
    return `<!-- generated: ${name} -->${old.startsWith('\n') ? `\n${value}\n` : value}<!-- /generated -->`
  })
}

/** Every derived file: path from the repository root → its text. */
export async function derivedFiles(): Promise<Record<string, string>> {
  const out: Record<string, string> = { ...registryFiles(), ...operationsFile() }
  for (const [file, value] of Object.entries(snapshots())) out[file] = snapshotText(value)
  out['docs/authority-matrix.md'] = authorityMarkdown(OPERATIONS)
  out['docs/events.md'] = eventsMarkdown()
  out['docs/benchmarks.md'] = benchmarksMarkdown(readRecord())
  out[PUBLISHED_EVENT_TYPES] = eventTypesFile(parsePublished(read(PUBLISHED_EVENT_TYPES)), EVENT_TYPES)
  out['docs/providers/README.md'] = renderProviderDocs()
  for (const [name, text] of Object.entries(await clientFiles(await servedDocument()))) out[`packages/client/src/generated/${name}`] = text
  out['packages/react/src/widget-types.ts'] = widgetTypes()
  Object.assign(out, localeFiles(localeTagsOnDisk(ROOT)))
  const values = regions()
  for (const file of WITH_REGIONS) out[file] = fillRegions(readFileSync(join(ROOT, file), 'utf8'), values, file)
  return out
}

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
  // Run without the registry steps before it (`bun scripts/generate.ts`): this process loaded the old
  // registries, so it writes the new ones and runs again to derive the rest from them.
  const rewritten = check ? [] : [...writeRegistries(), ...writeOperations()]
  if (rewritten.length) {
    console.log(`generate: rewrote from the provider and operation folders:\n${rewritten.map((f) => `  ${f}`).join('\n')}`)
    const again = Bun.spawnSync([process.execPath, import.meta.path, ...process.argv.slice(2)], { stdio: ['inherit', 'inherit', 'inherit'] })
    process.exit(again.exitCode)
  }
  const files = await derivedFiles()
  const changed: [string, string | null][] = [...Object.entries(files).filter(([file, text]) => read(file) !== text), ...staleToolSnapshots().map((f): [string, null] => [f, null])]
  if (!check) for (const [file, text] of changed) text === null ? rmSync(join(ROOT, file)) : writeFileSync(join(ROOT, file), text)
  const took = `${Math.round(performance.now() - started)} ms`
  if (changed.length === 0) console.log(`generate: ${Object.keys(files).length} derived files, all current (${took})`)
  else if (check) {
    console.error(`generate: stale, run npm run generate and commit:\n${changed.map(([f]) => `  ${f}`).join('\n')}`)
    process.exit(1)
  } else console.log(`generate: rewrote ${changed.length} of ${Object.keys(files).length} derived files (${took}):\n${changed.map(([f, text]) => `  ${f}${text === null ? ' (deleted)' : ''}`).join('\n')}`)
}
