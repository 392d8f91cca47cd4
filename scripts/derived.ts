// What `npm run generate` (scripts/generate.ts) writes, each derived file's text from the code; the
// tests compare it with what is committed (test/unit/generate.test.ts, test/unit/snapshots.test.ts).
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import '../src/quiet-warnings.ts'
import { OPERATIONS } from '../src/ops/index.ts'
import { buildOpenApi, withOpenApi } from '../src/http/openapi.ts'
import { authorityMarkdown } from '../src/ops/authority.ts'
import { eventsMarkdown } from '../src/ops/events-doc.ts'
import { parityCensus, PROVIDERS, type Provider } from '../src/domain/providers.ts'
import { HOSTED } from '../src/adapters/dns-providers/index.ts'
import { LOCALE_TAGS } from '../src/widget/i18n.ts'
import { directionOf } from '../src/widget/locale.ts'
import { buildTools } from '../mcp/tools.ts'
import { TOOLSETS, type Toolset } from '../mcp/toolsets.ts'
import { toolsetTokens } from './mcp-tool-tokens.ts'
import { renderProviderDocs } from '../test/harness/provider-cards/render.ts'
import { generate as clientFiles, servedDocument } from '../packages/client/scripts/generate.ts'
import { widgetTypes } from '../packages/react/scripts/generate.ts'
import { OPERATIONS_FILE, operationsModule, readPrevious } from './operations-registry.ts'

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

/** The generated regions' text, by name: one source each, wherever the documents repeat it. */
export function regions(): Record<string, string> {
  const rtl = LOCALE_TAGS.filter((l) => directionOf(l) === 'rtl')
  const ltr = LOCALE_TAGS.filter((l) => directionOf(l) === 'ltr')
  const automatic = parityCensus().built.automatic
  return {
    'locale-count': String(LOCALE_TAGS.length),
    'locale-list': `${ltr.map((l) => `\`${l}\``).join(', ')}, and ${rtl.map((l) => `\`${l}\``).join(' and ')} right to left`,
    'adapter-count': String(Object.keys(HOSTED).filter((id) => PROVIDERS.find((p) => p.id === id)?.audience === 'end_user').length),
    'provider-count': String(PROVIDERS.filter((p) => p.audience === 'end_user').length),
    'automatic-count': capital(inWords(automatic)),
    'providers-by-rail': providersByRail(),
    'toolset-sizes': toolsetSizes(),
  }
}

/** The documents holding generated regions. */
const WITH_REGIONS = ['README.md', 'docs/api.md', 'docs/agents.md', 'docs/providers.md']

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
  const out: Record<string, string> = {}
  out[OPERATIONS_FILE] = operationsModule(ROOT, readPrevious(ROOT))
  for (const [file, value] of Object.entries(snapshots())) out[file] = snapshotText(value)
  out['docs/authority-matrix.md'] = authorityMarkdown(OPERATIONS)
  out['docs/events.md'] = eventsMarkdown()
  out['docs/providers/README.md'] = renderProviderDocs()
  for (const [name, text] of Object.entries(await clientFiles(await servedDocument()))) out[`packages/client/src/generated/${name}`] = text
  out['packages/react/src/widget-types.ts'] = widgetTypes()
  const values = regions()
  for (const file of WITH_REGIONS) out[file] = fillRegions(readFileSync(join(ROOT, file), 'utf8'), values, file)
  return out
}
