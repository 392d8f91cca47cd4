// The edge reconciler, every minute when an edge is configured: puts Portico's servers back on an
// edge that restarted, and every active route and issued certificate it does not have; pushes the routes of
// connections that went live since their serving settings were saved (or whose push failed), issues certificates for live
// connections pointed at the edge that have none, and renews those past `renew_after`.
import type { Sql } from '../db/sql.ts'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { reconcileEach, type Edge } from '../adapters/edge.ts'
import type { CertificateIssuer } from '../adapters/acme.ts'
import type { ConnectionRow } from '../domain/connections.ts'
import type { Dns } from '../domain/dns.ts'
import { certificateKey, certificateNames, issueCertificate, type CertificateRow } from '../domain/certificates.ts'
import { pushPower, type PowerRow } from '../domain/power.ts'
import { errorFields, log } from '../logger.ts'
import type { Sweep } from './index.ts'

export interface EdgeSweepDeps {
  db: Sql
  clock: Clock
  config: Config
  dns: Dns
  edge: Edge
  issuer?: CertificateIssuer
}

/** Issuances per sweep: each is a round trip to the CA, so a backlog is spread over minutes. */
const ISSUE_PER_SWEEP = 20
/** A failed issuance is retried after an hour. */
const RETRY_FAILED_MS = 60 * 60 * 1000

/** Puts back every active route and issued certificate the edge does not have (a restart, a lost call). */
async function restore(deps: EdgeSweepDeps): Promise<number> {
  const have = await deps.edge.present()
  const sites = (await deps.db`
    select p.*, row_to_json(c.*) as conn from power_settings p join connections c on c.id = p.connection_id
    where p.status = 'active' and c.disconnected_at is null`) as (PowerRow & { conn: ConnectionRow })[]
  const certs = (await deps.db`select * from certificates where status = 'issued'`) as CertificateRow[]
  let put = 0
  for (const s of sites.filter((s) => !have.has(`site-${s.connection_id}-0`))) {
    await pushPower(deps, s.conn, s)
    put++
  }
  for (const c of certs.filter((c) => !have.has(`cert-${c.connection_id}`))) {
    await deps.edge.putCertificate(c.connection_id, c.cert_pem!, certificateKey(deps.config, c))
    put++
  }
  return put
}

export async function sweepEdge(deps: EdgeSweepDeps): Promise<number> {
  let handled = 0
  // Each node of the fleet on its own and all at once: a restarted node gets what it lacks.
  handled += await reconcileEach(deps.edge, (edge) => restore({ ...deps, edge }))
  const now = deps.clock.now()
  const pending = (await deps.db`
    select p.*, row_to_json(c.*) as conn from power_settings p join connections c on c.id = p.connection_id
    where p.status in ('pending', 'failed') and c.status = 'live' and c.disconnected_at is null`) as (PowerRow & { conn: ConnectionRow })[]
  for (const s of pending) {
    await pushPower(deps, s.conn, s)
    handled++
  }
  if (!deps.issuer) return handled
  // Live connections whose records point at the edge, without a certificate (or one that failed an
  // hour ago), then certificates due for renewal.
  const toIssue = (await deps.db`
    select c.*, coalesce(p.redirect_to_www, false) as redirect_to_www from connections c
    left join certificates k on k.connection_id = c.id and k.status <> 'removed'
    left join power_settings p on p.connection_id = c.id and p.status <> 'removed'
    where c.status = 'live' and c.disconnected_at is null and c.planned_target->>'cname_target' = ${deps.config.edge.cnameTarget}
      and (k.id is null or (k.status = 'failed' and k.updated_at < ${new Date(now.getTime() - RETRY_FAILED_MS)})
        or (k.status = 'issued' and k.managed and k.renew_after <= ${now}))
    order by c.live_at limit ${ISSUE_PER_SWEEP}`) as (ConnectionRow & { redirect_to_www: boolean })[]
  for (const c of toIssue) {
    try {
      await issueCertificate(deps, c, certificateNames(c, c.redirect_to_www))
    } catch (err) {
      log.warn('edge sweep: certificate not issued', { connection_id: c.id, ...errorFields(err) })
    }
    handled++
  }
  return handled
}

export const EDGE_QUEUE = 'edge-sweep'

export function edgeSweep(deps: EdgeSweepDeps): Sweep {
  return { queue: EDGE_QUEUE, cron: '* * * * *', drain: () => sweepEdge(deps) }
}
