// The payment-processor port. Sell authorizes a card with manual capture and captures only after the
// registrar settles (the API contract, section 3, Purchase order); billing saves a card without charging,
// sells plans and links to a billing portal. Two implementations: `sandbox.ts` (local, deterministic,
// used by development and tests) and `stripe.ts`. Invariants every implementation keeps:
// - `capture` moves an authorization to captured at most once; a second capture of the same payment
//   is refused by the processor, never counted twice;
// - `release` of a captured payment is refused (money taken is refunded, not released);
// - webhook payloads are trusted only after their signature verifies against the raw bytes.

export type PaymentStatus = 'requires_payment_method' | 'requires_capture' | 'captured' | 'canceled' | 'failed'

export interface SessionOut {
  id: string
  url: string
  client_secret: string
}

export type SetupMode = 'embedded' | 'elements' | 'hosted'

export interface Card {
  brand: string
  last4: string
  exp_month: number
  exp_year: number
}

/** What a verified webhook means to Portico; anything else is acknowledged and ignored. */
export type PaymentEvent =
  | { kind: 'payment_authorized'; paymentId: string }
  | { kind: 'payment_failed'; paymentId: string }
  | { kind: 'setup_completed'; sessionId: string; tenantId: string; customerRef: string | null; card: Card | null }
  | { kind: 'plan_paid'; sessionId: string; tenantId: string; planId: string; customerRef: string | null; amountCents: number; currency: string }
  | { kind: 'ignored'; type: string }

export class WebhookSignatureError extends Error {}

export interface Payments {
  readonly name: 'sandbox' | 'stripe'
  /** A checkout for a one-off amount, authorized with manual capture; the buyer pays on `url` or with `client_secret`. */
  checkout(input: { amountCents: number; currency: string; email: string; description: string; returnUrl: string; reference: string }): Promise<SessionOut>
  /** Authorizes with a payment method at once (manual capture); answers the payment id and its status. */
  authorize(input: { amountCents: number; currency: string; email: string; description: string; paymentMethod: string; reference: string; idempotencyKey: string }): Promise<{ id: string; status: PaymentStatus }>
  status(paymentId: string): Promise<PaymentStatus>
  capture(paymentId: string, idempotencyKey: string): Promise<void>
  release(paymentId: string): Promise<void>
  /** Saves a card without charging. `elements` may come back `embedded` when the processor could not create it. */
  setupCard(input: { tenantId: string; customerRef: string | null; mode: SetupMode; returnUrl?: string; successUrl?: string; cancelUrl?: string }): Promise<SessionOut & { ui_mode: SetupMode; customerRef: string | null }>
  /** A hosted checkout for a monthly plan. */
  planCheckout(input: { tenantId: string; customerRef: string | null; planId: string; planName: string; amountCents: number; currency: string; successUrl: string; cancelUrl: string }): Promise<SessionOut>
  /** A link to the processor's self-service billing portal. */
  portal(input: { tenantId: string; customerRef: string | null; returnUrl: string }): Promise<{ url: string }>
  /** Verifies and reads a webhook; throws WebhookSignatureError when the signature does not verify. */
  parseWebhook(raw: string, headers: Headers): Promise<PaymentEvent>
}
