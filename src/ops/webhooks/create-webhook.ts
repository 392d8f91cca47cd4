import { Type } from '@sinclair/typebox'
import { invalid } from '../../errors.ts'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { isUrlSyntacticallyAllowed } from '../../adapters/ssrf.ts'
import { newWebhookSecret } from '../../adapters/webhook-signing.ts'
import { insertWebhook } from '../../db/webhooks.ts'
import { encrypt } from '../../crypto.ts'
import { EVENT_TYPES } from '../../domain/events.ts'
import { defineOp } from '../registry.ts'
import { APP_ONLY } from '../authority.ts'
import { Id, Input } from '../schemas.ts'
import { scope, SIGNING_NOTE, TAG, Webhook, webhookOut } from './shared.ts'

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
