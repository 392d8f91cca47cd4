// Managed grants (the API contract, section 4): what Portico keeps to change a connection's records after its
// person has left, and every use of it. Four decisions live here and nowhere else:
// - which grant a connection has (`grantOf`): the Domain Connect grant of a connection the asynchronous
//   rail set up, else the continuous provider account (API key or OAuth grant) it was written with,
//   else none (the connection is not managed);
// - writing through it (`writeThroughGrant`): `:reapply` and the monitor's repair rail;
// - taking the records out through it (`removeThroughGrant`): a disconnect, before its transaction;
// - what "the provider refused the grant" does (`onRefusal`), the same wherever it is met:
//
//   | where it is met (site)                      | account          | connection                                          | the answer                          |
//   | `use`: a saved account applies or connects   | needs_reconnect  | -                                                   | 422 ProviderAuthenticationError     |
//   | `managed`: re-apply, the monitor's repair    | needs_reconnect  | flagged for re-consent, `connection.reapply.failed` | 422, or the repair's detail         |
//   | `removal`: a disconnect through the grant    | needs_reconnect  | -                                                   | 409 reauthorization_required + plan |
//   | a credential given once (any site)           | -                | -                                                   | as its site                         |
//
// Provider calls happen outside any transaction: a slow provider never holds a database connection.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import { clearReauthorize, flagReauthorize, openRailConnection } from '../db/connections.ts'
import { accountById, markAccountUsed, markOneTimeUsed } from '../db/provider-accounts.ts'
import { logCause } from '../logger.ts'
import { ApiError, type ErrorReason } from '../errors.ts'
import { releaseLease, removalPlan, revertThroughRail, takeLease, unreachedRevert, writeThroughRail, type AppliedState, type RailConnection } from './apply.ts'
import { connectionFor, type ConnectionAccess } from './connections.ts'
import type { Dns } from '../adapters/dns.ts'
import { domainConnectGrantOf } from './domain-connect/async-api.ts'
import type { GrantRow } from '../db/domain-connect-grants.ts'
import { grantRemovalPlan, reapplyTemplates, revertTemplates, type ManagedDeps } from './domain-connect/managed.ts'
import { emitForConnection } from './events.ts'
import { absoluteHost } from './hostnames.ts'
import type { RepairRail } from './monitor.ts'
import type { Principal } from './principal.ts'
import { markNeedsReconnect, type Credential, type ProviderSettings } from './provider-accounts.ts'
import type { AccountRow } from '../db/provider-accounts.ts'
import { usableCredential, type OAuthSettings } from './provider-oauth.ts'
import { providerById } from './providers.ts'
import type { ReplacedSet, RevertPlan } from './record-plan.ts'

export interface GrantDeps {
  db: Sql
  clock: Clock
  config: ProviderSettings & OAuthSettings & ManagedDeps['config']
  /** The resolver provider calls go through (PowerDNS API URLs are checked and pinned with it). */
  dns: Dns
}

/** A grant Portico holds for a managed connection. */
export type Grant = { kind: 'domain_connect'; provider: string; grant: GrantRow } | { kind: 'account'; provider: string; account: AccountRow }

/** The fields of a written record an answer or an event names. */
export interface WrittenObject {
  type: string
  host: string
  name: string
  value: string
}

export interface GrantWrite {
  row: RailConnection
  changed: boolean
  zone: string
  updated: WrittenObject[]
  /** The customer's own values the write replaced (RailWrite.replaced); none through Domain Connect, which says nothing of them. */
  replaced: ReplacedSet[]
}

/** A connection as the rails read it, through the one guard (src/domain/connections.ts `connectionFor`). */
export const railConnectionFor = (sql: Sql, p: Principal, id: string, opts: ConnectionAccess = {}) => connectionFor(sql, p, id, opts) as Promise<RailConnection>

/** The kind of grant a connection is managed through, from its row alone. */
function managedThrough(c: RailConnection): Grant['kind'] | null {
  if (!c.managed) return null
  if (c.rail === 'domain_connect') return 'domain_connect'
  return c.provider_account_id ? 'account' : null
}

/**
 * Which grant Portico holds for a connection: decided here only. A provider account counts while it is
 * continuous and still holds its credential (a one-time account deletes it once used).
 */
export async function grantOf(db: Sql, c: RailConnection): Promise<Grant | null> {
  switch (managedThrough(c)) {
    case 'domain_connect': {
      const g = await domainConnectGrantOf(db, c.tenant_id, c.id)
      return g ? { kind: 'domain_connect', provider: g.dc_provider_id, grant: g } : null
    }
    case 'account': {
      const a = await accountById(db, c.provider_account_id!)
      if (!a || a.tenant_id !== c.tenant_id || a.access !== 'continuous' || !a.credential_sealed) return null
      return { kind: 'account', provider: a.provider, account: a }
    }
    default:
      return null
  }
}

/** The provider refused the grant or credential itself (revoked, expired, wrong), as opposed to failing to answer. */
export const isRefusal = (err: unknown): boolean => err instanceof ApiError && err.code === 'ProviderAuthenticationError'

/** What a refusal's answer carries on: its catalogue reason and the provider's own words, never more. */
export function refusalDetails(err: ApiError): { reason?: ErrorReason; provider_message?: string } {
  const d = (err.details ?? {}) as { reason?: ErrorReason; provider_message?: string }
  return { ...(d.reason ? { reason: d.reason } : {}), ...(d.provider_message ? { provider_message: d.provider_message } : {}) }
}

export type RefusalSite = 'use' | 'managed' | 'removal'

/** The table in the header of this file: what a refusal flags, by where it is met. */
const FLAGS: Record<RefusalSite, { account: boolean; connection: boolean }> = {
  use: { account: true, connection: false },
  managed: { account: true, connection: true },
  removal: { account: true, connection: false },
}

/**
 * Records what a refusal means (the table above) and answers whether `err` was one; the caller answers
 * as its site does. The account and the connection are passed only when the refused credential was
 * theirs: a credential given once flags nothing. One transaction, so the flags and the event land together.
 */
export async function onRefusal(
  deps: Pick<GrantDeps, 'db' | 'clock'>,
  err: unknown,
  site: RefusalSite,
  at: { provider: string; account?: { id: string } | null; connection?: { id: string } | null },
): Promise<boolean> {
  if (!isRefusal(err)) return false
  const refusal = err as ApiError
  const now = deps.clock.now()
  const lastError = refusalDetails(refusal).provider_message ?? refusal.title
  await deps.db.begin(async (tx) => {
    if (at.account && FLAGS[site].account) await markNeedsReconnect(tx, at.account.id, lastError, now)
    if (at.connection && FLAGS[site].connection) {
      const row = await flagReauthorize(tx, at.connection, now)
      if (row) await emitForConnection(tx, row, 'connection.reapply.failed', now, { reason: 'reauthorization_required', provider: at.provider })
    }
  })
  return true
}

/** A saved account's credential, ready to use (an OAuth grant renewed first); a refused renewal is recorded at `site` and thrown. */
export async function accountCredential(deps: GrantDeps, a: AccountRow, site: RefusalSite, connection: { id: string } | null = null): Promise<Credential | null> {
  try {
    return await usableCredential(deps, a)
  } catch (err) {
    await onRefusal(deps, err, site, { provider: a.provider, account: a, connection })
    throw err
  }
}

/** A write through an account worked: a one-time account is spent (its key deleted), a continuous one is active again. */
export async function accountUsed(deps: Pick<GrantDeps, 'db' | 'clock'>, a: AccountRow): Promise<void> {
  const now = deps.clock.now()
  await deps.db.begin((tx) => (a.access === 'one_time' ? markOneTimeUsed(tx, a, now) : markAccountUsed(tx, a, now)))
}

/** The records a Domain Connect template set, as an answer names them. */
function templateObjects(c: RailConnection): WrittenObject[] {
  return c.desired_records.filter((d) => d.type !== 'REDIR301').map((d) => ({ type: d.type, host: d.host, name: absoluteHost(d.host, c.apex_domain), value: d.value }))
}

/**
 * Writes a managed connection's records again through its grant: the templates applied again by the
 * Domain Connect provider, or the records written through the provider account (an OAuth grant renewed
 * first). A write that works clears the re-consent flag and marks the account used; a refusal is
 * recorded at the `managed` site and thrown.
 */
export async function writeThroughGrant(deps: GrantDeps, c: RailConnection, grant: Grant): Promise<GrantWrite> {
  const now = () => deps.clock.now()
  if (grant.kind === 'domain_connect') {
    try {
      await reapplyTemplates(deps, grant.grant)
    } catch (err) {
      await onRefusal(deps, err, 'managed', { provider: grant.provider, connection: c })
      throw err
    }
    const row = await deps.db.begin((tx) => clearReauthorize<AppliedState>(tx, c, now()))
    return { row, changed: true, zone: grant.grant.apex, updated: templateObjects(c), replaced: [] }
  }
  const a = grant.account
  const cred = await accountCredential(deps, a, 'managed', c)
  if (!cred) throw new ApiError('conflict', 'This connection is not managed: Portico holds no grant to change its records', { managed: false })
  try {
    const w = await writeThroughRail(deps, c, cred, { accountId: a.id, managed: true, rail: a.kind === 'oauth' ? 'oauth' : 'api', announce: false })
    await deps.db.begin((tx) => markAccountUsed(tx, a, now()))
    return { row: w.row, changed: w.changed, zone: w.zone.name, updated: w.updated, replaced: w.replaced }
  } catch (err) {
    await onRefusal(deps, err, 'managed', { provider: grant.provider, account: a, connection: c })
    throw err
  }
}

/** A removal that cannot go through: 409 with the removal plan, so a person can finish it by hand. */
function removalRefused(plan: unknown, err?: ApiError): ApiError {
  return new ApiError('reauthorization_required', undefined, err ? refusalDetails(err) : undefined, { extra: { plan } })
}

/**
 * Before a disconnect's transaction: when a rail wrote the connection's records, take them out through
 * its grant (a Domain Connect grant, a continuous provider account or OAuth grant) or the one-time
 * `credential`. Null when there is nothing to take out here (records set up by hand, already
 * disconnected). When no grant can remove them, `reauthorization_required` (409: the connection's
 * state, not the request, stands in the way) carries the full removal plan and nothing is removed.
 */
export async function removeThroughGrant(deps: GrantDeps, c: RailConnection, credential?: string, leaveRecords = false): Promise<{ plan: RevertPlan; via: string } | null> {
  if (c.disconnected_at) return null
  const now = deps.clock.now()
  // Asked to leave the records (no grant will ever work again: the credential revoked, the account at the
  // host or in Portico removed): nothing is sent to the provider; every set is named with its prior values.
  // Written through a provider's API whatever the rail says (a connection whose only write was refused midway is still `manual`).
  const apiVia = c.rail === 'oauth' || c.rail === 'api' ? c.rail : 'api'
  if (leaveRecords && c.applied && managedThrough(c) !== 'domain_connect') return { plan: unreachedRevert(c, now, true), via: apiVia }
  const grant = await grantOf(deps.db, c)
  if (managedThrough(c) === 'domain_connect') {
    if (grant?.kind !== 'domain_connect') throw removalRefused(grantRemovalPlan(c, now, 'Portico holds no Domain Connect grant for this connection any more', 'the DNS provider'))
    try {
      return { plan: await revertTemplates(deps, grant.grant, c), via: 'domain_connect' }
    } catch (err) {
      if (!(await onRefusal(deps, err, 'removal', { provider: grant.provider }))) throw err
      throw removalRefused(grantRemovalPlan(c, now, 'The provider refused the stored Domain Connect grant; it was revoked or expired', grant.provider), err as ApiError)
    }
  }
  if (!c.applied) return null
  const account = grant?.kind === 'account' && !credential ? grant.account : null
  try {
    const cred: Credential | null = credential
      ? { provider: c.applied.provider, secret: credential, apiUrl: c.applied.api_url }
      : account
        ? await usableCredential(deps, account)
        : null
    if (!cred) throw removalRefused(removalPlan(c, now, 'Portico holds no grant for this provider any more; give a credential once, or remove the records by hand'))
    const leased = await takeLease(deps, c)
    try {
      // Written through the API whatever the rail says (a connection whose only write was refused midway is still `manual`).
      const via = c.rail === 'oauth' || c.rail === 'api' ? c.rail : !credential && account?.kind === 'oauth' ? 'oauth' : 'api'
      return { plan: await revertThroughRail(deps, { ...leased, applied: leased.applied ?? c.applied }, cred), via }
    } finally {
      await releaseLease(deps, c.id)
    }
  } catch (err) {
    // The zone is gone at the host (or the account with it): no credential will ever reach it again, so
    // the teardown finishes and everything Portico wrote or removed is named, with its prior values.
    if (err instanceof ApiError && refusalDetails(err).reason === 'zone_not_reached') return { plan: unreachedRevert(c, now), via: apiVia }
    if (!(await onRefusal(deps, err, 'removal', { provider: c.applied.provider, account }))) throw err
    throw removalRefused(removalPlan(c, now, credential ? 'The provider refused the credential given' : 'The provider refused the stored grant; it was revoked or expired'), err as ApiError)
  }
}

/**
 * The monitor's repair rail (src/domain/monitor.ts `RepairRail`): a drifted managed connection gets its
 * records written again through its grant, as `:reapply` does. A refused grant is not repaired; the
 * connection is flagged for re-consent as a refused re-apply is.
 */
export function managedRepairRail(deps: GrantDeps): RepairRail {
  return {
    via: 'managed_dns',
    async repair(conn) {
      const c = await openRailConnection<AppliedState>(deps.db, conn)
      const grant = c ? await grantOf(deps.db, c) : null
      if (!c || !grant) return { fixed: false, detail: 'Portico holds no grant for this connection; put the records back at the DNS provider.' }
      try {
        const w = await writeThroughGrant(deps, c, grant)
        if (grant.kind === 'domain_connect') return { fixed: true, detail: `Re-applied ${grant.grant.service_ids.join(', ')} through the ${grant.provider} Domain Connect grant` }
        const what = w.updated.map((u) => `${u.type} ${u.name}`).join(', ')
        const over = w.replaced.map((r) => `${r.type} ${r.name} → ${r.values.join(', ')}`).join('; ')
        const said = over ? `, replacing what was set at the provider since (${over}; disconnect restores it)` : ''
        return { fixed: true, detail: `Re-applied ${what || 'the records'} through the ${providerById(grant.provider)?.name ?? grant.provider} grant${said}`, ...(w.replaced.length ? { replaced: w.replaced } : {}) }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err
        logCause(err, { job: 'monitor repair', connection_id: c.id, code: err.code })
        if (isRefusal(err)) return { fixed: false, detail: 'The DNS provider refused the stored grant; re-authorize the connection.' }
        // Refused midway (issue 46): what is missing is named, and the repair is tried again when the host said.
        const notRestored = ((err.details as { not_restored?: { name: string; type: string; ttl: number | null; values: string[] }[] } | undefined)?.not_restored ?? []).map((u) => ({ name: u.name, type: u.type, ttl: u.ttl, values: u.values }))
        const wait = Number(err.headers['retry-after'])
        const retryAfter = err.status === 503 || err.status === 429 ? (Number.isFinite(wait) && wait > 0 ? Math.ceil(wait) : undefined) : undefined
        if (notRestored.length) {
          const now = deps.clock.now()
          await deps.db.begin((tx) => emitForConnection(tx, c, 'connection.reapply.failed', now, { reason: 'dns_write_failed', provider: grant.provider, not_restored: notRestored, ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}) }))
        }
        return { fixed: false, detail: `The repair failed: ${err.title}`, ...(retryAfter !== undefined ? { retryAfter } : {}), ...(notRestored.length ? { not_restored: notRestored } : {}) }
      }
    },
  }
}
