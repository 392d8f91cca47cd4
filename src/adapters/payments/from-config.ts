// Chooses the payment processor from PAYMENTS. The sandbox's webhook key is derived from SECRETS_KEY,
// so it is stable across restarts and differs per deployment.
import { createHmac } from 'node:crypto'
import type { Clock } from '../../clock.ts'
import type { Payments } from './index.ts'
import { SandboxPayments } from './sandbox.ts'
import { StripePayments } from './stripe.ts'

/** The processor's settings (PAYMENTS, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, read by src/config.ts). */
export interface PaymentsSettings {
  processor: 'sandbox' | 'stripe'
  stripeSecretKey: string | null
  stripeWebhookSecret: string | null
}

export function paymentsFromConfig(config: { payments: PaymentsSettings; secretsKey: Buffer; publicUrl: string }, clock: Clock): Payments {
  if (config.payments.processor === 'stripe') return new StripePayments(config.payments.stripeSecretKey!, config.payments.stripeWebhookSecret!)
  const key = createHmac('sha256', config.secretsKey).update('portico sandbox payments webhook').digest()
  return new SandboxPayments(key, clock, `${config.publicUrl}/v1`)
}
