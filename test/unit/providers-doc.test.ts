// docs/providers.md's table of providers by rail is read by integrators choosing Portico: it must say what
// the catalog (GET /v1/providers) says, row by row, with each provider's rank and the counts.
import { describe, test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parityCensus, PROVIDERS, type Provider } from '../../src/domain/providers.ts'

// As read: the markers of its generated regions (npm run generate) are not shown.
const DOC = readFileSync(join(import.meta.dir, '../../docs/providers.md'), 'utf8').replace(/<!-- \/?generated(: [a-z-]+)? -->/g, '')

/** The providers and the count of the document's row that starts with `label`. */
function row(label: string): { names: string[]; count: number } {
  const line = DOC.split('\n').find((l) => l.startsWith(`| ${label}`))
  expect(line).toBeDefined()
  const cells = line!.split(' | ')
  return { names: [...cells[1]!.matchAll(/(.+?) \((\d+)\)(?:, |$)/g)].map((m) => `${m[1]} (${m[2]})`), count: Number(cells[2]!.replace(/\D/g, '')) }
}

const listed = (ps: Provider[]) => ps.map((p) => `${p.name} (${p.rank})`)
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety']
const inWords = (n: number) => (n < 10 ? WORDS[n]! : `${TENS[Math.floor(n / 10)]}${n % 10 ? '-' + WORDS[n % 10] : ''}`)

describe('docs/providers.md: providers by rail', () => {
  test('each row lists exactly the catalog\'s providers of that rail, ranked, with the count', () => {
    // The end-user census: integrator-only adapters (PowerDNS) are described apart.
    const census = PROVIDERS.filter((p) => p.audience === 'end_user')
    const automatic = census.filter((p) => p.built.api_credential || p.built.oauth)
    const dc = (p: Provider) => p.capabilities.domain_connect.sync || p.capabilities.domain_connect.async
    const rows: [string, Provider[]][] = [
      ['API credential', census.filter((p) => p.built.api_credential)],
      ['OAuth sign-in', census.filter((p) => p.built.oauth)],
      ['Domain Connect', census.filter(dc)],
      ['manual only', census.filter((p) => !automatic.includes(p) && !dc(p))],
    ]
    for (const [label, providers] of rows) {
      const r = row(label)
      expect({ label, names: r.names }).toEqual({ label, names: listed(providers) })
      expect({ label, count: r.count }).toEqual({ label, count: providers.length })
    }
    const n = parityCensus().built.automatic
    expect(DOC).toContain(`${inWords(n).replace(/^./, (c) => c.toUpperCase())} providers have a working automatic rail`)
    expect(DOC).toContain(`\`GET /v1/providers\`: ${census.length} DNS hosts and registrars`)
  })
})
