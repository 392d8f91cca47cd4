// A connection set up through Domain Connect's asynchronous rail is managed: Portico keeps the
// provider's grant (async-api.ts) and uses it as the provider-API rails use theirs, to re-apply its
// templates (`:reapply`, the monitor's repair) and to revert them on disconnect. Which grant a
// connection has and what a refusal does are decided in src/domain/grants.ts.
import { ApiError } from '../../errors.ts'
import type { Clock } from '../../clock.ts'
import type { Sql } from '../../db/sql.ts'
import type { Dns } from '../../adapters/dns.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { absoluteHost } from '../hostnames.ts'
import type { RevertPlan } from '../record-plan.ts'
import type { AsyncClient } from './settings.ts'
import { revokeGrant, type GrantRow } from '../../db/domain-connect-grants.ts'
import { reapplyWithGrant, revertWithGrant, type ApiOutcome, type GrantDeps } from './async-api.ts'

export interface ManagedDeps {
  db: Sql
  clock: Clock
  config: { webhookAllowLoopback: boolean; secretsKey: Buffer; domainConnect: { asyncClients: Record<string, AsyncClient> } }
  dns: Dns
}

export function grantDeps(deps: ManagedDeps): GrantDeps {
  return {
    db: deps.db,
    http: { dns: deps.dns, allowLoopback: deps.config.webhookAllowLoopback },
    secretsKey: deps.config.secretsKey,
    clients: deps.config.domainConnect.asyncClients,
    now: () => deps.clock.now(),
  }
}

/** The provider refused the grant itself (revoked or expired consent), as opposed to failing to answer. */
export const grantRefused = (r: Extract<ApiOutcome<null>, { ok: false }>) => r.status === 401 || r.status === 403 || /token endpoint answered 4\d\d|no refresh token/.test(r.error)

/** An outcome the operations can answer: a refused grant is ProviderAuthenticationError, anything else a failed write. */
export function grantFailure(g: GrantRow, r: Extract<ApiOutcome<null>, { ok: false }>): ApiError {
  return grantRefused(r)
    ? new ApiError('ProviderAuthenticationError', `${g.dc_provider_id} refused the stored Domain Connect grant`, { provider: g.dc_provider_id, reason: 'credential_refused', provider_message: r.error })
    : new ApiError('dns_write_failed', `${g.dc_provider_id} did not apply the template`, { provider: g.dc_provider_id, reason: 'provider_refused', provider_message: r.error })
}

export async function reapplyTemplates(deps: ManagedDeps, g: GrantRow): Promise<void> {
  const r = await reapplyWithGrant(grantDeps(deps), g)
  if (!r.ok) throw grantFailure(g, r)
}

/** Reverts the templates at the provider; the records they set are reported as removed. */
export async function revertTemplates(deps: ManagedDeps, g: GrantRow, c: ConnectionRow): Promise<RevertPlan> {
  const r = await revertWithGrant(grantDeps(deps), g)
  if (!r.ok) throw grantFailure(g, r)
  await revokeGrant(deps.db, g, deps.clock.now())
  const removed = c.desired_records
    .filter((d) => d.type !== 'REDIR301')
    .map((d) => ({ type: d.type, name: absoluteHost(d.host, c.apex_domain), value: d.value, note: `removed by ${g.dc_provider_id} (Domain Connect revert of ${g.service_ids.join(', ')})` }))
  return { changes: [], removed, restored: [], left_in_place: [] }
}

/** The removal plan when the grant cannot be used: the template's records, to delete by hand or after a new consent. */
export function grantRemovalPlan(c: ConnectionRow, now: Date, why: string, provider: string) {
  const records = c.desired_records
    .filter((d) => d.type !== 'REDIR301')
    .map((d) => ({ type: d.type, host: d.host, name: absoluteHost(d.host, c.apex_domain), value: d.value, ttl: d.ttl ?? 3600, change: 'written', action: 'delete', prior: [], prior_source: 'provider', note: 'written by the Domain Connect template; delete it' }))
  return {
    connection_id: c.id,
    domain: c.domain,
    provider,
    provider_name: provider,
    connected_via: c.rail,
    access: 'kept',
    access_detail: why,
    record_removal: 'automatic',
    default_choice: 'remove',
    reauthorize: { methods: ['sign_in'], provider, flow: 'domain_connect', regions: [] as string[] },
    records_in_use_elsewhere: false,
    records,
    manual_steps: records.map((r) => `At ${provider}, delete the ${r.type} record ${r.name} → ${r.value}`),
    notes: ['Start the Domain Connect rail again (POST /connections/{id}/domainconnect:start with rail async) to grant Portico access once more, or remove the records by hand with the steps.'],
    teardown: ['serving: stop', 'certificate: remove', 'monitoring: stop'],
    removal_started_at: now.toISOString(),
    removed: false,
    removed_at: null,
    result: null,
  }
}
