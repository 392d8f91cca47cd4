// Console support (CONTRACT.md sections 2 and 4): an application's email sender, browser push for the
// people of the console, and the member email change. Push and email-change are console-server
// routes (provision secret); the email sender belongs to the integrator (API key).
import { named } from '../domain/named.ts'
import { Type } from '@sinclair/typebox'
import { ApiError, invalid, notFound } from '../errors.ts'
import { decrypt, encrypt } from '../crypto.ts'
import { getApplicationInTenant } from '../domain/tenancy.ts'
import { addressResolver } from '../domain/webhook-delivery.ts'
import { guardUrl, isUrlSyntacticallyAllowed } from '../adapters/ssrf.ts'
import { verifySmtp } from '../adapters/email.ts'
import { sendPush } from '../adapters/push.ts'
import { deleteSender, recordSenderCheck, saveSender, senderOfApplication, type SenderRow } from '../db/email-senders.ts'
import { deletePushSubscription, deletePushSubscriptions, pushSubscriptionsOf, savePushSubscription, takePushTest } from '../db/push.ts'
import { changeMemberEmail } from '../db/members.ts'
import { defineOp, reply, type Ctx, type TenantCtx } from './registry.ts'
import { Email, IdParam, Input, Nullable, Out, Timestamp } from './schemas.ts'

const TlsMode = Type.Union([Type.Literal('implicit'), Type.Literal('starttls'), Type.Literal('none')], {
  description: '`implicit`: TLS from the first byte (port 465); `starttls`: upgrade required; `none`: plain (not for production mail)',
})

const EmailSender = named('EmailSender', Out({
  application_id: Type.String(),
  mode: Type.Union([Type.Literal('default'), Type.Literal('smtp')], { description: '`default` when nothing is saved: the service\'s own sender' }),
  smtp_host: Type.Optional(Type.String()),
  smtp_port: Type.Optional(Type.Integer()),
  smtp_username: Type.Optional(Nullable(Type.String())),
  password_set: Type.Boolean({ description: 'The password is write-only and never returned' }),
  tls: Type.Optional(TlsMode),
  from_address: Type.Optional(Type.String()),
  from_name: Type.Optional(Nullable(Type.String())),
  reply_to: Type.Optional(Nullable(Type.String())),
  verified_at: Nullable(Timestamp()),
  last_error: Nullable(Type.String()),
  last_error_at: Nullable(Timestamp()),
  updated_at: Nullable(Timestamp()),
}))

function senderOut(appId: string, r: SenderRow | undefined) {
  if (!r) return { application_id: appId, mode: 'default' as const, password_set: false, verified_at: null, last_error: null, last_error_at: null, updated_at: null }
  return {
    application_id: appId,
    mode: 'smtp' as const,
    smtp_host: r.smtp_host,
    smtp_port: r.smtp_port,
    smtp_username: r.smtp_username,
    password_set: r.password_sealed !== null,
    tls: r.tls,
    from_address: r.from_address,
    from_name: r.from_name,
    reply_to: r.reply_to,
    verified_at: r.verified_at,
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    updated_at: r.updated_at,
  }
}

const PURPOSE = 'smtp-password'

async function senderOf(ctx: Pick<TenantCtx, 'principal' | 'sql'>, appId: string): Promise<SenderRow | undefined> {
  const p = ctx.principal
  await getApplicationInTenant(ctx.sql, p.tenantId, appId)
  return senderOfApplication(ctx.sql, appId)
}

/** A real SMTP conversation with the saved settings, to an address checked like any customer target. */
async function verifySender(ctx: Pick<Ctx, 'config' | 'services'>, r: Pick<SenderRow, 'smtp_host' | 'smtp_port' | 'smtp_username' | 'password_sealed' | 'tls'>) {
  const guard = await guardUrl(`https://${r.smtp_host.includes(':') ? `[${r.smtp_host}]` : r.smtp_host}/`, {
    allowLoopback: ctx.config.webhookAllowLoopback,
    resolve: addressResolver(ctx.services.dns),
  })
  if (!guard.ok) return { ok: false as const, error: `refused: ${guard.reason}` }
  return verifySmtp({
    host: r.smtp_host,
    address: guard.address,
    port: r.smtp_port,
    username: r.smtp_username,
    password: r.password_sealed ? decrypt(ctx.config.secretsKey, r.password_sealed, PURPOSE) : null,
    tls: r.tls,
  })
}

export const getEmailSenderOp = defineOp({
  id: 'applications.email_sender.get',
  method: 'GET',
  path: '/applications/{id}/email-sender',
  summary: 'Read an application\'s email sender',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:read',
  params: IdParam,
  response: EmailSender,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  handler: async (ctx, input) => senderOut(input.id, await senderOf(ctx, input.id)),
})

export const putEmailSenderOp = defineOp({
  id: 'applications.email_sender.put',
  method: 'PUT',
  path: '/applications/{id}/email-sender',
  summary: 'Save an application\'s SMTP sender, verified by a real SMTP conversation',
  description:
    'Saves the settings and verifies them at once (connect, TLS as asked, authenticate); the answer carries `verified_at` or ' +
    '`last_error`. `smtp_password` is write-only: omit it to keep the saved one. `mode: "default"` alone returns to the ' +
    'service\'s own sender. The host is resolved and refused when it points at a private or loopback address.',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  body: Input({
    mode: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('smtp')])),
    smtp_host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    smtp_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    smtp_username: Type.Optional(Type.String({ maxLength: 200 })),
    smtp_password: Type.Optional(Type.String({ maxLength: 500 })),
    tls: Type.Optional(TlsMode),
    from_address: Type.Optional(Email),
    from_name: Type.Optional(Type.String({ maxLength: 200 })),
    reply_to: Type.Optional(Email),
  }),
  response: EmailSender,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const existing = await senderOf(ctx, input.id)
    const p = ctx.principal
    if (input.mode === 'default') {
      await ctx.tx((tx) => deleteSender(tx, input.id))
      return senderOut(input.id, undefined)
    }
    const missing = (['smtp_host', 'smtp_port', 'tls', 'from_address'] as const).filter((f) => input[f] === undefined)
    if (missing.length) throw invalid('SMTP settings are incomplete', missing.map((field) => ({ in: 'body', field, message: 'is required' })))
    const password = input.smtp_password !== undefined ? encrypt(ctx.config.secretsKey, input.smtp_password, PURPOSE) : (existing?.password_sealed ?? null)
    const settings = { smtp_host: input.smtp_host!.toLowerCase(), smtp_port: input.smtp_port!, smtp_username: input.smtp_username ?? null, password_sealed: password, tls: input.tls! }
    const check = await verifySender(ctx, settings)
    const now = ctx.clock.now()
    const row = await ctx.tx((tx) => saveSender(tx, input, p, settings, password, check, now))
    ctx.audit.details = { smtp_host: settings.smtp_host, verified: check.ok }
    return senderOut(input.id, row)
  },
})

const PushSubscription = Input({
  endpoint: Type.String({ minLength: 1, maxLength: 2000, format: 'uri' }),
  keys: Input({ p256dh: Type.String({ minLength: 1, maxLength: 200 }), auth: Type.String({ minLength: 1, maxLength: 100 }) }),
})

export const addPushSubscriptionOp = defineOp({
  id: 'push.subscriptions.create',
  method: 'POST',
  path: '/push-subscriptions',
  summary: 'Register a browser for a person\'s push notifications',
  description: 'Console server only. `user_id` is the console\'s id of the person. Registering the same endpoint again answers 200.',
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ user_id: Type.String({ minLength: 1, maxLength: 200 }), subscription: PushSubscription }),
  response: Out({ id: Type.String(), user_id: Type.String(), endpoint: Type.String() }),
  status: 201,
  altStatus: [{ status: 200, description: 'Already registered' }],
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const check = isUrlSyntacticallyAllowed(input.subscription.endpoint, { allowLoopback: ctx.config.webhookAllowLoopback, requireHttps: true })
    if (!check.ok) throw invalid(`subscription endpoint is not allowed: ${check.reason}`, [{ in: 'body', field: 'subscription.endpoint', message: check.reason }])
    const row = await savePushSubscription(ctx.sql, input, ctx.clock.now())
    const out = { id: row.id, user_id: row.user_id, endpoint: row.endpoint }
    return row.inserted ? out : reply(200, out)
  },
})

export const removePushSubscriptionOp = defineOp({
  id: 'push.subscriptions.delete',
  method: 'DELETE',
  path: '/push-subscriptions/{id}',
  summary: 'Stop sending a person\'s notifications to one browser',
  description: 'Console server only: the person turned notifications off in that browser, or signed out of it. An unknown or already removed id answers 404.',
  tag: 'Console',
  auth: ['PROV'],
  params: IdParam,
  response: Out({ id: Type.String(), user_id: Type.String(), deleted: Type.Literal(true) }),
  errors: ['unauthorized', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const row = await deletePushSubscription(ctx.sql, input.id)
    if (!row) throw notFound('Push subscription not found')
    return { id: row.id, user_id: row.user_id, deleted: true as const }
  },
})

export const PUSH_TESTS_PER_MINUTE = 5

export const pushTestOp = defineOp({
  id: 'notifications.test',
  method: 'POST',
  path: '/notifications:test',
  summary: 'Send one test notification to every browser of a person',
  description:
    'Console server only. Subscriptions the push service reports gone (404/410) are removed. 503 `push_not_configured` without ' +
    `VAPID keys; 429 \`rate_limited\` with \`Retry-After: 60\` past ${PUSH_TESTS_PER_MINUTE} tests a minute for one person (counted in the database, so across processes).`,
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ user_id: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: Out({ devices: Type.Integer(), sent: Type.Integer(), removed: Type.Integer(), failed: Type.Integer() }),
  errors: ['invalid_request', 'unauthorized', 'push_not_configured', 'rate_limited'],
  kind: 'write',
  transactions: 'steps',
  internal: true,
  async handler(ctx, input) {
    const keys = ctx.config.vapid
    if (!keys) throw new ApiError('push_not_configured')
    const now = ctx.clock.now()
    const allowed = await takePushTest(ctx.db, input.user_id, now, PUSH_TESTS_PER_MINUTE)
    if (!allowed) throw new ApiError('rate_limited', `At most ${PUSH_TESTS_PER_MINUTE} push tests a minute for one person`, undefined, { headers: { 'retry-after': '60' } })
    const subs = await pushSubscriptionsOf(ctx.db, input.user_id)
    const payload = JSON.stringify({ title: 'Portico', body: 'Test notification: push works on this device.', sent_at: now.toISOString() })
    const send = { allowLoopback: ctx.config.webhookAllowLoopback, resolve: addressResolver(ctx.services.dns) }
    const outcomes = await Promise.all(subs.map((s) => sendPush(keys, s, payload, send)))
    const gone = subs.filter((_, i) => outcomes[i] === 'gone').map((s) => s.id)
    if (gone.length) await ctx.tx((tx) => deletePushSubscriptions(tx, gone))
    return { devices: subs.length, sent: outcomes.filter((o) => o === 'sent').length, removed: gone.length, failed: outcomes.filter((o) => o === 'failed').length }
  },
})

export const emailChangedOp = defineOp({
  id: 'members.email_changed',
  method: 'POST',
  path: '/members:email-changed',
  summary: 'A person changed their email: update their member records everywhere',
  description:
    'Console server only. Every member record with `old_email` (case ignored), in every workspace, takes `new_email`. A workspace ' +
    'where `new_email` already belongs to a member is left as it is and listed in `skipped` (merging two members is a decision for a person).',
  tag: 'Console',
  auth: ['PROV'],
  body: Input({ old_email: Email, new_email: Email }),
  response: Out({ updated: Type.Integer(), skipped: Type.Array(Type.String({ description: 'Tenant ids left unchanged' })) }),
  errors: ['invalid_request', 'unauthorized'],
  kind: 'write',
  idempotent: true,
  internal: true,
  async handler(ctx, input) {
    const { updated, skip } = await changeMemberEmail(ctx.sql, input, ctx.clock.now())
    ctx.audit.details = { updated: updated.length, skipped: skip }
    return { updated: updated.length, skipped: skip }
  },
})

export const verifyEmailSenderOp = defineOp({
  id: 'applications.email_sender.verify',
  method: 'POST',
  path: '/applications/{id}/email-sender:verify',
  summary: 'Verify the saved SMTP sender again',
  tag: 'Console',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: EmailSender,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const existing = await senderOf(ctx, input.id)
    if (!existing) throw notFound('No SMTP sender is saved for this application')
    const check = await verifySender(ctx, existing)
    const now = ctx.clock.now()
    const row = await ctx.tx((tx) => recordSenderCheck(tx, input, existing, check, now))
    return senderOut(input.id, row)
  },
})
