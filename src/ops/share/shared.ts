// Sharing (the API contract, sections 1 and 8): share links hand a connection's manual setup to whoever
// controls the DNS. `POST /connections/{id}/share` mints a link (WIDGET or KEY; a domain-bound widget
// token only for its hostname); `GET /share/{token}` and `POST /share/{token}:recheck` need no
// credential: the unguessable token is the capability, and an expired (30 days) or unknown one is 404.
// The widget SDK, not the server, emits the `shared` window event when it produces a link.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { DnsRecordSchema } from '../../domain/records.ts'
import { ValidationStageSchema } from '../../domain/resource-schemas.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { providerById } from '../../domain/providers.ts'
import { applicationFace } from '../../db/applications.ts'
import { brandingOut } from '../../domain/branding.ts'
import { connectionOut } from '../../domain/connections.ts'
import { Branding, Input, Nullable, Out, Timestamp } from '../schemas.ts'
import type { Ctx } from '../registry.ts'

export const TAG = 'Sharing'

export const TokenParam = Input({ token: Type.String({ minLength: 10, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }) })

const RecordRef = Out({ type: Type.String(), host: Type.String(), value: Type.String() })

export const SharedFlow = named('SharedFlow', Out({
  connection_id: Type.String(),
  domain: Type.String(),
  apex_domain: Type.String(),
  status: Type.Union(['pending', 'propagating', 'live', 'failed'].map((s) => Type.Literal(s))),
  error_code: Nullable(Type.String({ description: 'Why the connection failed, when it did' })),
  error_message: Nullable(Type.String()),
  records: Type.Array(DnsRecordSchema, { description: 'The records to add, `host` relative to the zone apex' }),
  propagation: Out({ records_propagated: Type.Array(RecordRef), records_non_propagated: Type.Array(RecordRef) }),
  provider: Nullable(Type.String()),
  provider_name: Nullable(Type.String()),
  manual_steps: Type.Array(Type.String(), { description: 'Provider-specific steps, where the catalog has them' }),
  dashboard_url: Nullable(Type.String()),
  expires_at: Timestamp('When the link stops answering'),
  application_name: Nullable(
    Type.String({ description: 'Who asks for the records, named on the share page: the application\'s branding display name, else its workspace\'s name' }),
  ),
  branding: Nullable(Branding),
  last_checked_at: Nullable(Timestamp()),
  next_check_at: Nullable(Timestamp('When Portico checks the records next, as on the connection: a page following the link asks again then (null: no check is scheduled)')),
  validation_stage: Nullable(ValidationStageSchema),
  secure: Type.Boolean({ description: 'Live, and its HTTPS certificate is issued and served (as on the connection)' }),
}))

export async function sharedOut(sql: Ctx['sql'], c: ConnectionRow, expiresAt: Date) {
  const provider = providerById(c.provider_id)
  const app = await applicationFace(sql, c.application_id)
  const branding = brandingOut(app?.branding)
  const shown = connectionOut(c)
  return {
    connection_id: c.id,
    domain: c.domain,
    apex_domain: c.apex_domain,
    status: c.status,
    error_code: c.error_code,
    error_message: c.error_message,
    records: c.desired_records,
    propagation: c.last_result ?? { records_propagated: [], records_non_propagated: [] },
    provider: c.provider_id,
    provider_name: provider?.name ?? null,
    manual_steps: provider?.manual_steps ?? [],
    dashboard_url: provider?.dashboard_url ?? null,
    expires_at: expiresAt,
    application_name: branding?.display_name ?? app?.workspace ?? null,
    branding,
    last_checked_at: c.last_checked_at,
    next_check_at: shown.next_check_at,
    validation_stage: c.validation_stage ?? null,
    secure: shown.secure,
  }
}
