// The stand-ins against the hosts' own recorded answers (issue 46). Each file under
// test/fixtures/provider-recordings/ carries HTTP exchanges a production client recorded against the
// live API (lexicon's VCR cassettes, origin and commit in the file; acme.sh's recorded Dynadot answer).
// Every exchange on an endpoint Portico's adapter uses is replayed, in order, against a fresh stand-in
// seeded with the zone as the recording first lists it; the stand-in must answer with the recorded
// status and, for every field the recording shows (ids and stamps aside), the recorded value. Where a
// stand-in and a recording disagree, the recording wins: this test is how.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import type { DynadotFake } from '../../src/adapters/dns-providers/dynadot/stand-in.ts'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { providerFailure } from '../../src/domain/provider-accounts.ts'

interface Exchange {
  method: string
  path: string
  query?: Record<string, string>
  body?: unknown
  status: number
  response?: unknown
  replay?: false
  why?: string
}
interface Recording {
  provider: string
  origin: { repository: string; files: { commit: string; path: string }[] }
  cassettes: { cassette: string; exchanges: Exchange[] }[]
}

/** How to reach each stand-in as the recorded client reached the host. */
interface Replay {
  /** The API's path prefix the recording's paths are relative to (the stand-in serves it too). */
  prefix: string
  headers(f: Fake<any>): Record<string, string>
  /** The zone a path names (its name, or its id where the API names zones by id). */
  zoneOf(path: string): string | undefined
  /** Record rows of a listing answer, or undefined when the answer is no listing of records. */
  rows(body: any): any[] | undefined
  /** Zone rows of a zone listing and each one's name, where the API has one. */
  zones?(body: any): { name: string; id?: string }[] | undefined
  /** The stand-in's seed: a zone with the rows the recording first lists (in the provider's wire form). */
  seed(f: Fake<any>, zone: string, rows: any[], id?: string): void
  /** Fields the host assigns itself (ids, stamps, the creator): never compared. */
  ignore: string[]
  /** Keys whose values are ids later paths use. */
  ids: string[]
  /** Path rewrites (an account number the recording's host gave). */
  rewrite?(path: string, f: Fake<any>): string
}

const bearer = (f: Fake<any>) => ({ authorization: `Bearer ${f.credential}` })
const pushRows = (f: Fake<any>, zone: string, rows: any[], id?: string) => {
  const z = f.zones.find((x) => x.name === zone) ?? f.addZone(zone)
  if (id) z.id = id
  z.records.push(...rows.map((r) => structuredClone(r)))
}

const REPLAY: Record<string, Replay> = {
  digitalocean: {
    prefix: '/v2',
    headers: bearer,
    zoneOf: (p) => /^\/domains\/([^/]+)/.exec(p)?.[1],
    rows: (b) => b?.domain_records,
    seed: pushRows,
    ignore: ['id', 'links', 'meta'],
    ids: ['id'],
  },
  vultr: {
    prefix: '/v2',
    headers: bearer,
    zoneOf: (p) => /^\/domains\/([^/]+)/.exec(p)?.[1],
    rows: (b) => b?.records,
    zones: (b) => b?.domains?.map((d: any) => ({ name: d.domain })),
    seed: pushRows,
    ignore: ['id', 'meta'],
    ids: ['id'],
  },
  linode: {
    prefix: '/v4',
    headers: bearer,
    zoneOf: (p) => /^\/domains\/(\d+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b?.data) && b.data.some((r: any) => 'target' in r) ? b.data : undefined),
    zones: (b) => (Array.isArray(b?.data) && b.data.some((r: any) => 'domain' in r) ? b.data.map((d: any) => ({ name: d.domain, id: String(d.id) })) : undefined),
    seed: pushRows,
    ignore: ['id', 'page', 'pages', 'results'],
    ids: ['id'],
  },
  vercel: {
    prefix: '',
    headers: bearer,
    zoneOf: (p) => /^\/v\d\/domains\/([^/]+)/.exec(p)?.[1],
    rows: (b) => b?.records,
    // Vercel lists newest first; the stand-in keeps rows oldest first.
    seed: (f, zone, rows) => pushRows(f, zone, [...rows].reverse()),
    ignore: ['id', 'uid', 'slug', 'creator', 'created', 'updated', 'createdAt', 'updatedAt', 'pagination'],
    ids: ['id', 'uid'],
  },
  gandi: {
    prefix: '/v5',
    headers: bearer,
    zoneOf: (p) => /^\/livedns\/domains\/([^/]+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b) && b.some((r) => 'rrset_type' in r) ? b : undefined),
    seed: (f, zone, rows) => pushRows(f, zone, rows.map(({ rrset_href: _h, ...r }) => r)),
    ignore: ['rrset_href'],
    ids: [],
  },
  dnsimple: {
    prefix: '/v2',
    headers: bearer,
    zoneOf: (p) => /^\/\d+\/zones\/([^/]+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b?.data) ? b.data : undefined),
    seed: pushRows,
    ignore: ['id', 'created_at', 'updated_at', 'pagination'],
    ids: ['id'],
    rewrite: (p, f) => p.replace(/^\/731\//, `/${(f as any).account}/`),
  },
  ionos: {
    prefix: '/dns/v1',
    headers: (f) => ({ 'x-api-key': f.credential }),
    zoneOf: (p) => /^\/zones\/([^/]+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b?.records) ? b.records : undefined),
    zones: (b) => (Array.isArray(b) && b.every((z: any) => 'id' in z && !('rootName' in z)) ? b.map((z: any) => ({ name: z.name, id: z.id })) : undefined),
    seed: pushRows,
    ignore: ['id', 'changeDate'],
    ids: ['id'],
  },
  cloudflare: {
    prefix: '/client/v4',
    headers: bearer,
    zoneOf: (p) => /^\/zones\/([^/]+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b?.result) && b.result.every((r: any) => 'content' in r) ? b.result : undefined),
    zones: (b) => (Array.isArray(b?.result) && b.result.every((z: any) => 'name_servers' in z) ? b.result.map((z: any) => ({ name: z.name, id: z.id })) : undefined),
    seed: pushRows,
    // Cloudflare's own bookkeeping on a record (stamps, meta, lock and proxiable flags) is not compared.
    ignore: ['id', 'created_on', 'modified_on', 'meta', 'locked', 'proxiable', 'result_info', 'messages'],
    ids: ['id'],
  },
  dynu: {
    prefix: '/v2',
    headers: (f) => ({ 'api-key': f.credential }),
    zoneOf: (p) => /^\/dns\/(\d+)/.exec(p)?.[1],
    rows: (b) => b?.dnsRecords,
    zones: (b) => b?.domains?.map((d: any) => ({ name: d.name, id: String(d.id) })),
    seed: pushRows,
    ignore: ['id', 'updatedOn'],
    ids: ['id'],
  },
  infomaniak: {
    prefix: '/1',
    headers: bearer,
    zoneOf: (p) => /^\/domain\/(\d+)/.exec(p)?.[1],
    rows: (b) => (Array.isArray(b?.data) && b.data.every((r: any) => 'source' in r) ? b.data : undefined),
    zones: (b) => (Array.isArray(b?.data) && b.data.every((z: any) => 'customer_name' in z) ? b.data.map((z: any) => ({ name: z.customer_name, id: String(z.id) })) : undefined),
    seed: pushRows,
    // ttl_idn is Infomaniak's wording of the TTL ("1 h."): one sample recorded, too little to rebuild the rule.
    // `data` of a create's answer is the new record's id.
    ignore: ['id', 'updated_at', 'ttl_idn', 'data'],
    ids: ['id', 'data'],
  },
  namecom: {
    prefix: '/v4',
    headers: (f) => ({ authorization: `Basic ${btoa(f.credential)}` }),
    zoneOf: (p) => /^\/domains\/([^/]+)/.exec(p)?.[1],
    rows: (b) => b?.records,
    zones: (b) => b?.domains?.map((d: any) => ({ name: d.domainName })),
    seed: pushRows,
    ignore: ['id', 'nextPage', 'lastPage'],
    ids: ['id'],
  },
}

const DIR = join(import.meta.dir, '../fixtures/provider-recordings')
const recordings = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Recording)

/** `actual` holds every field of `recorded` (ignored keys aside) with the recorded value. */
function differences(recorded: unknown, actual: unknown, ignore: string[], at = ''): string[] {
  if (recorded === null || typeof recorded !== 'object') return JSON.stringify(recorded) === JSON.stringify(actual) ? [] : [`${at || 'body'}: recorded ${JSON.stringify(recorded)}, stand-in ${JSON.stringify(actual)}`]
  if (Array.isArray(recorded)) {
    if (!Array.isArray(actual) || actual.length !== recorded.length) return [`${at || 'body'}: recorded ${recorded.length} items, stand-in ${Array.isArray(actual) ? actual.length : JSON.stringify(actual)}`]
    return recorded.flatMap((r, i) => differences(r, actual[i], ignore, `${at}[${i}]`))
  }
  if (actual === null || typeof actual !== 'object') return [`${at || 'body'}: recorded an object, stand-in ${JSON.stringify(actual)}`]
  return Object.entries(recorded).flatMap(([k, v]) => (ignore.includes(k) ? [] : differences(v, (actual as Record<string, unknown>)[k], ignore, `${at}.${k}`)))
}

/** Record rows compared as a set: each recorded row must be one the stand-in lists. */
function rowDifferences(recorded: any[], actual: any[], ignore: string[]): string[] {
  const strip = (r: any) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !ignore.includes(k)).sort(([a], [b]) => a.localeCompare(b))))
  const pick = (r: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, r[k]]))
  const out: string[] = []
  const pool = [...actual]
  for (const r of recorded) {
    const keys = Object.keys(r).filter((k) => !ignore.includes(k))
    const i = pool.findIndex((a) => strip(pick(a, keys)) === strip(pick(r, keys)))
    if (i === -1) out.push(`recorded row ${strip(r)} is not in the stand-in's listing`)
    else pool.splice(i, 1)
  }
  if (pool.length) out.push(`the stand-in lists ${pool.length} row(s) the recording does not: ${pool.map(strip).join(', ')}`)
  return out
}

function walkIds(recorded: unknown, actual: unknown, keys: string[], map: Map<string, string>) {
  if (!recorded || !actual || typeof recorded !== 'object' || typeof actual !== 'object') return
  if (Array.isArray(recorded) && Array.isArray(actual)) return recorded.forEach((r, i) => walkIds(r, actual[i], keys, map))
  for (const [k, v] of Object.entries(recorded)) {
    const a = (actual as Record<string, unknown>)[k]
    if (keys.includes(k) && (typeof v === 'string' || typeof v === 'number') && a !== undefined) map.set(String(v), String(a))
    else walkIds(v, a, keys, map)
  }
}

/** Every value of an id key in a body. */
function collectIds(body: unknown, keys: string[], into: Set<string>) {
  if (!body || typeof body !== 'object') return
  for (const [k, v] of Object.entries(body)) {
    if (keys.includes(k) && (typeof v === 'string' || typeof v === 'number')) into.add(String(v))
    else collectIds(v, keys, into)
  }
}

const caseOf = (id: string) => FAKE_CASES.find((c) => c.id === id)!

describe('stand-ins answer as the hosts answered production clients (recorded exchanges replayed)', () => {
  test('every adapter-facing recording has a replay, and every recording names its origin', () => {
    expect(recordings.length).toBeGreaterThanOrEqual(7)
    for (const r of recordings) {
      expect({ provider: r.provider, origin: r.origin.files.length > 0 && r.origin.files.every((f) => /^[0-9a-f]{40}$/.test(f.commit) && f.path.length > 0) }).toEqual({ provider: r.provider, origin: true })
      if (r.cassettes.some((c) => c.exchanges.some((e) => e.replay !== false && e.method !== 'TEMPORARY'))) expect({ provider: r.provider, replay: !!REPLAY[r.provider] }).toEqual({ provider: r.provider, replay: true })
    }
  })

  for (const rec of recordings.filter((r) => REPLAY[r.provider])) {
    const replay = REPLAY[rec.provider]!
    for (const cassette of rec.cassettes) {
      const name = cassette.cassette.split('/').pop()!.replace(/\.yaml$/, '')
      test(`${rec.provider}: ${name}`, async () => {
        const f = caseOf(rec.provider).start()
        try {
          const ex = cassette.exchanges.filter((e) => e.replay !== false)
          // Seed: every zone a recorded zone listing names, and the zone's rows as first listed.
          for (const e of cassette.exchanges) for (const z of replay.zones?.(e.response) ?? []) if (!f.zones.some((x) => x.name === z.name)) f.addZone(z.name).id = z.id ?? f.zones.at(-1)!.id
          const zoneKey = ex.map((e) => replay.zoneOf(e.path)).find(Boolean)
          const zoneName = f.zones.find((z) => z.id === zoneKey)?.name ?? zoneKey!
          // The zone as the recording first lists it (every page of that listing), less the rows this
          // cassette's own earlier writes created (they are created again by the replay).
          const isList = (e: Exchange) => e.method === 'GET' && !!replay.zoneOf(e.path) && !!replay.rows(e.response) && !e.query?.name
          const firstList = ex.findIndex(isList)
          const created = new Set<string>()
          const seedRows: any[] = []
          if (firstList !== -1) {
            for (const e of ex.slice(0, firstList)) if (e.method !== 'GET') collectIds(e.response, replay.ids, created)
            for (let i = firstList; i < ex.length && isList(ex[i]!); i++) for (const r of replay.rows(ex[i]!.response)!) if (!seedRows.some((x) => JSON.stringify(x) === JSON.stringify(r)) && !replay.ids.some((k) => created.has(String(r[k])))) seedRows.push(r)
          }
          replay.seed(f, zoneName, seedRows, zoneKey !== zoneName ? zoneKey : undefined)
          const ids = new Map<string, string>()
          const problems: string[] = []
          for (const e of ex) {
            let path = e.path.split('/').map((s) => ids.get(decodeURIComponent(s)) ?? s).join('/')
            if (replay.rewrite) path = replay.rewrite(path, f)
            const q = e.query ? `?${new URLSearchParams(e.query)}` : ''
            // lexicon's recorder replaced some request values with placeholders (`placeholder_priority`):
            // those were never the client's words, so they are left out.
            const sent = e.body && typeof e.body === 'object' && !Array.isArray(e.body) ? Object.fromEntries(Object.entries(e.body).filter(([, v]) => !(typeof v === 'string' && v.startsWith('placeholder_')))) : e.body
            const res = await fetch(`${f.url}${replay.prefix}${path}${q}`, { method: e.method, headers: { ...replay.headers(f), ...(sent !== undefined ? { 'content-type': 'application/json' } : {}) }, body: sent === undefined ? undefined : JSON.stringify(sent) })
            const text = await res.text()
            let body: unknown = text
            try {
              body = text ? JSON.parse(text) : undefined
            } catch {
              /* not JSON */
            }
            const label = `${e.method} ${e.path}${q}`
            if (res.status !== e.status) problems.push(`${label}: recorded ${e.status}, stand-in ${res.status} ${text.slice(0, 200)}`)
            if (e.response !== undefined && res.status === e.status) {
              const recordedRows = replay.rows(e.response)
              const recordedZones = replay.zones?.(e.response)
              if (recordedRows) problems.push(...rowDifferences(recordedRows, replay.rows(body) ?? [], replay.ignore).map((p) => `${label}: ${p}`))
              else if (recordedZones) {
                const names = new Set((replay.zones!(body) ?? []).map((z) => z.name))
                for (const z of recordedZones) if (!names.has(z.name)) problems.push(`${label}: zone ${z.name} not listed`)
              } else problems.push(...differences(e.response, body, replay.ignore).map((p) => `${label}: ${p}`))
              walkIds(e.response, body, replay.ids, ids)
            }
          }
          expect(problems).toEqual([])
        } finally {
          f.stop()
        }
      })
    }
  }
})

describe('recorded refusals the adapters must read as the host meant them', () => {
  const rec = recordings.find((r) => r.provider === 'dynadot')
  test('Dynadot: "problem with connection to main server" is temporary: a retry hint, not a refusal', async () => {
    expect(rec).toBeDefined()
    const c = caseOf('dynadot')
    const f = c.start() as DynadotFake
    try {
      f.addZone('busy-dynadot.example')
      // The stand-in answers with the recorded body (acme.sh's recording of Dynadot's answer).
      const recorded = rec!.cassettes[0]!.exchanges[0]!
      f.answerNext(recorded.response)
      const p = makeHosted('dynadot', f.credential, { dynadot: c.base(f) })!
      const e = await p.listZones().then(
        () => null,
        (err) => err,
      )
      expect(e).toBeInstanceOf(ProviderError)
      expect(e.kind).toBe('temporary')
      expect(e.retryAfter).toBeGreaterThan(0)
      const api = providerFailure(e, 'dynadot')
      expect(api.status).toBe(503)
      expect(Number(api.headers['retry-after'])).toBeGreaterThan(0)
      expect(api.body()).toMatchObject({ code: 'service_unavailable', details: { reason: 'provider_temporary' } })
    } finally {
      f.stop()
    }
  })
})
