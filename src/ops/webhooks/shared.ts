// Webhooks (the API contract, sections 4 and 6): endpoints, the delivery log and manual replay. Secrets are
// `whsec_…`, shown at creation and stored sealed with SECRETS_KEY (signing needs the secret itself).
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { ATTEMPT_TIMEOUT_MS, BACKOFF_MS, MAX_ATTEMPTS } from '../../domain/webhook-delivery.ts'
import { named } from '../../domain/named.ts'
import type { WebhookRow } from '../../db/webhooks.ts'
import { notFound } from '../../errors.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import type { AttemptRecord } from '../../db/webhook-delivery.ts'
import { Nullable, Out, Timestamp } from '../schemas.ts'
import type { TenantCtx } from '../registry.ts'

export const TAG = 'Webhooks'

export const SIGNING_NOTE =
  'Deliveries are JSON POSTs signed by the Standard Webhooks scheme: headers `webhook-id` (the event id, `evt_…`; deduplicate on ' +
  'it), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 with the secret\'s bytes over ' +
  '`{webhook-id}.{webhook-timestamp}.{body}`). Reject timestamps more than 5 minutes from now (the replay window). Any 2xx is ' +
  `success; otherwise up to ${MAX_ATTEMPTS} attempts in total, ${BACKOFF_MS.map((m) => m / 1000 + ' s').join(' then ')} apart ` +
  `(a 429 or 503 with Retry-After waits as asked, up to an hour), each with a ${ATTEMPT_TIMEOUT_MS / 1000} s timeout; redirects ` +
  'are not followed; a 410 Gone disables the endpoint. The same event can arrive more than once. Every send is in the delivery log ' +
  'from the moment it goes out (`error: "in flight"` until its answer is recorded; `interrupted` when Portico stopped during it and ' +
  'sent it again, which does not count against the three). Each worker process has at most 64 sends in flight to one endpoint (16 once its sends ' +
  'fail), so a slow receiver delays only its own events; an endpoint that keeps failing is paused for new events (5 s doubling to 5 minutes after its last ' +
  'failure) while retries keep their schedule.'

export const Webhook = named('WebhookEndpoint', Out({
  id: Type.String(),
  application_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  secret: Type.Optional(Type.String({ description: 'Returned only to whoever created the endpoint (or rotated its secret), in that answer' })),
  created_at: Timestamp(),
  disabled_at: Type.Optional(Nullable(Timestamp())),
  disabled_reason: Type.Optional(Nullable(Type.String())),
}))

export const webhookOut = (w: WebhookRow) => ({
  id: w.id,
  application_id: w.application_id,
  url: w.url,
  events: w.events,
  created_at: w.created_at,
  disabled_at: w.disabled_at,
  disabled_reason: w.disabled_reason,
})

/** The lists' scope (webhooks, deliveries, events): a widget's own application; an `app_id` filter that is not the tenant's is 404. */
export async function scope(ctx: TenantCtx, appId: string | undefined): Promise<{ tenantId: string; appId: string | null }> {
  const p = ctx.principal
  if (p.kind === 'WIDGET') {
    if (appId !== undefined && appId !== p.applicationId) throw notFound('Application not found')
    return { tenantId: p.tenantId, appId: p.applicationId }
  }
  if (appId) await getApplicationInTenant(ctx.sql, p.tenantId, appId)
  return { tenantId: p.tenantId, appId: appId ?? null }
}

export const Attempt = named('DeliveryAttempt', Out({
  id: Type.String(),
  delivery_id: Type.String(),
  endpoint_id: Type.String(),
  application_id: Type.String(),
  url: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  domain: Nullable(Type.String()),
  attempts: Type.Integer({ description: 'Which attempt of this delivery this row records (1, 2, 3; manual replays go on counting)' }),
  status_code: Nullable(Type.Integer()),
  delivered: Type.Boolean(),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
  created_at: Timestamp(),
}))

/** An attempt row as read back (timestamps come back as Dates) or as just recorded. */
export type AttemptRow = Omit<AttemptRecord, 'tenant_id' | 'created_at'> & { created_at: Date | string }

export const attemptOut = (a: AttemptRow) => ({
  id: a.id,
  delivery_id: a.delivery_id,
  endpoint_id: a.endpoint_id,
  application_id: a.application_id,
  url: a.url,
  event_id: a.event_id,
  event_type: a.event_type,
  domain: a.domain,
  attempts: a.attempt,
  status_code: a.status_code,
  delivered: a.delivered,
  error: a.error,
  duration_ms: a.duration_ms,
  created_at: a.created_at,
})
