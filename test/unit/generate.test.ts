// `npm run generate` (scripts/generate.ts) is the one command for every derived file: what it would
// write is what is committed, its generated regions in hand-written documents say what the code says,
// and a region it does not know is refused rather than left stale.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { derivedFiles, fillRegions, inWords, providerRecordings, regions } from '../../scripts/generate.ts'
import { PROVIDERS } from '../../src/domain/providers.ts'
import { buildTools } from '../../mcp/tools.ts'
import { OPERATIONS } from '../../src/ops/index.ts'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'

const ROOT = join(import.meta.dir, '../..')

describe('npm run generate', () => {
  test('every derived file is committed as it writes it', async () => {
    const files = await derivedFiles()
    const stale = Object.entries(files).filter(([file, text]) => readFileSync(join(ROOT, file), 'utf8') !== text).map(([f]) => f)
    expect(stale).toEqual([])
  })

  test('fills inline and block regions, and refuses an unknown one', () => {
    const doc = 'A (<!-- generated: n -->1<!-- /generated --> x)\n<!-- generated: t -->\nold\nrows\n<!-- /generated -->\nend'
    expect(fillRegions(doc, { n: '17', t: '| a |' })).toBe('A (<!-- generated: n -->17<!-- /generated --> x)\n<!-- generated: t -->\n| a |\n<!-- /generated -->\nend')
    expect(() => fillRegions('<!-- generated: nope -->1<!-- /generated -->', {}, 'README.md')).toThrow('README.md: unknown generated region "nope"')
  })

  test('the README states the locale count of the widget\'s list', () => {
    expect(regions()['locale-count']).toBe(String(LOCALE_TAGS.length))
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`<!-- generated: locale-count -->${LOCALE_TAGS.length}<!-- /generated --> locales`)
    expect([inWords(7), inWords(19), inWords(39), inWords(40)]).toEqual(['seven', 'nineteen', 'thirty-nine', 'forty'])
  })
  test('the recorded providers are counted and named from the fixtures, each a catalogue provider', () => {
    const files = readdirSync(join(ROOT, 'test/fixtures/provider-recordings')).filter((f) => f.endsWith('.json'))
    const recs = providerRecordings()
    expect(recs.length).toBe(files.length)
    expect(recs.filter((r) => !PROVIDERS.some((p) => p.id === r.provider)).map((r) => r.provider)).toEqual([])
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`<!-- generated: recording-count -->${inWords(files.length)}<!-- /generated -->`)
    const doc = readFileSync(join(ROOT, 'docs/providers.md'), 'utf8')
    for (const r of recs) expect(doc).toContain(r.name)
  })
  test('docs/agents.md lists every agent tool once, with the annotations tools/list serves', () => {
    const doc = readFileSync(join(ROOT, 'docs/agents.md'), 'utf8')
    const table = /<!-- generated: tool-annotations -->\n([\s\S]*?)\n<!-- \/generated -->/.exec(doc)![1]!
    const listed = new Map<string, string[]>()
    for (const line of table.split('\n').slice(2)) {
      const [tools, ...cells] = line.split('|').slice(1, -1).map((c) => c.trim())
      for (const m of tools!.matchAll(/`([a-z_]+)`/g)) {
        expect(listed.has(m[1]!)).toBe(false)
        listed.set(m[1]!, cells.slice(0, 4))
      }
    }
    const yes = (b: boolean | undefined) => (b ? 'yes' : 'no')
    const served = buildTools(OPERATIONS).map((t) => {
      const a = t.descriptor.annotations!
      return [t.name, [yes(a.readOnlyHint), yes(a.destructiveHint), yes(a.idempotentHint), yes(a.openWorldHint)]] as [string, string[]]
    })
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(served))
  })
})
