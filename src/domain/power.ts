// Power (the API contract, sections 1 and 6): the edge serves a connection by reverse-proxying it to the
// integrator's origin, optionally redirecting the apex to www and serving the origin from a root
// path. Settings are kept per connection; the route goes to the edge once the connection is live
// (`power_status`: pending → active), and leaves it on removal or disconnect (`removed`).
// Invariants:
// - The origin is resolved and checked when saved (no private, loopback or metadata address, except
//   loopback under the test setting) and the edge dials the address that was checked, so a later DNS
//   answer cannot move the traffic somewhere private.
import type { Sql } from '../db/sql.ts'
import type { Clock } from '../clock.ts'
import { invalid } from '../errors.ts'
import { guardUrl } from '../adapters/ssrf.ts'
import type { Edge, SiteRoute } from '../adapters/edge.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { setPowerRemoved, setPowerStatus, upsertPower, type PowerRow } from '../db/power.ts'
import type { Dns } from '../adapters/dns.ts'
import { connectionEnvelope, emit } from './events.ts'
import { addressResolver } from './webhook-delivery.ts'

export interface PowerDeps {
  db: Sql
  clock: Clock
  config: { webhookAllowLoopback: boolean }
  dns: Dns
  edge: Edge
}

export const powerOut = (p: PowerRow, domain: string) => ({
  connection_id: p.connection_id,
  domain,
  origin_url: p.origin_url,
  redirect_to_www: p.redirect_to_www,
  root_path: p.root_path,
  status: p.status,
  last_error: p.last_error,
  updated_at: p.updated_at,
})

async function powerStatus(sql: Sql, c: ConnectionRow, p: PowerRow, now: Date): Promise<void> {
  const env = connectionEnvelope(c, 'power_status', now, { power: powerOut(p, c.domain) }, { power_status: p.status })
  await emit(sql, c.tenant_id, c.application_id, c.id, env)
}

/** Checks an origin URL as the edge will reach it; answers the URL with its host pinned to the checked address. */
export async function checkOrigin(deps: Pick<PowerDeps, 'config' | 'dns'>, raw: string): Promise<URL> {
  const guard = await guardUrl(raw, { allowLoopback: deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns), requireHttps: false })
  if (!guard.ok) throw invalid(`origin_url is not allowed: ${guard.reason}`, [{ in: 'body', field: 'origin_url', message: guard.reason }])
  if (guard.url.search || guard.url.hash) throw invalid('origin_url takes no query or fragment', [{ in: 'body', field: 'origin_url', message: 'no query or fragment' }])
  return guard.url
}

/** The routes of a connection: its host (or www, when the apex redirects there) to the origin. */
export function siteRoutes(c: ConnectionRow, p: PowerRow, pinned: { origin: URL; address: string }): SiteRoute[] {
  const proxy: SiteRoute['action'] = { kind: 'proxy', origin: pinned.origin, dial: pinned.address, rootPath: p.root_path }
  if (p.redirect_to_www && c.domain === c.apex_domain) {
    return [
      { host: c.domain, action: { kind: 'redirect', to: `www.${c.domain}` } },
      { host: `www.${c.domain}`, action: proxy },
    ]
  }
  return [{ host: c.domain, action: proxy }]
}

/** Saves the settings; the route is pushed now when the connection is live, else when it goes live. */
export async function savePower(deps: PowerDeps, c: ConnectionRow, input: { origin_url: string; redirect_to_www?: boolean; root_path?: string | null }): Promise<PowerRow> {
  const origin = await checkOrigin(deps, input.origin_url)
  if (input.redirect_to_www && c.domain !== c.apex_domain) {
    throw invalid('redirect_to_www applies to an apex domain only', [{ in: 'body', field: 'redirect_to_www', message: `${c.domain} is not an apex` }])
  }
  const now = deps.clock.now()
  const row = await deps.db.begin(async (tx) => {
    const r = await upsertPower(tx, c, { origin_url: origin.href, redirect_to_www: input.redirect_to_www ?? false, root_path: input.root_path ?? null }, now)
    await powerStatus(tx, c, r, now)
    return r
  })
  return c.status === 'live' ? pushPower(deps, c, row) : row
}

/** Pushes the connection's route to the edge: `active`, or `failed` with the reason. */
export async function pushPower(deps: PowerDeps, c: ConnectionRow, p: PowerRow): Promise<PowerRow> {
  let status: PowerRow['status'] = 'active'
  let error: string | null = null
  try {
    const guard = await guardUrl(p.origin_url!, { allowLoopback: deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns), requireHttps: false })
    if (!guard.ok) throw new Error(`origin refused: ${guard.reason}`)
    await deps.edge.putSite(c.id, siteRoutes(c, p, { origin: guard.url, address: guard.address }))
  } catch (err) {
    status = 'failed'
    error = (err as Error).message.slice(0, 500)
  }
  if (status === p.status && error === p.last_error) return p
  const now = deps.clock.now()
  return deps.db.begin(async (tx) => {
    const r = await setPowerStatus(tx, c, status, error, now)
    await powerStatus(tx, c, r, now)
    return r
  })
}

/** Marks the connection's serving settings removed (`power_status: removed`) in the caller's transaction. */
export async function markPowerRemoved(sql: Sql, c: ConnectionRow, now: Date): Promise<PowerRow | null> {
  const r = await setPowerRemoved(sql, c, now)
  if (r) await powerStatus(sql, c, r, now)
  return r ?? null
}

/** Takes the route off the edge and marks the settings removed. */
export async function removePower(deps: Pick<PowerDeps, 'db' | 'clock' | 'edge'>, c: ConnectionRow): Promise<PowerRow | null> {
  const removed = await deps.db.begin((tx) => markPowerRemoved(tx, c, deps.clock.now()))
  if (removed) await deps.edge.removeSite(c.id)
  return removed
}
