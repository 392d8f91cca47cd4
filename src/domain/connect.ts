// The Connect verbs shared by the operations and the jobs: inspect a domain before connecting it,
// open (or resume) a connection, revive a failed one, record verifications, and disconnect one that
// was set up by hand. Each write and its outbox event go through the caller's transaction.
import type { Sql } from '../db/sql.ts'
import { ApiError } from '../errors.ts'
import { newId, randomToken } from '../ids.ts'
import { findOpen, insertConnection, markAppliedThroughConsent, setCustomRecords, setDisconnected, setRevived, setStatus, type ConnectionRow } from '../db/connections.ts'
import { forgetMonitorState } from '../db/monitor.ts'
import { landVerifications } from '../db/verification.ts'
import type { Dns } from '../adapters/dns.ts'
import type { DnsHealth } from './dns-health.ts'
import { valuesOf } from '../adapters/dns.ts'
import { connectionEnvelope, emitForConnection, recordRefs, type ConnectionEventType } from './events.ts'
import { changeStatus, emitDecided, eventData } from './status-changes.ts'
import { decide } from './transitions.ts'
import type { ParsedDomain } from './hostnames.ts'
import { afterVerification, LIMITS } from './lifecycle.ts'
import { baseName, firstStepRecords, moveStageWithEvent, newDcvLabel, type Validation } from './prevalidation.ts'
import { delegationsOfName } from '../db/prevalidation.ts'
import { detectProvider, type Provider } from './providers.ts'
import { absoluteHost } from './hostnames.ts'
import { apexStrategy, planRecords, type ConnectTarget, type DnsRecord } from './records.ts'
import { lastResult, summary, type Verification } from './verify.ts'
import { isTestDomain, playedWaits, testInspection } from './test-mode.ts'

export interface Inspection {
  provider: Provider | null
  nameservers: string[]
}

/**
 * Refuses what cannot be connected: hosting-platform subdomains, names that do not exist (NXDOMAIN)
 * or are not delegated. A resolver failure is a 503 to retry, never a verdict about the domain.
 */
export async function inspectDomain(dns: Dns, parsed: ParsedDomain, health?: DnsHealth): Promise<Inspection> {
  // A reserved test domain is never looked up: its scenario says what DNS would (src/domain/test-mode.ts).
  if (isTestDomain(parsed.domain)) return testInspection(parsed)
  if (parsed.platform) {
    throw new ApiError('platform_subdomain', `${parsed.domain} is a subdomain of a hosting platform (${parsed.apex}); connect a domain you own`)
  }
  const ns = await dns.lookup(parsed.apex, 'NS')
  if (ns.status === 'error') {
    if (health) throw health.unavailable(ns.error)
    throw new ApiError('service_unavailable', 'DNS lookups failed; try again shortly', { detection_error: 'resolver' }, { headers: { 'retry-after': '5' } })
  }
  if (ns.status === 'nxdomain') throw new ApiError('InvalidNameservers', `${parsed.apex} is not registered`, { reason: 'not_registered', registered: false })
  const nameservers = valuesOf(ns)
  if (nameservers.length === 0) throw new ApiError('InvalidNameservers', `${parsed.apex} has no nameserver delegation`, { reason: 'not_delegated' })
  return { provider: detectProvider(nameservers), nameservers }
}

/** A failed connection re-enters verification (the table's `revived`: `propagating` again with a fresh 24 hours). */
export async function reviveConnection(sql: Sql, c: ConnectionRow, now: Date): Promise<ConnectionRow> {
  const row = await changeStatus(sql, c, 'revived', now, (w) => setRevived(sql, c, w, now))
  if (!row || row === c) return c
  // Before cutover, the stage it takes up again is a stage change like any other.
  if (c.validation_stage === 'failed' && row.validation_stage && row.validation_stage !== 'failed') {
    await emitForConnection(sql, row, 'connection.validation_stage', now, { stage: row.validation_stage, previous: 'failed', records: recordRefs(row.desired_records) })
  }
  return row
}

/** Someone says the records are in place (the table's `said_added`): the 24-hour propagation clock starts. */
export async function markPropagating(sql: Sql, c: ConnectionRow, now: Date): Promise<ConnectionRow> {
  return (await changeStatus(sql, c, 'said_added', now, (w) => setStatus(sql, c, w, now))) ?? c
}

/**
 * Custom records replace the desired ones (the table's `records_replaced`: verification starts over);
 * `c` is locked by the caller.
 */
export async function replaceRecords(sql: Sql, c: ConnectionRow, records: unknown[], now: Date): Promise<ConnectionRow> {
  const row = await changeStatus(sql, c, 'records_replaced', now, (w) => setCustomRecords(sql, c, { records }, w, now))
  if (!row) throw new Error('records replaced on a connection that moved while locked')
  return row
}

/**
 * The provider applied the templates through the Domain Connect consent (the table's `records_written`,
 * `connection.applied` with `via: async`); `c` is locked by the caller.
 */
export async function appliedThroughConsent(sql: Sql, c: ConnectionRow, now: Date): Promise<ConnectionRow> {
  const updated_objects = c.desired_records.map(({ type, host, value }) => ({ type, host, name: absoluteHost(host, c.apex_domain), value }))
  const row = await changeStatus(sql, c, 'records_written', now, (w) => markAppliedThroughConsent(sql, c, w, now), { updated_objects, via: 'async' })
  if (!row) throw new Error('consent applied on a connection that moved while locked')
  return row
}

/**
 * The DCV label of `domain` in the tenant: the `_acme-challenge` delegation is one per DNS name, so
 * the label a connection of the same name (`a.example` or `*.a.example`, open or disconnected) has
 * is taken again, and the customer's CNAME, placed once, keeps working. A name another tenant's
 * open connection delegates already is refused: one `_acme-challenge` name cannot point at two labels.
 */
export async function dcvLabelFor(sql: Sql, tenantId: string, domain: string): Promise<string> {
  const base = baseName(domain)
  const held = await delegationsOfName(sql, base)
  const other = held.find((h) => h.tenant_id !== tenantId && !h.disconnected_at)
  if (other) {
    throw new ApiError('conflict', `_acme-challenge.${base} is delegated for another workspace's connection of ${other.domain}; one DNS name has one delegation`, { reason: 'dcv_delegation_taken' })
  }
  return held.find((h) => h.tenant_id === tenantId)?.dcv_label ?? newDcvLabel()
}

export interface OpenOptions {
  endUserRef: string | null
  wwwRedirect: boolean
  records: DnsRecord[] | null
  /** The integrator's own keys and values (validated by the operation). */
  metadata?: Record<string, string>
  /** `before_cutover`: pre-validation through delegated DCV in `dcvZone` (src/domain/prevalidation.ts). */
  validation?: Validation
  dcvZone?: string | null
}

/**
 * Creates the connection, or answers the open one for the same application and domain (a failed one
 * is revived: retrying a domain resumes it rather than creating a duplicate).
 */
export async function openConnection(
  sql: Sql,
  now: Date,
  app: { id: string; tenant_id: string },
  target: ConnectTarget,
  parsed: ParsedDomain,
  inspection: Inspection,
  opts: OpenOptions,
): Promise<{ row: ConnectionRow; outcome: 'created' | 'existing' | 'revived' }> {
  const existing = await findOpen(sql, app.id, parsed.domain)
  if (existing) {
    if (existing.status !== 'failed') return { row: existing, outcome: 'existing' }
    return { row: await reviveConnection(sql, existing, now), outcome: 'revived' }
  }
  const apex = inspection.provider?.capabilities.apex ?? null
  if (!opts.records && apexStrategy(parsed, target, apex) === 'unsupported') {
    throw new ApiError('apex_not_supported', `${inspection.provider?.name ?? 'This DNS provider'} cannot point the apex at a hostname, and the application has no apex_ipv4 addresses`)
  }
  const token = randomToken(18)
  const routing = opts.records ?? planRecords(parsed, target, apex, opts.wwwRedirect, token)
  const before = opts.validation === 'before_cutover'
  if (before && !opts.dcvZone) throw new ApiError('invalid_request', 'Validation before cutover needs delegated DCV, which this deployment does not have', { reason: 'dcv_not_configured' })
  const label = before ? await dcvLabelFor(sql, app.tenant_id, parsed.domain) : null
  // Before cutover, the first step's records are the desired ones; the routing records are held back
  // until the certificate is on every edge node.
  const records = before ? firstStepRecords(parsed, token, label!, opts.dcvZone!, opts.wwwRedirect) : routing
  const prevalidation = before ? { validation: 'before_cutover' as const, validation_stage: 'awaiting_records' as const, held_records: routing, dcv_label: label } : {}
  const created = decide('created', 'new')!
  const row = await insertConnection(sql, {
    ...prevalidation,
    id: newId('con', now.getTime()),
    tenant_id: app.tenant_id,
    application_id: app.id,
    domain: parsed.domain,
    apex_domain: parsed.apex,
    end_user_ref: opts.endUserRef,
    www_redirect: opts.wwwRedirect,
    provider_id: inspection.provider?.id ?? null,
    desired_records: records,
    records_source: opts.records ? 'custom' : 'planned',
    planned_target: target,
    verification_token: token,
    metadata: opts.metadata ?? {},
  }, created.to as ConnectionRow['status'], now)
  if (!row) {
    // A concurrent request created it first: answer that one.
    const raced = await findOpen(sql, app.id, parsed.domain)
    if (!raced) throw new Error('connection insert conflicted but no open connection exists')
    return { row: raced, outcome: 'existing' }
  }
  await emitDecided(sql, row, created.event, now, { records: recordRefs(records) })
  return { row, outcome: 'created' }
}

export interface Verified {
  /**
   * With `version` and `tid` (the row version's xmin and place as read), the result lands only if
   * nothing wrote the row since, and the write finds the row by its place instead of its key.
   */
  row: ConnectionRow & { version?: string; tid?: string }
  verification: Verification
}

/**
 * Records a batch of verifications in one statement: the lifecycle decides each row's next state, the
 * update only lands on rows still in the state they were verified in, or for rows read with their
 * version, on rows nobody wrote since (a concurrent disconnect, revival or new record set wins), and
 * transitions write their events in the same transaction. Returns how many results landed.
 */
export async function recordVerifications(sql: Sql, items: Verified[], now: Date): Promise<number> {
  if (items.length === 0) return 0
  const plans = items.map(({ row, verification }) => {
    const t = afterVerification(row, verification, now, { ...LIMITS, ...playedWaits(row.domain) })
    // One summary serves the row's last result and the event's data (both are serialised as they are).
    const seen = summary(verification)
    const last_result = lastResult(verification, seen)
    const event = t.event as ConnectionEventType | null
    const env = event ? connectionEnvelope({ ...row, status: t.status, error_code: t.error_code, error_message: t.error_message }, event, now, eventData(event, seen) as never) : null
    return { row, t, last_result, env }
  })
  const pinned = items.every(({ row }) => row.version && row.tid)
  const landed = await landVerifications(
    sql,
    plans.map((p) => ({
      id: p.row.id,
      expect: p.row.status,
      version: p.row.version ?? null,
      tid: p.row.tid ?? null,
      status: p.t.status,
      next_check_at: p.t.next_check_at?.toISOString(),
      error_code: p.t.error_code,
      error_message: p.t.error_message,
      last_result: p.last_result,
      event: p.t.event,
      event_id: p.env?.id,
      payload: p.env,
      stamp_live: !!p.t.effects?.includes('stamp_live'),
      stamp_failed: !!p.t.effects?.includes('stamp_failed'),
      rebaseline: !!p.t.effects?.includes('rebaseline_monitor'),
      wake: !!p.t.effects?.includes('wake_certificate_orders'),
    })),
    pinned,
    now,
  )
  // Pre-validation's stages move with what landed (each move checks the status it expects).
  for (const { row, t } of plans) {
    if (!row.validation_stage) continue
    const moved = t.status !== row.status
    const trigger = t.proven ? 'records_proven' : moved && t.status === 'live' ? 'live' : moved && t.status === 'failed' ? 'failed' : null
    if (trigger) await moveStageWithEvent(sql, row, trigger, now, t.status)
  }
  return landed
}

export interface DisconnectOutcome {
  connection_id: string
  domain: string
  disconnected: true
  records: {
    choice: 'remove'
    outcome: 'removed' | 'manual'
    via: string
    removed: RecordNote[]
    restored: RecordNote[]
    left_in_place: RecordNote[]
    failed: RecordNote[]
    manual_steps: string[]
  }
  serving: 'stopped'
  certificate: 'removed'
  monitoring: 'stopped'
}

interface RecordNote {
  type: string
  name: string
  value: string
  note: string
  prior_values?: string[]
}

/**
 * Disconnects a connection whose records were put in place by hand: Portico cannot remove them, so
 * the outcome lists them as left in place with the steps a person takes. Serving, certificate and
 * monitoring stop with the connection.
 */
export async function disconnectManual(sql: Sql, c: ConnectionRow, now: Date): Promise<DisconnectOutcome> {
  const shared = await sharedDelegations(sql, c)
  const left = c.desired_records.map((r) => {
    const keep = shared.get(`${r.host}|${r.value}`)
    return {
      type: r.type,
      name: absoluteHost(r.host, c.apex_domain),
      value: r.value,
      note: keep ? `still needed by the connection of ${keep}: keep it` : 'added by hand; remove it at your DNS provider',
      keep: Boolean(keep),
    }
  })
  const outcome: DisconnectOutcome = {
    connection_id: c.id,
    domain: c.domain,
    disconnected: true,
    records: {
      choice: 'remove',
      outcome: left.length ? 'manual' : 'removed',
      via: 'manual',
      removed: [],
      restored: [],
      left_in_place: left.map(({ keep: _, ...r }) => r),
      failed: [],
      manual_steps: left.filter((r) => !r.keep).map((r) => `At your DNS provider, delete the ${r.type} record ${r.name} → ${r.value}`),
    },
    serving: 'stopped',
    certificate: 'removed',
    monitoring: 'stopped',
  }
  await markDisconnected(sql, c, outcome, now)
  return outcome
}

/**
 * The `_acme-challenge` delegations of `c` another open connection of its tenant still needs (the
 * apex and the wildcard of one name share one): `host|value` → the other connection's domain.
 */
export async function sharedDelegations(sql: Sql, c: ConnectionRow): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  if (!c.dcv_label) return out
  const others = (await delegationsOfName(sql, baseName(c.domain))).filter((o) => o.id !== c.id && o.tenant_id === c.tenant_id && !o.disconnected_at)
  for (const o of others) {
    for (const r of o.desired_records) if (r.purpose === 'dcv_delegation') out.set(`${r.host}|${r.value}`, o.domain)
  }
  return out
}

/**
 * Closes a connection with its disconnect outcome: no more checks, no more watching, and
 * `connection.disconnected` in the outbox. A connection closed already is left as it is.
 */
export async function markDisconnected(sql: Sql, c: ConnectionRow, outcome: { records: DisconnectOutcome['records'] }, now: Date): Promise<void> {
  const d = decide('disconnected', c.status)
  if (!d) return
  const row = await setDisconnected(sql, c, outcome, now)
  if (!row) return
  if (d.has('forget_monitor')) await forgetMonitorState(sql, c)
  await emitDecided(sql, row, d.event, now, { records: recordRefs(row.desired_records), removal: outcome.records })
}

