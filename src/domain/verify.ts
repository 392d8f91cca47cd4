// Verification: does every desired record resolve? Each record is looked up on its own (in service,
// at the zone's own nameservers: src/adapters/authoritative.ts) and reported as propagated or not; a
// lookup failure (a resolver down, a lame or disagreeing nameserver) makes the whole check
// inconclusive rather than a verdict, so it never fails a connection.
import { observeDnsChecks } from '../metrics.ts'
import type { Dns, Lookup, LookupType } from '../adapters/dns.ts'
import { absoluteHost } from './hostnames.ts'
import { isApexPointer, type DnsRecord } from './records.ts'
import { isTestDomain, testRecordsResolve } from './test-mode.ts'

export interface RecordCheck {
  type: string
  host: string
  value: string
  propagated: boolean
  observed: string[]
  /** REDIR301 is served by the edge and cannot be seen in DNS. */
  skipped?: boolean
}

export interface Verification {
  outcome: 'all' | 'some' | 'none' | 'inconclusive'
  records: RecordCheck[]
  error?: string
  /** Who answered: the zones' own nameservers, or (any lookup of the check) a recursive resolver. */
  via?: 'authoritative' | 'recursive'
}

const norm = (v: string) => v.trim().toLowerCase().replace(/\.$/, '')

function spfIncludes(txts: string[], wanted: string): boolean {
  const spf = txts.find((t) => /^v=spf1(\s|$)/i.test(t))
  if (!spf) return false
  const have = new Set(spf.toLowerCase().split(/\s+/))
  return wanted
    .replace(/^v=spf1\s+/i, '')
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t && !/^[~?+-]?all$/.test(t))
    .every((t) => have.has(t))
}

/** The lookups a record needs: none for REDIR301, two for an apex CNAME (the apex's and the target's A). */
function questionsOf(apex: string, r: DnsRecord): { name: string; type: LookupType }[] {
  if (r.type === 'REDIR301') return []
  const name = absoluteHost(r.host, apex)
  if (isApexPointer(r)) return [{ name, type: 'A' }, { name: r.value, type: 'A' }]
  return [{ name, type: r.type === 'SPFM' ? 'TXT' : (r.type as LookupType) }]
}

/** Judges one record from the answers to its questions (`questionsOf`), in order. */
function judge(r: DnsRecord, answers: Lookup[]): { check: RecordCheck; error?: string } {
  const base = { type: r.type, host: r.host, value: r.value }
  if (r.type === 'REDIR301') return { check: { ...base, propagated: true, observed: [], skipped: true } }
  const err = answers.find((l) => l.status === 'error') as Extract<Lookup, { status: 'error' }> | undefined
  if (err) return { check: { ...base, propagated: false, observed: [] }, error: err.error }
  if (isApexPointer(r)) {
    // An apex cannot hold a CNAME: the provider flattens it (ALIAS/ANAME/flattening), so the apex
    // answers A queries with the target's addresses.
    const [mine, theirs] = answers as [Lookup, Lookup]
    const a = mine.status === 'ok' ? mine.values : []
    const b = new Set(theirs.status === 'ok' ? theirs.values : [])
    return { check: { ...base, propagated: a.length > 0 && a.every((ip) => b.has(ip)), observed: a } }
  }
  const l = answers[0]!
  const observed = l.status === 'ok' ? l.values : []
  let propagated: boolean
  switch (r.type) {
    case 'TXT':
      propagated = observed.includes(r.value)
      break
    case 'SPFM':
      propagated = spfIncludes(observed, r.value)
      break
    case 'MX':
      propagated = observed.map(norm).includes(`${r.priority ?? 10} ${norm(r.value)}`)
      break
    case 'CAA':
      propagated = observed.map((v) => v.toLowerCase()).includes(r.value.toLowerCase())
      break
    default:
      propagated = observed.map(norm).includes(norm(r.value))
  }
  return { check: { ...base, propagated, observed } }
}

function conclude(judged: { check: RecordCheck; error?: string }[], answers: Lookup[]): Verification {
  const checks = judged.map((r) => r.check)
  const error = judged.find((r) => r.error)?.error
  const counted = checks.filter((c) => !c.skipped)
  const up = counted.filter((c) => c.propagated).length
  const via: Verification['via'] = answers.some((a) => a.via === 'recursive') ? 'recursive' : answers.some((a) => a.via === 'authoritative') ? 'authoritative' : undefined
  const seen = via ? { via } : {}
  if (counted.length > 0 && up === counted.length) return { outcome: 'all', records: checks, ...seen }
  if (error) return { outcome: 'inconclusive', records: checks, error, ...seen }
  return { outcome: up > 0 ? 'some' : 'none', records: checks, ...seen }
}

/**
 * Asks each distinct question once: connections of a batch that ask the same one (flattened apexes
 * asking for their common target's addresses, one domain connected in two applications) share its
 * answer, which asking again at the same moment would only repeat. Names are compared as written.
 */
function askOnce(dns: Dns): (q: { name: string; type: LookupType }) => Promise<Lookup> {
  const asked = new Map<string, Promise<Lookup>>()
  return ({ name, type }) => {
    const key = `${type} ${name}`
    let answer = asked.get(key)
    if (!answer) asked.set(key, (answer = dns.lookup(name, type)))
    return answer
  }
}

/**
 * Verifies many record sets at once: every distinct lookup of every set is asked together (the
 * resolver bounds how many are on the wire), then each set is judged. A sweep's batch waits once, not
 * once per connection and record.
 */
export async function verifyMany(dns: Dns, sets: { apex: string; records: DnsRecord[] }[]): Promise<Verification[]> {
  const questions = sets.map(({ apex, records }) => records.map((r) => questionsOf(apex, r)))
  const answers = await Promise.all(questions.flat(2).map(askOnce(dns)))
  let next = 0
  const out = sets.map(({ records }, i) => {
    const first = next
    const judged = records.map((r, j) => judge(r, answers.slice(next, (next += questions[i]![j]!.length))))
    return conclude(judged, answers.slice(first, next))
  })
  observeDnsChecks('verify', out.map((v) => v.outcome))
  return out
}

export async function verifyRecords(dns: Dns, apex: string, records: DnsRecord[]): Promise<Verification> {
  return (await verifyMany(dns, [{ apex, records }]))[0]!
}

type Verifiable = { domain: string; apex_domain: string; created_at: Date; desired_records: DnsRecord[] }

/**
 * Verifies connections: a reserved test domain's check is played by its scenario and asks no server
 * (src/domain/test-mode.ts); the others are asked together (`verifyMany`).
 */
/** A test domain's check, played by its scenario: every record resolves, or none yet (src/domain/test-mode.ts). */
function playedVerification(c: Verifiable, now: Date): Verification {
  const resolves = testRecordsResolve(c.domain, c.created_at, now)
  return {
    outcome: resolves ? 'all' : 'none',
    records: c.desired_records.map((r) => ({ type: r.type, host: r.host, value: r.value, propagated: resolves || r.type === 'REDIR301', observed: resolves ? [r.value] : [], ...(r.type === 'REDIR301' ? { skipped: true } : {}) })),
    via: 'authoritative',
  }
}

export async function verifyConnections(dns: Dns, rows: Verifiable[], now: Date): Promise<Verification[]> {
  const real = rows.filter((r) => !isTestDomain(r.domain))
  const asked = real.length ? await verifyMany(dns, real.map((r) => ({ apex: r.apex_domain, records: r.desired_records }))) : []
  let next = 0
  return rows.map((r) => (isTestDomain(r.domain) ? playedVerification(r, now) : asked[next++]!))
}

export async function verifyConnection(dns: Dns, row: Verifiable, now: Date): Promise<Verification> {
  return (await verifyConnections(dns, [row], now))[0]!
}

/** Which records resolve (the `data` of the connection's events). */
export const summary = (v: Verification) => ({
  records_propagated: v.records.filter((c) => c.propagated && !c.skipped).map(({ type, host, value }) => ({ type, host, value })),
  records_non_propagated: v.records.filter((c) => !c.propagated).map(({ type, host, value }) => ({ type, host, value })),
})

/** What a connection shows of its last check: the summary (`s`, when the caller made it already), which view answered, and for an inconclusive check why (which server said what). */
export const lastResult = (v: Verification, s: ReturnType<typeof summary> = summary(v)) => ({
  ...s,
  ...(v.via ? { checked_via: v.via } : {}),
  ...(v.outcome === 'inconclusive' && v.error ? { inconclusive: v.error } : {}),
})
