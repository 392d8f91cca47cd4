// Pre-validation (issue 50): move a domain that serves a live site elsewhere without a moment of
// broken HTTPS. A connection made with `validation: before_cutover` asks first for two records that
// change nothing for visitors: an ownership TXT and `_acme-challenge.<host> CNAME <label>.<DCV_ZONE>`
// (delegated DCV, one label per DNS name in a workspace, placed once: see dcvLabelFor). When both resolve at the zone's own
// nameservers, Portico orders the certificate by DNS-01, answering in the DCV zone it controls, puts
// it on every edge node, and only then asks for the routing records. From the first request the
// edge receives, it serves a valid certificate. Renewals validate through the same delegation with
// no customer action.
//
// The stages, one table (STAGE_TABLE): awaiting_records → issuing → awaiting_routing → complete, and
// failed when the connection fails. Each move writes `connection.validation_stage` in the same
// transaction as the move.
import type { Sql } from '../db/sql.ts'
import type { ConnectionRow, StoredRecord } from '../db/connections.ts'
import { askForRouting, issuingDue, moveStage, sayOnIssuing, setValidationDetail } from '../db/prevalidation.ts'
import { certificateOf } from '../db/certificates.ts'
import { notify, WORK_CHANNEL } from '../db/channels.ts'
import type { DcvZone } from '../adapters/dcv.ts'
import type { Dns01Delegation } from '../adapters/acme.ts'
import type { Edge } from '../adapters/edge.ts'
import { randomBytes } from 'node:crypto'
import { ApiError } from '../errors.ts'
import { errorFields, log } from '../logger.ts'
import { emitForConnection, recordRefs } from './events.ts'
import { VALIDATION_STAGES } from './resource-schemas.ts'
import { absoluteHost, type ParsedDomain } from './hostnames.ts'
import type { Dns } from '../adapters/dns.ts'
import { verifyRecords } from './verify.ts'
import { DEFAULT_TTL, OWNERSHIP_LABEL, type DnsRecord } from './records.ts'
import { certificateNames, issueCertificate, warnRenewal, type SecureDeps } from './certificates.ts'

export const VALIDATIONS = ['http', 'before_cutover'] as const
export type Validation = (typeof VALIDATIONS)[number]
export const STAGES = VALIDATION_STAGES
export type Stage = (typeof STAGES)[number]

/** What moves a stage, and from which stages to which (anything else leaves the stage as it is). */
export const STAGE_TABLE = {
  /** The ownership TXT and the `_acme-challenge` delegation resolve. */
  records_proven: { from: ['awaiting_records'], to: 'issuing' },
  /** The certificate is issued and on every edge node. */
  certificate_on_edge: { from: ['issuing'], to: 'awaiting_routing' },
  /** The routing records resolve: the connection is live. */
  live: { from: ['awaiting_routing'], to: 'complete' },
  /** The connection failed (its records never appeared). */
  failed: { from: ['awaiting_records', 'issuing', 'awaiting_routing'], to: 'failed' },
} as const satisfies Record<string, { from: readonly Stage[]; to: Stage }>
export type StageTrigger = keyof typeof STAGE_TABLE

/** The stage after `trigger`, or null when it does not move this stage. */
export function nextStage(stage: Stage | null | undefined, trigger: StageTrigger): Stage | null {
  const rule = STAGE_TABLE[trigger]
  return stage && (rule.from as readonly Stage[]).includes(stage) ? rule.to : null
}

export const ACME_CHALLENGE_LABEL = '_acme-challenge'

/** A fresh DCV label: 20 lowercase letters and digits, the start of `<label>.<DCV_ZONE>`. */
export const newDcvLabel = () => 'd' + randomBytes(12).toString('hex').slice(0, 19)

/** The name a wildcard connection validates and routes below (`*.a.example` → `a.example`); the name itself otherwise. */
export const baseName = (domain: string) => (domain.startsWith('*.') ? domain.slice(2) : domain)

/** `name` relative to the zone apex with a label in front: `_acme-challenge.shop`, or `_acme-challenge` at the apex. */
const below = (label: string, parsed: ParsedDomain, name = baseName(parsed.domain)) => (name === parsed.apex ? label : `${label}.${name.slice(0, -(parsed.apex.length + 1))}`)

/**
 * The first step's records: the ownership TXT and the `_acme-challenge` delegation of every name the
 * certificate will carry (the apex's www too when it redirects there).
 */
export function firstStepRecords(parsed: ParsedDomain, token: string, label: string, dcvZone: string, wwwRedirect: boolean): DnsRecord[] {
  const name = baseName(parsed.domain)
  const out: DnsRecord[] = [
    { type: 'TXT', host: below(OWNERSHIP_LABEL, parsed), value: `portico-verify=${token}`, ttl: DEFAULT_TTL, purpose: 'ownership' },
    { type: 'CNAME', host: below(ACME_CHALLENGE_LABEL, parsed), value: `${label}.${dcvZone}`, ttl: DEFAULT_TTL, purpose: 'dcv_delegation' },
  ]
  if (wwwRedirect && parsed.isApex) {
    out.push({ type: 'CNAME', host: below(ACME_CHALLENGE_LABEL, parsed, `www.${name}`), value: `${label}-www.${dcvZone}`, ttl: DEFAULT_TTL, purpose: 'dcv_delegation' })
  }
  return out
}

/** The DNS-01 delegation of a connection: its names' answers go to its labels in the DCV zone. */
export function delegationOf(zone: DcvZone, c: Pick<ConnectionRow, 'domain' | 'dcv_label'>): Dns01Delegation {
  const base = baseName(c.domain)
  return { zone, labelOf: (name) => (name === `www.${base}` && name !== base ? `${c.dcv_label}-www` : c.dcv_label!) }
}

/** The steps as the records response, the widget and the share page show them: prove, then route. */
export function stepsOf(c: Pick<ConnectionRow, 'validation' | 'validation_stage' | 'desired_records' | 'held_records'>) {
  if (c.validation !== 'before_cutover') return null
  const stage = c.validation_stage ?? null
  const prove = c.desired_records.filter((r) => r.purpose === 'ownership' || r.purpose === 'dcv_delegation')
  const route = c.held_records ?? c.desired_records.filter((r) => !(r.purpose === 'ownership' || r.purpose === 'dcv_delegation'))
  return [
    { step: 'prove' as const, done: stage !== 'awaiting_records' && stage !== 'failed', records: prove },
    { step: 'route' as const, done: stage === 'complete', asked: stage === 'awaiting_routing' || stage === 'complete', records: route },
  ]
}

/** Writes a stage move and its event in the caller's transaction; the row, or undefined when the stage had moved already. */
export async function moveStageWithEvent(sql: Sql, c: ConnectionRow, trigger: StageTrigger, now: Date, status?: ConnectionRow['status']): Promise<ConnectionRow | undefined> {
  const from = c.validation_stage ?? null
  const to = nextStage(from, trigger)
  if (!from || !to) return undefined
  const row = trigger === 'certificate_on_edge' ? await askForRouting(sql, c.id, now) : await moveStage(sql, c.id, from, to, now, status)
  if (!row) return undefined
  await emitForConnection(sql, row, 'connection.validation_stage', now, { stage: to, previous: from, records: recordRefs(row.desired_records as StoredRecord[]) })
  // Proven: the certificate order is due now; routing asked: verification is due now.
  if (to === 'issuing') await notify(sql, WORK_CHANNEL, 'certificate-issue')
  if (to === 'awaiting_routing') await notify(sql, WORK_CHANNEL, 'connect-verify')
  return row
}

export interface PrevalidationDeps extends SecureDeps {
  dcv?: DcvZone
}

/**
 * Whether the connection's `_acme-challenge` delegations resolve now: a renewal through them is only
 * ordered when they do. `inconclusive` when DNS gave no verdict (nothing is said then).
 */
export async function delegationInPlace(dns: Dns, c: Pick<ConnectionRow, 'apex_domain' | 'desired_records'>): Promise<{ ok: boolean; inconclusive: boolean; missing: StoredRecord[] }> {
  const wanted = c.desired_records.filter((r) => r.purpose === 'dcv_delegation')
  if (wanted.length === 0) return { ok: true, inconclusive: false, missing: [] }
  const v = await verifyRecords(dns, c.apex_domain, wanted)
  const missing = wanted.filter((r) => !v.records.some((x) => x.host === r.host && x.type === r.type && x.propagated))
  return { ok: v.outcome === 'all', inconclusive: v.outcome === 'inconclusive', missing }
}

/** The renewal warning of a connection whose delegation is gone, in words: what is missing and when the certificate ends. */
export function delegationWarning(c: Pick<ConnectionRow, 'apex_domain'>, missing: StoredRecord[], notAfter: Date | null): string {
  const records = missing.map((r) => `${absoluteHost(r.host, c.apex_domain)} CNAME ${r.value}`).join(', ')
  return `The _acme-challenge delegation is gone (${records}): the certificate cannot be renewed${notAfter ? ` and expires at ${notAfter.toISOString()}` : ''}. Put the record back; renewal then needs nothing else.`
}

/**
 * Every renewal through the delegation (the renewal job's and `ssl:renew`) asks this first: when the
 * `_acme-challenge` delegation no longer resolves, no order is placed (the CA could only refuse) and
 * the certificate gets `renewal_warning` naming the record, with its `secure_status` event (once).
 * Answers `order` when the renewal may go ahead, `missing` (warned) or `inconclusive` (DNS gave no verdict; nothing said).
 */
export async function checkDelegationBeforeRenewal(deps: Pick<SecureDeps, 'db' | 'clock'> & { dns: Dns }, c: ConnectionRow): Promise<'order' | 'missing' | 'inconclusive'> {
  const d = await delegationInPlace(deps.dns, c)
  if (d.ok) return 'order'
  if (d.inconclusive) return 'inconclusive'
  const cert = await certificateOf(deps.db, c.id)
  await warnRenewal(deps, c, delegationWarning(c, d.missing, cert?.not_after ?? null))
  return 'missing'
}

/** Whether the connection's certificate is on every edge node now (a node down or lacking it: not yet). */
async function onEveryNode(edge: Edge, connectionId: string): Promise<boolean> {
  // What the reachable nodes all hold, asked first: a node that fails the read is marked down, and
  // then no longer counts as serving (a fleet's `present` alone would leave it out of the judgement).
  const held = (await edge.present()).has(`cert-${connectionId}`)
  return held && (!edge.canServe || (await edge.canServe()))
}

/**
 * One connection in stage `issuing`: order its certificate by DNS-01 through the delegation (unless
 * issued already), and once it is on every edge node, ask for the routing records. Answers what
 * happened; a DCV zone server that does not answer leaves the order waiting, and the connection says so.
 */
export async function issueBeforeCutover(deps: PrevalidationDeps, c: ConnectionRow): Promise<'routing' | 'waiting'> {
  const dcv = deps.dcv
  if (!dcv || !c.dcv_label) throw new ApiError('service_unavailable', 'Delegated DCV is not configured on this deployment (DCV_ZONE)', { reason: 'dcv_not_configured' })
  const held = await certificateOf(deps.db, c.id)
  if (held?.status !== 'issued') {
    const names = certificateNames(c, c.www_redirect)
    try {
      await issueCertificate(deps, c, names, { dns01: delegationOf(dcv, c) })
    } catch (err) {
      const reason = (err as ApiError).details && (err as { details: { reason?: string } }).details.reason
      if (reason === 'dcv_unavailable' || reason === 'edge_unavailable') {
        await deps.db.begin((tx) => setValidationDetail(tx, c.id, (err as Error).message))
        return 'waiting'
      }
      await deps.db.begin((tx) => setValidationDetail(tx, c.id, `The certificate order failed and is tried again: ${(err as Error).message}`.slice(0, 500)))
      throw err
    }
  }
  if (!(await onEveryNode(deps.edge, c.id))) {
    await deps.db.begin((tx) => setValidationDetail(tx, c.id, 'The certificate is issued; waiting for every edge node to hold it before the routing records are asked for'))
    return 'waiting'
  }
  await deps.db.begin((tx) => moveStageWithEvent(tx, c, 'certificate_on_edge', deps.clock.now()))
  return 'routing'
}

/** What a connection in `issuing` says on a process without delegated DCV. */
export const DCV_NOT_CONFIGURED_DETAIL =
  'dcv_not_configured: delegated DCV is not configured on this deployment (DCV_ZONE, DCV_PDNS_API_URL, DCV_PDNS_API_KEY); the certificate is ordered once it is'

/** A pre-validation order that is stale after this long in `pending` is taken again. */
const STALE_ORDER_MS = 10 * 60 * 1000

/** Every connection in stage `issuing` whose order is due, one after another; answers how many moved to routing. */
export async function issueBeforeCutoverDue(deps: PrevalidationDeps): Promise<number> {
  // Made while DCV was configured, the process now without it: the order cannot be placed, said so.
  if (!deps.dcv) return (await sayOnIssuing(deps.db, DCV_NOT_CONFIGURED_DETAIL), 0)
  if (!deps.issuer) return 0
  const now = deps.clock.now()
  const due = await issuingDue(deps.db, { now, staleBefore: new Date(now.getTime() - STALE_ORDER_MS), limit: 200 })
  let moved = 0
  for (const c of due) {
    try {
      if ((await issueBeforeCutover(deps, c)) === 'routing') moved++
    } catch (err) {
      log.warn('pre-validation order failed', { connection_id: c.id, ...errorFields(err) })
    }
  }
  return moved
}
