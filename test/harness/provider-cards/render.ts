// docs/providers/README.md as text, from the cards and the catalogue (scripts/provider-cards-doc.ts
// writes it; test/unit/provider-cards.test.ts holds the file to it).
import { makeHosted } from '../../../src/adapters/dns-providers/index.ts'
import type { HostConventions } from '../../../src/adapters/dns-providers/types.ts'
import { PROVIDERS } from '../../../src/domain/providers.ts'
import { CARDS } from './index.ts'
import type { Cite, ProviderCard } from '../../../src/adapters/dns-providers/card-types.ts'

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function cites(card: ProviderCard, c: Cite): string {
  return c.map((k) => `[${k}]`).join(' ')
}

function sourcesOf(card: ProviderCard, kind: string): string {
  return Object.values(card.sources)
    .filter((s) => s.kind === kind)
    .map((s) => (s.fixture ? `${s.url} (fixture \`test/fixtures/${s.fixture}\`)` : s.url))
    .join('; ')
}

/** The conventions the adapter declares beside itself (src/adapters/dns-providers/<id>/adapter.ts `CONVENTIONS`). */
const conventionsOf = (id: string): HostConventions | undefined => makeHosted(id, 'x', {})?.conventions
const CONVENTION_ROWS: [keyof HostConventions['sources'], string][] = [
  ['apex', 'apex record'],
  ['names', 'record names'],
  ['hostnames', 'hostnames in data'],
  ['txt', 'TXT'],
  ['ttl', 'TTL'],
  ['temporary', 'temporary refusals'],
]
const conventionValue = (v: HostConventions, k: keyof HostConventions['sources']) => (k === 'apex' ? (v.apex ?? 'none: A records to the application\'s addresses') : v[k])

function renderConventions(id: string): string[] {
  const v = conventionsOf(id)
  if (!v) return []
  const l = ['Conventions, as the adapter declares them (and the tests hold it to them against the stand-in):', '', '| | this host | from |', '| --- | --- | --- |']
  for (const [k, label] of CONVENTION_ROWS) l.push(`| ${label} | ${cell(String(conventionValue(v, k)))} | ${cell(v.sources[k])} |`)
  l.push('')
  return l
}

function renderCard(c: ProviderCard): string {
  const l: string[] = []
  l.push(`## ${c.name} (\`${c.id}\`)`, '')
  l.push('Sources:', '')
  for (const [k, s] of Object.entries(c.sources)) l.push(`- [${k}] ${s.kind}: ${s.url}${s.fixture ? ` — carried as \`test/fixtures/${s.fixture}\`` : ''}${s.note ? ` — ${s.note}` : ''}`)
  l.push('')
  l.push(...renderConventions(c.id))
  l.push('| | | sources |', '| --- | --- | --- |')
  l.push(`| base | ${cell(c.base.url)}; ${cell(c.base.versions)}${c.base.regions ? '; ' + c.base.regions.map((r) => `${r.name} ${r.url}`).join(', ') : ''} | ${cites(c, c.base.cite)} |`)
  l.push(`| authentication | ${cell(c.auth.scheme)} | ${cites(c, c.auth.cite)} |`)
  l.push(`| credential as issued | ${cell(c.auth.issued)}; accepted as ${c.auth.accepted.map((a) => `\`${cell(a)}\``).join(', ')} | ${cites(c, c.auth.cite)} |`)
  const listing = (x: ProviderCard['listing']['zones']) => (x.pages ? `pages by ${x.pages}${x.params ? ` (${x.params})` : ''}; ends on ${x.end ?? 'its signal'}` : `not paged: ${x.end ?? 'one answer'}`)
  l.push(`| zones | ${cell(listing(c.listing.zones))} | ${cites(c, c.listing.cite)} |`)
  l.push(`| records | ${cell(listing(c.listing.records))} | ${cites(c, c.listing.cite)} |`)
  l.push(`| record model | ${cell(c.records.types.join(', '))}; names ${cell(c.records.names)}; values ${cell(c.records.values)} | ${cites(c, c.records.cite)} |`)
  for (const k of c.records.providerOnly) l.push(`| provider-only: ${cell(k.kind)} | ${cell(k.what)} — Portico: **${k.portico}** | ${cites(c, c.records.cite)} |`)
  l.push(`| TTL | floor ${c.ttl.min}, default ${c.ttl.default}${c.ttl.max ? `, most ${c.ttl.max}` : ''} | ${cites(c, c.ttl.cite)} |`)
  const rl = c.rateLimit.answer(30)
  // A reset given as a point in time reads as such, so the page does not change with the clock.
  rl.headers = Object.fromEntries(Object.entries(rl.headers).map(([k, v]) => [k, /^\d{10}$/.test(v) ? '<now + wait, Unix seconds>' : v]))
  const rlBody = (typeof rl.body === 'string' ? rl.body : JSON.stringify(rl.body)).replace(/\b\d{10}\b/g, '<now + wait>')
  l.push(`| rate limit | ${c.rateLimit.status}; wait from ${cell(c.rateLimit.signal)}; ${cell(c.rateLimit.limits)}; e.g. headers \`${cell(JSON.stringify(rl.headers))}\` body \`${cell(rlBody)}\` | ${cites(c, c.rateLimit.cite)} |`)
  for (const t of c.temporary ?? []) l.push(`| temporary: ${t.status} | ${cell(t.when)}: ${cell(t.retry)} | ${cites(c, t.cite)} |`)
  for (const e of c.errors) l.push(`| error ${e.status} → \`${e.reason}\` | ${cell(e.when)}: \`${cell(typeof e.body === 'string' ? e.body : JSON.stringify(e.body))}\` | ${cites(c, c.errorsCite)} |`)
  for (const q of c.quirks) l.push(`| quirk | ${cell(q.text)} | ${cites(c, q.cite)} |`)
  l.push('')
  l.push('Seeded in the do-no-harm test (`test/integration/dns-do-no-harm.test.ts`):', '')
  for (const s of c.seeds('example.com')) l.push(`- ${s.shape}${s.blocks ? ' — stands where Portico writes: the apply must refuse before writing' : ''}`)
  if (c.settings) l.push(`- zone settings ${JSON.stringify(c.settings)}`)
  l.push('')
  l.push('Where sources disagree:', '')
  for (const d of c.disagreements) l.push(`- ${d}`)
  l.push('')
  return l.join('\n')
}

export function renderProviderDocs(): string {
  const automatic = PROVIDERS.filter((p) => p.built.api_credential || p.built.oauth)
  const l: string[] = []
  l.push('# DNS providers: reference cards', '')
  l.push(
    'Generated by `bun scripts/provider-cards-doc.ts` from `test/harness/provider-cards/` (do not edit by hand).',
    'A card says how a provider\'s API really behaves, each line with its sources: the provider\'s documentation,',
    'its machine-readable description where one exists (carried under `test/fixtures/`), and a production client.',
    'The stand-ins in `test/harness/provider-fakes/` answer as the card says and, where a production client\'s',
    'recorded exchanges are carried (`test/fixtures/provider-recordings/`), as the recording says: those are replayed',
    'against the stand-in (`test/integration/provider-recordings.test.ts`) and a recording wins any disagreement.',
    'The contract, do-no-harm, harm and host-property tests (`test/integration/dns-host-properties.test.ts`) run every',
    'adapter against them.',
    '',
  )
  l.push('| provider | id | rails | card | documentation | machine-readable description | production client | recorded answers |', '| --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const p of automatic) {
    const c = CARDS[p.id]
    const rails = [p.built.api_credential ? 'API credential' : '', p.built.oauth ? 'OAuth' : ''].filter(Boolean).join(', ')
    l.push(`| ${p.name} | \`${p.id}\` | ${rails} | ${c ? `[card](#${c.name.toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')}-${c.id.replace(/[^a-z0-9-]/g, '')})` : 'not yet'} | ${c ? cell(sourcesOf(c, 'docs')) : ''} | ${c ? cell(sourcesOf(c, 'description')) || 'none published' : ''} | ${c ? cell(sourcesOf(c, 'client')) : ''} | ${c ? cell(sourcesOf(c, 'recording')) || 'none carried' : ''} |`)
  }
  l.push('')
  l.push('## Host conventions', '', 'Each adapter declares them as data beside itself (`CONVENTIONS` in `src/adapters/dns-providers/<id>/adapter.ts`); each card below names the recording or reference each one comes from.', '')
  l.push('| provider | apex record | names | hostnames in data | TXT | TTL | temporary refusals |', '| --- | --- | --- | --- | --- | --- | --- |')
  for (const p of automatic) {
    const v = conventionsOf(p.id)
    if (v) l.push(`| ${p.name} | ${cell(v.apex ?? 'none (A records)')} | ${cell(v.names)} | ${cell(v.hostnames)} | ${cell(v.txt)} | ${cell(v.ttl)} | ${cell(v.temporary)} |`)
  }
  l.push('')
  for (const p of automatic) if (CARDS[p.id]) l.push(renderCard(CARDS[p.id]!))
  return l.join('\n')
}
