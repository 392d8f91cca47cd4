// A connection as the person connecting it follows it (the widget's `GET /connections/{id}/status`):
// each desired record with what the last verification saw, the records in the way as of that
// verification (not the first analysis), whether HTTPS is served yet, and a version that changes
// whenever any of it does, so a client can wait for the next change (long polling).
// Invariants:
// - conflicts are looked up again after every verification (at the zones' own nameservers), once per
//   verification however many clients watch; a live connection has none;
// - `secure` is `secured` only when Portico's certificate is issued (or, without a CA configured, the
//   edge approved one on demand), `securing` while a live connection pointed at the edge waits for it,
//   `failed` with the CA's reason, `not_served` when this deployment does not serve HTTPS for it.
import { isTestDomain, TEST_DNS } from './test-mode.ts'
import { createHash } from 'node:crypto'
import type { Sql } from '../db/sql.ts'
import type { Dns } from '../adapters/dns.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { certificateOf } from '../db/certificates.ts'
import { conflictsFor, type Conflict } from './domain-check.ts'
import type { ApplicationRow } from '../db/applications.ts'

export type RecordState = 'found' | 'waiting' | 'conflict'
export type SecureState = 'secured' | 'securing' | 'failed' | 'not_served'

export interface Branding {
  display_name: string | null
  logo_url: string | null
  accent_color: string | null
}

/** The application as the widget shows it; `branding` is read when the application carries it. */
export function applicationFace(app: ApplicationRow): { id: string; name: string; branding: Branding | null } {
  const b = (app as ApplicationRow & { branding?: Partial<Branding> | null }).branding
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)
  const branding = b && typeof b === 'object' ? { display_name: str(b.display_name), logo_url: str(b.logo_url), accent_color: str(b.accent_color) } : null
  return { id: app.id, name: app.name, branding }
}

const CACHE_LIMIT = 2000
/** Conflicts per connection, as of one verification (`last_checked_at`). */
const conflictCache = new Map<string, { at: number; conflicts: Conflict[] }>()

async function conflictsAsOfLastCheck(dns: Dns, c: ConnectionRow): Promise<Conflict[]> {
  if (c.status === 'live') return []
  const at = c.last_checked_at?.getTime() ?? 0
  const hit = conflictCache.get(c.id)
  if (hit && hit.at === at) return hit.conflicts
  // A test domain's zone holds nothing in the way (src/domain/test-mode.ts).
  const found = await conflictsFor(isTestDomain(c.domain) ? TEST_DNS : dns, c.apex_domain, c.desired_records)
  // A lookup that failed says nothing: the last answer stands until one succeeds.
  const conflicts = found.error && hit ? hit.conflicts : found.conflicts
  conflictCache.delete(c.id)
  conflictCache.set(c.id, { at, conflicts })
  if (conflictCache.size > CACHE_LIMIT) conflictCache.delete(conflictCache.keys().next().value!)
  return conflicts
}

export interface StatusDeps {
  db: Sql
  /** Lookups at the zones' own nameservers (the verification's view). */
  dns: Dns
  /** The platform edge's CNAME target; connections pointed elsewhere are not served by Portico. */
  edgeTarget: string
  /** The deployment serves HTTPS at its edge (an edge is configured). */
  edge: boolean
  /** Portico orders certificates itself (an ACME CA is configured). */
  issuer: boolean
}

async function secureOf(deps: StatusDeps, c: ConnectionRow & { ondemand_at?: Date | null }): Promise<{ secure: SecureState; secure_error: string | null }> {
  if (!deps.edge || c.planned_target?.cname_target !== deps.edgeTarget) return { secure: 'not_served', secure_error: null }
  const cert = await certificateOf(deps.db, c.id)
  if (cert?.status === 'issued') return { secure: 'secured', secure_error: null }
  if (c.status !== 'live') return { secure: 'securing', secure_error: null }
  if (cert?.status === 'failed') return { secure: 'failed', secure_error: cert.last_error }
  if (!deps.issuer && c.ondemand_at) return { secure: 'secured', secure_error: null }
  return { secure: 'securing', secure_error: null }
}

const keyOf = (r: { type: string; host: string }) => `${r.type.toUpperCase()} ${r.host.toLowerCase()}`

export async function connectionStatus(deps: StatusDeps, c: ConnectionRow, app: ApplicationRow) {
  const conflicts = await conflictsAsOfLastCheck(deps.dns, c)
  const found = new Set(((c.last_result?.records_propagated ?? []) as { type: string; host: string; value: string }[]).map((r) => `${keyOf(r)} ${r.value}`))
  const inTheWay = new Set(conflicts.map((x) => keyOf(x.desired)))
  const records = c.desired_records.map((r) => {
    const state: RecordState = c.status === 'live' || found.has(`${keyOf(r)} ${r.value}`) ? 'found' : inTheWay.has(keyOf(r)) ? 'conflict' : 'waiting'
    return { type: r.type, host: r.host, value: r.value, ...(r.ttl !== undefined ? { ttl: r.ttl } : {}), ...(r.priority !== undefined ? { priority: r.priority } : {}), state }
  })
  const body = {
    id: c.id,
    domain: c.domain,
    status: c.status,
    rail: c.rail,
    error_code: c.error_code,
    error_message: c.error_message,
    records,
    conflicts,
    ...(await secureOf(deps, c)),
    validation_stage: c.validation_stage ?? null,
    last_checked_at: c.last_checked_at?.toISOString() ?? null,
    next_check_at: c.next_check_at?.toISOString() ?? null,
  }
  const version = createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 16)
  return { ...body, version, application: applicationFace(app) }
}
