// Connections: one customer domain under one application. Reads go through `connectionFor`, which
// applies tenancy and the widget-token rules (own application only; a domain-bound token only its
// hostname) so no operation can forget them. A foreign or disconnected connection is "not found".
import type { Sql } from '../db/sql.ts'
import { ApiError, notFound } from '../errors.ts'
import type { Principal } from './principal.ts'
import type { ApplicationRow } from '../db/applications.ts'
import { connectionInTenant, type ConnectionRow } from '../db/connections.ts'
import type { ConnectTarget } from './records.ts'
import { timeOut } from '../json.ts'

export interface EdgeTarget {
  cname_target: string
  apex_ipv4: string[]
}

/** The target an application's records point at: its own, or the platform edge. */
export function effectiveTarget(app: Pick<ApplicationRow, 'cname_target' | 'apex_ipv4'>, edge: EdgeTarget): ConnectTarget {
  if (app.cname_target) return { cname_target: app.cname_target, apex_ipv4: app.apex_ipv4 }
  return { cname_target: edge.cname_target, apex_ipv4: app.apex_ipv4.length > 0 ? app.apex_ipv4 : edge.apex_ipv4 }
}

/** A connection as answers show it; timestamps as ISO strings (a Date sends JSON.stringify down its slow path). */
export function connectionOut(c: ConnectionRow) {
  const sub = c.domain === c.apex_domain ? '' : c.domain.slice(0, -(c.apex_domain.length + 1))
  return {
    id: c.id,
    application_id: c.application_id,
    domain: c.domain,
    apex_domain: c.apex_domain,
    subdomain: sub,
    status: c.status,
    end_user_ref: c.end_user_ref,
    metadata: c.metadata ?? {},
    www_redirect: c.www_redirect,
    rail: c.rail,
    managed: c.managed,
    provider: c.provider_id,
    records: c.desired_records,
    records_source: c.records_source,
    records_outdated: c.records_outdated_at !== null,
    error_code: c.error_code,
    error_message: c.error_message,
    propagation: c.last_result ?? { records_propagated: [], records_non_propagated: [] },
    check_count: c.check_count,
    last_checked_at: timeOut(c.last_checked_at),
    next_check_at: timeOut(c.next_check_at),
    propagating_since: timeOut(c.propagating_since),
    live_at: timeOut(c.live_at),
    certificate_status: c.certificate_status ?? null,
    secure: c.status === 'live' && c.certificate_status === 'issued' && (c.certificate_served_at ?? null) !== null,
    validation: c.validation ?? 'http',
    validation_stage: c.validation_stage ?? null,
    validation_detail: c.validation_detail ?? null,
    failed_at: timeOut(c.failed_at),
    retried_at: timeOut(c.retried_at),
    created_at: timeOut(c.created_at),
    updated_at: timeOut(c.updated_at),
  }
}

/** A domain-bound widget token may act only on its own hostname. */
export function assertHostAllowed(p: Principal, domain: string): void {
  if (p.kind === 'WIDGET' && p.boundHost && p.boundHost !== domain) {
    throw new ApiError('forbidden', `This token is bound to ${p.boundHost}`)
  }
}

/** How a caller reaches a connection through `connectionFor`. */
export interface ConnectionAccess {
  /** Lock the row for the caller's transaction. */
  lock?: boolean
  /**
   * To remove it: a disconnected connection is answered too (a repeated disconnect answers again), and
   * a widget token must be bound to a domain (403). An agent's removal waits for its person's yes
   * (src/ops/connect/disconnect.ts, src/domain/person-confirm.ts).
   */
  removal?: boolean
}

/**
 * The one guard that fetches a connection for a caller, used by operations' `prepare` and handlers
 * alike: tenant-scoped, and a widget token sees its own application only and a bound one only its
 * hostname, all as 404, so another tenant's id is indistinguishable from an unknown one.
 */
export async function connectionFor(sql: Sql, p: Principal, id: string, opts: ConnectionAccess = {}): Promise<ConnectionRow> {
  if (!('tenantId' in p)) throw notFound('Connection not found')
  const closedToo = !!opts.removal
  const c = await connectionInTenant(sql, id, p.tenantId, { closedToo, lock: !!opts.lock })
  checkSeen(p, c, opts)
  return c
}

/**
 * `connectionFor`'s checks of a connection found in the caller's tenant (undefined: none): a widget
 * token sees its own application's only, and a bound one only its hostname's (404, as an unknown id);
 * a removal by a widget token needs a bound one (403).
 */
export function checkSeen<C extends { application_id: string; domain: string }>(p: Principal, c: C | undefined, opts: ConnectionAccess = {}): asserts c is C {
  if (!c || (p.kind === 'WIDGET' && p.applicationId !== c.application_id)) throw notFound('Connection not found')
  if (opts.removal && p.kind === 'WIDGET' && !p.boundHost) throw new ApiError('forbidden', 'Removing a domain with a widget token needs a token bound to that domain')
  // Another hostname's connection is not a bound token's to see: 404, as an unknown id.
  if (p.kind === 'WIDGET' && p.boundHost && p.boundHost !== c.domain) throw notFound('Connection not found')
}
