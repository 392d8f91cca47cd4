// The Stripe processor, through the `stripe` package. Purchases are Checkout Sessions (or direct
// PaymentIntents) with `capture_method: manual`: the card is authorized now and captured only after the
// registrar settles. Card setup is a Checkout Session in `setup` mode in the UI the caller asked for
// (embedded page, Elements, or hosted page). Invariants:
// - captures carry an idempotency key derived from the order, so Stripe itself refuses a second one;
// - webhooks are verified with `webhooks.constructEventAsync` over the raw body: under Bun the package
//   loads its worker build, whose only crypto is WebCrypto, which the synchronous `constructEvent`
//   cannot use; both check the same `Stripe-Signature` scheme and tolerance.
import Stripe from 'stripe'
import { WebhookSignatureError, type Card, type PaymentEvent, type PaymentStatus, type Payments, type SessionOut, type SetupMode } from './index.ts'

const UI_MODE: Record<SetupMode, 'embedded_page' | 'elements' | 'hosted_page'> = { embedded: 'embedded_page', elements: 'elements', hosted: 'hosted_page' }

function statusOf(pi: { status: string } | null): PaymentStatus {
  switch (pi?.status) {
    case 'requires_capture':
      return 'requires_capture'
    case 'succeeded':
      return 'captured'
    case 'canceled':
      return 'canceled'
    default:
      return 'requires_payment_method'
  }
}

function out(s: { id: string; url?: string | null; client_secret?: string | null }): SessionOut {
  return { id: s.id, url: s.url ?? '', client_secret: s.client_secret ?? '' }
}

export class StripePayments implements Payments {
  readonly name = 'stripe' as const
  private readonly stripe: Stripe

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
  ) {
    this.stripe = new Stripe(secretKey, { maxNetworkRetries: 2, appInfo: { name: 'Portico' } })
  }

  async checkout(input: { amountCents: number; currency: string; email: string; description: string; returnUrl: string; reference: string }): Promise<SessionOut> {
    const s = await this.stripe.checkout.sessions.create({
      mode: 'payment',
      ui_mode: 'hosted_page',
      customer_email: input.email,
      success_url: input.returnUrl,
      line_items: [{ quantity: 1, price_data: { currency: input.currency, unit_amount: input.amountCents, product_data: { name: input.description } } }],
      payment_intent_data: { capture_method: 'manual', metadata: { order_id: input.reference } },
      metadata: { order_id: input.reference },
    })
    return out(s)
  }

  async authorize(input: { amountCents: number; currency: string; email: string; description: string; paymentMethod: string; reference: string; idempotencyKey: string }) {
    try {
      const pi = await this.stripe.paymentIntents.create(
        {
          amount: input.amountCents,
          currency: input.currency,
          capture_method: 'manual',
          confirm: true,
          payment_method: input.paymentMethod,
          receipt_email: input.email,
          description: input.description,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          metadata: { order_id: input.reference },
        },
        { idempotencyKey: input.idempotencyKey },
      )
      return { id: pi.id, status: statusOf(pi) }
    } catch (err) {
      // A declined card is an answer about the card, not a failure of Portico.
      const e = err as { type?: string; payment_intent?: { id: string } }
      if (e.type === 'StripeCardError' && e.payment_intent) return { id: e.payment_intent.id, status: 'failed' as const }
      throw err
    }
  }

  /** The PaymentIntent behind a payment id: a Checkout Session's (once paid) or the intent itself. */
  private async intent(paymentId: string): Promise<{ id: string; status: string } | null> {
    if (!paymentId.startsWith('cs_')) return this.stripe.paymentIntents.retrieve(paymentId)
    const s = await this.stripe.checkout.sessions.retrieve(paymentId, { expand: ['payment_intent'] })
    const pi = s.payment_intent
    return pi && typeof pi === 'object' ? pi : null
  }

  async status(paymentId: string): Promise<PaymentStatus> {
    return statusOf(await this.intent(paymentId))
  }

  async capture(paymentId: string, idempotencyKey: string): Promise<void> {
    const pi = await this.intent(paymentId)
    if (!pi) throw new Error('stripe: nothing to capture')
    await this.stripe.paymentIntents.capture(pi.id, {}, { idempotencyKey })
  }

  async release(paymentId: string): Promise<void> {
    const pi = await this.intent(paymentId)
    if (pi) await this.stripe.paymentIntents.cancel(pi.id)
    else await this.stripe.checkout.sessions.expire(paymentId)
  }

  private async customer(tenantId: string, customerRef: string | null): Promise<string> {
    return customerRef ?? (await this.stripe.customers.create({ metadata: { tenant_id: tenantId } })).id
  }

  async setupCard(input: { tenantId: string; customerRef: string | null; mode: SetupMode; returnUrl?: string; successUrl?: string; cancelUrl?: string }) {
    const customer = await this.customer(input.tenantId, input.customerRef)
    const create = (mode: SetupMode) =>
      this.stripe.checkout.sessions.create({
        mode: 'setup',
        currency: 'usd',
        customer,
        ui_mode: UI_MODE[mode],
        metadata: { tenant_id: input.tenantId, kind: 'setup' },
        ...(mode === 'hosted' ? { success_url: input.successUrl, cancel_url: input.cancelUrl } : { return_url: input.returnUrl }),
      })
    if (input.mode === 'elements') {
      try {
        return { ...out(await create('elements')), ui_mode: 'elements' as const, customerRef: customer }
      } catch {
        // An account without Elements sessions still gets a card form: the embedded page.
        return { ...out(await create('embedded')), ui_mode: 'embedded' as const, customerRef: customer }
      }
    }
    return { ...out(await create(input.mode)), ui_mode: input.mode, customerRef: customer }
  }

  async planCheckout(input: { tenantId: string; customerRef: string | null; planId: string; planName: string; amountCents: number; currency: string; successUrl: string; cancelUrl: string }): Promise<SessionOut> {
    const s = await this.stripe.checkout.sessions.create({
      mode: 'subscription',
      ui_mode: 'hosted_page',
      customer: await this.customer(input.tenantId, input.customerRef),
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      line_items: [{ quantity: 1, price_data: { currency: input.currency, unit_amount: input.amountCents, recurring: { interval: 'month' }, product_data: { name: `Portico ${input.planName}` } } }],
      metadata: { tenant_id: input.tenantId, plan_id: input.planId, kind: 'plan' },
    })
    return out(s)
  }

  async portal(input: { tenantId: string; customerRef: string | null; returnUrl: string }): Promise<{ url: string }> {
    const s = await this.stripe.billingPortal.sessions.create({ customer: await this.customer(input.tenantId, input.customerRef), return_url: input.returnUrl })
    return { url: s.url }
  }

  private async cardOf(setupIntentId: string): Promise<Card | null> {
    const si = await this.stripe.setupIntents.retrieve(setupIntentId, { expand: ['payment_method'] })
    const pm = si.payment_method
    const card = pm && typeof pm === 'object' ? pm.card : null
    return card ? { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year } : null
  }

  async parseWebhook(raw: string, headers: Headers): Promise<PaymentEvent> {
    let event: Awaited<ReturnType<Stripe['webhooks']['constructEventAsync']>>
    try {
      event = await this.stripe.webhooks.constructEventAsync(raw, headers.get('stripe-signature') ?? '', this.webhookSecret)
    } catch (err) {
      throw new WebhookSignatureError((err as Error).message)
    }
    const obj = event.data.object as unknown as Record<string, any>
    switch (event.type) {
      case 'payment_intent.amount_capturable_updated':
        return { kind: 'payment_authorized', paymentId: obj.id }
      case 'payment_intent.payment_failed':
        return { kind: 'payment_failed', paymentId: obj.id }
      case 'checkout.session.completed': {
        const customerRef = typeof obj.customer === 'string' ? obj.customer : null
        if (obj.mode === 'payment') return { kind: 'payment_authorized', paymentId: obj.id }
        if (obj.mode === 'setup') {
          const card = typeof obj.setup_intent === 'string' ? await this.cardOf(obj.setup_intent) : null
          return { kind: 'setup_completed', sessionId: obj.id, tenantId: obj.metadata?.tenant_id, customerRef, card }
        }
        return { kind: 'plan_paid', sessionId: obj.id, tenantId: obj.metadata?.tenant_id, planId: obj.metadata?.plan_id, customerRef, amountCents: obj.amount_total ?? 0, currency: obj.currency ?? 'usd' }
      }
      default:
        return { kind: 'ignored', type: event.type }
    }
  }
}
