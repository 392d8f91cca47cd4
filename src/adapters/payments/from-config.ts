// Chooses the payment processor from PAYMENTS. The sandbox's webhook key is derived from SECRETS_KEY,
// so it is stable across restarts and differs per deployment.
import { createHmac } from 'node:crypto'
import type { Clock } from '../../clock.ts'
import type { Config } from '../../config.ts'
import type { Payments } from './index.ts'
import { SandboxPayments } from './sandbox.ts'
import { StripePayments } from './stripe.ts'

export function paymentsFromConfig(config: Config, clock: Clock): Payments {
  if (config.payments.processor === 'stripe') return new StripePayments(config.payments.stripeSecretKey!, config.payments.stripeWebhookSecret!)
  const key = createHmac('sha256', config.secretsKey).update('portico sandbox payments webhook').digest()
  return new SandboxPayments(key, clock, `${config.publicUrl}/v1`)
}
