// Verification: does every desired record resolve? Each record is looked up on its own, through the
// configured resolvers, and reported as propagated or not; a resolver failure makes the whole check
// inconclusive rather than a verdict, so a flaky resolver never fails a connection.
import type { Dns, Lookup } from './dns.ts'
import { absoluteHost } from './hostnames.ts'
import type { DnsRecord } from './records.ts'

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

async function checkOne(dns: Dns, apex: string, r: DnsRecord): Promise<{ check: RecordCheck; error?: string }> {
  const name = absoluteHost(r.host, apex)
  const base = { type: r.type, host: r.host, value: r.value }
  if (r.type === 'REDIR301') return { check: { ...base, propagated: true, observed: [], skipped: true } }
  if (r.type === 'CNAME' && r.host === '@') {
    // An apex cannot hold a CNAME: the provider flattens it (ALIAS/ANAME/flattening), so the apex
    // answers A queries with the target's addresses.
    const [mine, theirs] = await Promise.all([dns.lookup(name, 'A'), dns.lookup(r.value, 'A')])
    const err = [mine, theirs].find((l) => l.status === 'error') as Extract<Lookup, { status: 'error' }> | undefined
    if (err) return { check: { ...base, propagated: false, observed: [] }, error: err.error }
    const a = mine.status === 'ok' ? mine.values : []
    const b = new Set(theirs.status === 'ok' ? theirs.values : [])
    return { check: { ...base, propagated: a.length > 0 && a.every((ip) => b.has(ip)), observed: a } }
  }
  const type = r.type === 'SPFM' ? 'TXT' : r.type
  const l = await dns.lookup(name, type)
  if (l.status === 'error') return { check: { ...base, propagated: false, observed: [] }, error: l.error }
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

export async function verifyRecords(dns: Dns, apex: string, records: DnsRecord[]): Promise<Verification> {
  const results = await Promise.all(records.map((r) => checkOne(dns, apex, r)))
  const checks = results.map((r) => r.check)
  const error = results.find((r) => r.error)?.error
  const counted = checks.filter((c) => !c.skipped)
  const up = counted.filter((c) => c.propagated).length
  if (counted.length > 0 && up === counted.length) return { outcome: 'all', records: checks }
  if (error) return { outcome: 'inconclusive', records: checks, error }
  return { outcome: up > 0 ? 'some' : 'none', records: checks }
}

export const summary = (v: Verification) => ({
  records_propagated: v.records.filter((c) => c.propagated && !c.skipped).map(({ type, host, value }) => ({ type, host, value })),
  records_non_propagated: v.records.filter((c) => !c.propagated).map(({ type, host, value }) => ({ type, host, value })),
})
