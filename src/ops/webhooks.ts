// Webhooks (CONTRACT.md sections 4 and 6): endpoints, the delivery log and manual replay. Secrets are
// `whsec_…`, shown at creation and stored sealed with SECRETS_KEY (signing needs the secret itself).
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound } from '../errors.ts'
import { encrypt } from '../crypto.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { EVENT_TYPES } from '../domain/events.ts'
import { retryDelivery, MAX_ATTEMPTS, BACKOFF_MS, ATTEMPT_TIMEOUT_MS } from '../domain/webhook-delivery.ts'
import type { AttemptRecord } from '../db/webhook-delivery.ts'
import { newWebhookSecret } from '../adapters/webhook-signing.ts'
import { isUrlSyntacticallyAllowed } from '../adapters/ssrf.ts'
import { attemptsPage, deleteWebhook, deliveryInScope, insertWebhook, rotateWebhookSecret, webhooksInScope, type WebhookRow } from '../db/webhooks.ts'
import { cursorOf, idFromCursor } from './cursors.ts'
import { defineOp, type TenantCtx } from './registry.ts'
import { APP_ONLY } from './authority.ts'
import { Id, IdParam, Input, Nullable, Out, Timestamp } from './schemas.ts'
import { named } from '../domain/named.ts'

const TAG = 'Webhooks'

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

const Webhook = named('WebhookEndpoint', Out({
  id: Type.String(),
  application_id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  secret: Type.Optional(Type.String({ description: 'Returned only to whoever created the endpoint (or rotated its secret), in that answer' })),
  created_at: Timestamp(),
  disabled_at: Type.Optional(Nullable(Timestamp())),
  disabled_reason: Type.Optional(Nullable(Type.String())),
}))

const webhookOut = (w: WebhookRow) => ({
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

export const createWebhookOp = defineOp({
  id: 'webhooks.create',
  method: 'POST',
  path: '/webhooks',
  summary: 'Register a webhook endpoint',
  description:
    '`url` must be https (loopback http only where the deployment allows it for tests); it is resolved again at every delivery and ' +
    'refused when it points at private, loopback, link-local or metadata addresses. `events` empty or `["*"]` subscribes to every ' +
    'event; an unknown event name is accepted but never delivered. Every call creates a new endpoint with its own `secret`, shown in ' +
    'this answer only (as Stripe and Svix do: registering a URL that is already registered never reveals the existing endpoint\'s ' +
    'secret). Send an `Idempotency-Key` to retry safely: a retry with the same key and body from the same credential replays this ' +
    'answer instead of creating a second endpoint. A lost secret is replaced with `POST /webhooks/{id}:rotate-secret`. ' + SIGNING_NOTE,
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  body: Input({
    url: Type.String({ minLength: 1, maxLength: 2000 }),
    events: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    application_id: Type.Optional(Id('app', 'API keys: the application (default: the key\'s own); widget tokens: their own')),
  }),
  response: Webhook,
  status: 201,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const p = ctx.principal
    const appId = p.kind === 'WIDGET' ? (await scope(ctx, input.application_id)).appId! : (input.application_id ?? (p.kind === 'KEY' ? p.applicationId : null))
    if (!appId) throw invalid('application_id is required', [{ in: 'body', field: 'application_id', message: 'is required' }])
    await getApplicationInTenant(ctx.sql, p.tenantId, appId)
    const check = isUrlSyntacticallyAllowed(input.url, { allowLoopback: ctx.config.webhookAllowLoopback, requireHttps: true })
    if (!check.ok) throw invalid(`url is not allowed: ${check.reason}`, [{ in: 'body', field: 'url', message: check.reason }])
    const events = [...new Set((input.events ?? []).includes('*') ? [] : (input.events ?? []))].sort()
    const secret = newWebhookSecret()
    const now = ctx.clock.now()
    const w = await insertWebhook(ctx.sql, now, p, appId, input, events, encrypt(ctx.config.secretsKey, secret, 'webhook-secret'))
    ctx.audit.details = { url: input.url, events, unknown_events: events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e)) }
    return { ...webhookOut(w), secret }
  },
})

/** How long a replaced secret keeps signing by default: a day, as Svix does, so receivers can switch without refusing deliveries. */
export const PREVIOUS_SECRET_SECONDS = 86_400

export const rotateWebhookSecretOp = defineOp({
  id: 'webhooks.rotate_secret',
  method: 'POST',
  path: '/webhooks/{id}:rotate-secret',
  summary: 'Rotate a webhook endpoint\'s signing secret',
  description:
    'API keys only. Answers the endpoint with its new `secret`, shown in this answer only. The secret it replaces keeps signing ' +
    'beside the new one for `expire_previous_in` seconds (default 86400, a day; 0 stops it at once, for a secret that leaked): ' +
    'meanwhile each delivery carries both signatures in `webhook-signature` (space-separated), so a receiver that knows either ' +
    'one accepts it. Rotating again ends the older secret at once.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'webhooks:manage',
  params: IdParam,
  bodyOptional: true,
  body: Input({ expire_previous_in: Type.Optional(Type.Integer({ minimum: 0, maximum: PREVIOUS_SECRET_SECONDS, description: 'Seconds the old secret keeps signing (default 86400)' })) }),
  response: Webhook,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const secret = newWebhookSecret()
    const now = ctx.clock.now()
    const keep = input.expire_previous_in ?? PREVIOUS_SECRET_SECONDS
    const w = await rotateWebhookSecret(ctx.sql, input, s, encrypt(ctx.config.secretsKey, secret, 'webhook-secret'), keep > 0 ? new Date(now.getTime() + keep * 1000) : null)
    if (!w) throw notFound('Webhook not found')
    ctx.audit.details = { expire_previous_in: keep }
    return { ...webhookOut(w), secret }
  },
})

export const listWebhooksOp = defineOp({
  id: 'webhooks.list',
  method: 'GET',
  path: '/webhooks',
  summary: 'List webhook endpoints',
  description: 'API keys see every application of the tenant (filter `app_id`); widget tokens their own application. Secrets are never listed.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  query: Input({ app_id: Type.Optional(Id('app')) }),
  response: Out({ webhooks: Type.Array(Webhook) }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, input.app_id)
    const rows = await webhooksInScope(ctx.sql, s)
    return { webhooks: rows.map(webhookOut) }
  },
})

export const deleteWebhookOp = defineOp({
  id: 'webhooks.delete',
  method: 'DELETE',
  path: '/webhooks/{id}',
  summary: 'Remove a webhook endpoint',
  description: 'Deliveries still pending for it are dropped (recorded as failed attempts). Removing it again answers the same.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  response: Out({ id: Type.String(), deleted: Type.Boolean() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    const w = await deleteWebhook(ctx.sql, ctx.clock.now(), input, s)
    if (!w) throw notFound('Webhook not found')
    return { id: input.id, deleted: true }
  },
})

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
type AttemptRow = Omit<AttemptRecord, 'tenant_id' | 'created_at'> & { created_at: Date | string }

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

export const listDeliveriesOp = defineOp({
  id: 'webhooks.deliveries.list',
  method: 'GET',
  path: '/webhook-deliveries',
  summary: 'The delivery log: one record per attempt',
  description: 'Newest first. API keys see every application of the tenant; widget tokens their own. Filters `app_id`, `type` (event type); pages of `limit` (1 to 500, default 100) with `next_cursor`.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:read',
  query: Input({
    app_id: Type.Optional(Id('app')),
    type: Type.Optional(Type.String({ maxLength: 100 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Out({ deliveries: Type.Array(Attempt), count: Type.Integer(), next_cursor: Type.Optional(Type.String()) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const s = await scope(ctx, input.app_id)
    const limit = input.limit ?? 100
    const before = input.cursor ? idFromCursor(input.cursor, 'wha') : '~'
    const rows = (await attemptsPage(ctx.sql, s, input, before, limit)) as AttemptRow[]
    const page = rows.slice(0, limit)
    return {
      deliveries: page.map(attemptOut),
      count: page.length,
      ...(rows.length > limit ? { next_cursor: cursorOf(page[page.length - 1]!.id) } : {}),
    }
  },
})

export const retryDeliveryOp = defineOp({
  id: 'webhooks.deliveries.retry',
  method: 'POST',
  path: '/webhook-deliveries/{id}:retry',
  summary: 'Replay a delivery by hand',
  description: 'Sends the event of this delivery attempt (or delivery) to its endpoint once more, now, and answers the new attempt record.',
  tag: TAG,
  auth: ['KEY', 'WIDGET'],
  widget: APP_ONLY,
  permission: 'webhooks:manage',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: Attempt,
  errors: ['unauthorized', 'forbidden', 'not_found', 'conflict'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const s = await scope(ctx, undefined)
    // A queued delivery, or a finished one known by its attempts; by its id or one of its attempts' ids.
    const d = await deliveryInScope(ctx.db, input, s)
    if (!d) throw notFound('Delivery not found')
    if (d.deleted_at) throw new ApiError('conflict', 'The endpoint of this delivery was removed')
    const attempt = await retryDelivery({ db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns }, d.id)
    ctx.audit.targetId = d.id
    return attemptOut(attempt)
  },
})
