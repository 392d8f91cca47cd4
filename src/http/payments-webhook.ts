// The payment processor's webhook, a route of the REST face beside the registry (src/ops/sell/ and
// src/ops/billing/ hold the operations; src/domain/sell.ts and billing.ts the rules it drives).
import type { Elysia } from 'elysia'
import { ApiError } from '../errors.ts'
import { onPaymentEvent } from '../domain/sell.ts'
import { applyBillingEvent } from '../domain/billing.ts'
import { WebhookSignatureError } from '../adapters/payments/index.ts'
import { errorFields, log } from '../logger.ts'
import type { AppDeps, Mount } from './app.ts'

export const WEBHOOK_PATH = '/v1/payments/webhook'

/**
 * The payment processor's webhook. It is a raw route (not a registry operation) because the signature
 * covers the exact bytes sent, which a parsed-and-validated body no longer has. No credential: the
 * processor's signature is the credential. Payment events drive the same fulfilment as the widget;
 * card-setup and plan events complete billing sessions once.
 */
export async function handlePaymentWebhook(deps: Omit<AppDeps, 'ops'>, request: Request): Promise<Response> {
  const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
  const { payments, registrar } = deps.services
  if (!payments) return json(503, { code: 'service_unavailable', title: 'No payment processor is wired' })
  const raw = await request.text()
  let event
  try {
    event = await payments.parseWebhook(raw, request.headers)
  } catch (err) {
    if (err instanceof WebhookSignatureError) return json(400, { code: 'invalid_request', title: 'The webhook signature does not verify' })
    throw err
  }
  try {
    if (event.kind === 'payment_authorized' || event.kind === 'payment_failed') {
      if (deps.config.sellPurchaseEnabled && registrar) await onPaymentEvent({ db: deps.db, clock: deps.clock, config: deps.config, payments, registrar }, event)
    } else if (event.kind === 'setup_completed' || event.kind === 'plan_paid') {
      const now = deps.clock.now()
      await deps.db.begin((tx) => applyBillingEvent(tx, payments.name, now, event))
    }
    return json(200, { received: true })
  } catch (err) {
    // A non-2xx makes the processor retry later, which the guarded transitions make safe.
    log.error('payment webhook failed', errorFields(err))
    return json(500, { code: 'internal_error', title: new ApiError('internal_error').title })
  }
}

export function paymentsWebhookMount(deps: Omit<AppDeps, 'ops'>): Mount {
  return (app: Elysia) => {
    app.post(WEBHOOK_PATH, ({ request }) => handlePaymentWebhook(deps, request), { parse: 'none' })
    return app
  }
}
