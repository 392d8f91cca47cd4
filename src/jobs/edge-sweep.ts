// The edge reconciler, every minute when an edge is configured: puts Portico's servers back on an
// edge that restarted, and every active route and issued certificate it does not have; pushes the routes of
// connections that went live since their serving settings were saved (or whose push failed). Certificates
// are ordered by `issueDue` as soon as a connection goes live (its own queue, woken by the database);
// the sweep runs it too, as a safety net, and for renewals past `renew_after`.
import { ordersCertificate } from '../domain/test-mode.ts'
import type { Sql } from '../db/sql.ts'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { EdgeError, reconcileEach, type Edge } from '../adapters/edge.ts'
import { type CertificateIssuer, retryAfterMs } from '../adapters/acme.ts'
import type { Dns } from '../adapters/dns.ts'
import { certificateKey, certificateNames, issueCertificate } from '../domain/certificates.ts'
import { checkDelegationBeforeRenewal, delegationOf, issueBeforeCutoverDue } from '../domain/prevalidation.ts'
import { nextIssuingRetry } from '../db/prevalidation.ts'
import type { DcvZone } from '../adapters/dcv.ts'
import { connectionsDueForIssue, issuedCertificates, markServed, markUnserved, nextCertificateRetry, retryFailedNow } from '../db/certificates.ts'
import { notify, WORK_CHANNEL } from '../db/channels.ts'
import { pushPower } from '../domain/power.ts'
import { activeSites, sitesToPush } from '../db/power.ts'
import { errorFields, log } from '../logger.ts'
import { alone } from '../db/locks.ts'
import { ApiError } from '../errors.ts'
import type { Sweep } from './index.ts'

export interface EdgeSweepDeps {
  db: Sql
  clock: Clock
  config: Config
  dns: Dns
  edge: Edge
  issuer?: CertificateIssuer
  /** Delegated DCV (DCV_ZONE): pre-validation's orders, and renewals of the certificates they got, validate by DNS-01 there. */
  dcv?: DcvZone
}

/** Puts back every active route and issued certificate the edge does not have (a restart, a lost call). */
async function restore(deps: EdgeSweepDeps): Promise<number> {
  const have = await deps.edge.present()
  const sites = await activeSites(deps.db)
  const certs = await issuedCertificates(deps.db)
  let put = 0
  for (const s of sites.filter((s) => !have.has(`site-${s.connection_id}-0`))) {
    await pushPower(deps, s.conn, s)
    put++
  }
  for (const c of certs.filter((c) => !have.has(`cert-${c.connection_id}`))) {
    // One certificate that cannot be put back (a key sealed under another SECRETS_KEY) is logged and
    // passed over: it must not keep every other route and certificate off a restarted node.
    try {
      await markUnserved(deps.db, c.connection_id)
      await deps.edge.putCertificate(c.connection_id, c.cert_pem!, certificateKey(deps.config, c))
      await markServed(deps.db, c.connection_id, deps.clock.now())
      put++
    } catch (err) {
      if (err instanceof EdgeError) throw err
      log.warn('edge restore: certificate not put back', { connection_id: c.connection_id, ...errorFields(err) })
    }
  }
  return put
}

export async function sweepEdge(deps: EdgeSweepDeps): Promise<number> {
  let handled = 0
  // Each node of the fleet on its own and all at once: a restarted node gets what it lacks.
  handled += await reconcileEach(deps.edge, (edge) => restore({ ...deps, edge }))
  const pending = await sitesToPush(deps.db)
  for (const s of pending) {
    await pushPower(deps, s.conn, s)
    handled++
  }
  return handled + (await issueDue(deps))
}

const ISSUE_LOCK = 0x63657274 // "cert"
/** An order still `pending` this long after it started died with its process: it is taken again. */
const STALE_ORDER_MS = 10 * 60 * 1000
/** The edge ordered a certificate on demand (a visitor came first): Portico does not order within this. */
export const ONDEMAND_WINDOW_MS = 60 * 60 * 1000

/**
 * Live connections pointed at the edge without a certificate, oldest first, then those whose failed
 * order may be retried or whose certificate is due for renewal.
 */
async function dueForIssue(deps: EdgeSweepDeps, limit: number) {
  const now = deps.clock.now()
  return connectionsDueForIssue(deps.db, {
    cnameTarget: deps.config.edge.cnameTarget,
    now,
    ondemandBefore: new Date(now.getTime() - ONDEMAND_WINDOW_MS),
    staleBefore: new Date(now.getTime() - STALE_ORDER_MS),
    limit,
  })
}

/**
 * Orders every certificate that is due, `CERT_CONCURRENCY` at a time, until none is left: woken when a
 * connection goes live, and by the edge sweep as a safety net. One runner per database (an advisory
 * lock), so no name is ordered twice at once. A CA that rate limits pauses the run for its Retry-After.
 */
export function issueDue(deps: EdgeSweepDeps): Promise<number> {
  const issuer = deps.issuer
  if (!issuer) return Promise.resolve(0)
  return alone(deps.db, ISSUE_LOCK, async () => {
    // Pre-validation first: a connection waiting for its certificate before cutover has a person
    // waiting, and DNS-01 needs no edge to answer the CA.
    let handled = await issueBeforeCutoverDue({ ...deps, issuer })
    // No HTTP-01 order while the edge cannot serve the challenge; the edge watch wakes this run when it is back.
    if (deps.edge.canServe && !(await deps.edge.canServe())) return handled
    let pausedUntil = 0
    let failed = false
    // A failed order carries its retry time: the workers' due timers re-read the schedule.
    const settled = async (n: number) => {
      if (failed) await notify(deps.db, WORK_CHANNEL, 'schedule:certificate-issue')
      return n
    }
    // An order that fails before it is recorded stays due: each connection is tried once per run.
    const tried = new Set<string>()
    for (;;) {
      const fetched = (await dueForIssue(deps, 4 * deps.config.certConcurrency)).filter((c) => !tried.has(c.id))
      if (fetched.length === 0) return settled(handled)
      for (const c of fetched) tried.add(c.id)
      // Test domains get no order, except the one that plays a certificate failure (src/domain/test-mode.ts).
      const due = fetched.filter((c) => ordersCertificate(c.domain))
      let next = 0
      const worker = async () => {
        while (next < due.length && performance.now() >= pausedUntil) {
          const c = due[next++]!
          try {
            // A connection with a DCV delegation renews through it (no customer action, no edge round trip).
            const dns01 = c.dcv_label && deps.dcv ? delegationOf(deps.dcv, c) : undefined
            // Validated through the delegation, on a process without DCV settings: never by HTTP-01 instead
            // (a wildcard cannot be, and the delegation is what the customer set up); it waits for them.
            if (c.dcv_label && !deps.dcv) {
              handled++
              continue
            }
            // The delegation must still be there, or the CA could only refuse: said ahead of expiry instead.
            if (dns01 && (await checkDelegationBeforeRenewal(deps, c)) !== 'order') {
              handled++
              continue
            }
            await issueCertificate({ ...deps, issuer }, c, certificateNames(c, c.redirect_to_www), { dns01 })
          } catch (err) {
            // The edge went away mid-run: the rest waits for it (nothing was recorded for this one).
            if (err instanceof ApiError && (err.details as { reason?: string } | undefined)?.reason === 'edge_unavailable') {
              pausedUntil = Infinity
              continue
            }
            log.warn('certificate not issued', { connection_id: c.id, ...errorFields(err) })
            failed = true
            const wait = retryAfterMs(err)
            if (wait !== null) pausedUntil = Math.max(pausedUntil, performance.now() + wait)
          }
          handled++
        }
      }
      await Promise.all(Array.from({ length: Math.min(deps.config.certConcurrency, due.length) }, worker))
      // Rate limited: the rest waits for the next wake-up after the pause (the failed orders carry retry_at).
      // The edge down: the edge watch wakes the run when it is back.
      if (pausedUntil > performance.now()) return settled(handled)
    }
  })
}

export const EDGE_QUEUE = 'edge-sweep'

export function edgeSweep(deps: EdgeSweepDeps): Sweep {
  return { queue: EDGE_QUEUE, cron: '* * * * *', drain: () => sweepEdge(deps) }
}

export const ISSUE_QUEUE = 'certificate-issue'

/** When the earliest failed order may be tried again (the workers' due timer sleeps until then). */
async function nextRetry(deps: EdgeSweepDeps): Promise<Date | null> {
  const [live, before] = await Promise.all([nextCertificateRetry(deps.db), nextIssuingRetry(deps.db)])
  return live && before ? (live < before ? live : before) : (live ?? before)
}

/**
 * Certificate orders, woken by a connection going live (a database notification) and, for a failed
 * order, at its retry time; the cron is a safety net.
 */
export function issueSweep(deps: EdgeSweepDeps): Sweep {
  return { queue: ISSUE_QUEUE, cron: '* * * * *', drain: () => issueDue(deps), nextDue: () => nextRetry(deps) }
}

/** How often a worker looks at the edge (a short call to each node's admin API). */
export const EDGE_WATCH_MS = 2_000
/** A failed order this close before the edge went down may have failed because of it: retried at once too. */
const OUTAGE_SLACK_MS = 60_000

/**
 * Watches the edge from a worker: when a node that was down answers again, the certificates that
 * became due meanwhile are ordered at once (the issuer is woken, not left to its retry schedule),
 * orders that failed during the outage are retried at once, after the edge sweep has put back what
 * the node lost.
 */
export function watchEdge(deps: EdgeSweepDeps, kick: (queue: string) => void, everyMs = EDGE_WATCH_MS): { stop(): void } {
  const canServe = deps.edge.canServe?.bind(deps.edge)
  if (!canServe) return { stop() {} }
  let downSince: Date | null = null
  let busy = false
  const tick = async () => {
    if (busy) return
    busy = true
    try {
      const up = await canServe().catch(() => false)
      if (!up) {
        downSince ??= deps.clock.now()
        return
      }
      if (!downSince) return
      const since = new Date(downSince.getTime() - OUTAGE_SLACK_MS)
      downSince = null
      const now = deps.clock.now()
      const retried = await deps.db.begin((tx) => retryFailedNow(tx, since, now))
      // Put back what the node lost (its routes, the HTTP-01 path to Portico) before any order: a CA
      // validating against a node without its configuration would fail the order it was woken for.
      await sweepEdge(deps).catch((err) => log.warn('edge back: reconcile failed', errorFields(err)))
      log.info('edge back: ordering due certificates', { retried })
      kick(ISSUE_QUEUE)
      kick(EDGE_QUEUE)
    } catch (err) {
      log.warn('edge watch failed', errorFields(err))
    } finally {
      busy = false
    }
  }
  const timer = setInterval(() => void tick(), everyMs)
  timer.unref?.()
  return { stop: () => clearInterval(timer) }
}
