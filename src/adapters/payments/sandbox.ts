// The sandbox processor: the same states as a real one (requires_payment_method, requires_capture,
// captured, canceled, failed), kept in process memory, with its own signed webhook. Development and
// tests use it; nothing leaves the process. Invariants:
// - only a `requires_capture` payment can be captured or released, so a payment is captured at most
//   once and `captures` counts real captures (tests read it to prove exactly-once);
// - webhooks are signed `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` and verified in constant time with
//   a five-minute tolerance, like the processors whose shape it imitates;
// - declining cards are fixed: card number 4000000000000002 and payment method `pm_card_chargeDeclined`.
import { createHmac, timingSafeEqual } from 'node:crypto'
import type { Clock } from '../../clock.ts'
import { newId, randomToken } from '../../ids.ts'
import { WebhookSignatureError, type Card, type PaymentEvent, type PaymentStatus, type Payments, type SessionOut, type SetupMode } from './index.ts'

export const SANDBOX_SIGNATURE_HEADER = 'portico-sandbox-signature'
const TOLERANCE_S = 300
const DECLINED_CARD = '4000000000000002'
const DECLINED_METHOD = 'pm_card_chargeDeclined'

interface SandboxPayment {
  id: string
  status: PaymentStatus
  amountCents: number
  captures: number
}

interface SandboxSession {
  id: string
  kind: 'setup' | 'plan'
  tenantId: string
  customerRef: string
  planId?: string
  amountCents?: number
  currency?: string
  done: boolean
}

export interface SignedWebhook {
  body: string
  headers: Record<string, string>
}

export class SandboxPayments implements Payments {
  readonly name = 'sandbox' as const
  private readonly payments = new Map<string, SandboxPayment>()
  private readonly sessions = new Map<string, SandboxSession>()
  /** Captures performed, over all payments. */
  captures = 0
  /** When false, an Elements setup cannot be created and the caller falls back to embedded. */
  elementsAvailable = true

  constructor(
    private readonly secret: Buffer,
    private readonly clock: Clock,
    private readonly baseUrl: string,
  ) {}

  async checkout(input: { amountCents: number; returnUrl: string }): Promise<SessionOut> {
    const id = newId('cs_sbx', this.clock.now().getTime())
    this.payments.set(id, { id, status: 'requires_payment_method', amountCents: input.amountCents, captures: 0 })
    return { id, url: `${this.baseUrl}/sandbox/pay/${id}`, client_secret: `${id}_secret_${randomToken(12)}` }
  }

  async authorize(input: { amountCents: number; paymentMethod: string }): Promise<{ id: string; status: PaymentStatus }> {
    const id = newId('pi_sbx', this.clock.now().getTime())
    const status: PaymentStatus = input.paymentMethod === DECLINED_METHOD ? 'failed' : 'requires_capture'
    this.payments.set(id, { id, status, amountCents: input.amountCents, captures: 0 })
    return { id, status }
  }

  async status(paymentId: string): Promise<PaymentStatus> {
    return this.payment(paymentId).status
  }

  async capture(paymentId: string): Promise<void> {
    const p = this.payment(paymentId)
    if (p.status !== 'requires_capture') throw new Error(`sandbox: cannot capture a ${p.status} payment`)
    p.status = 'captured'
    p.captures++
    this.captures++
  }

  async release(paymentId: string): Promise<void> {
    const p = this.payment(paymentId)
    if (p.status === 'captured') throw new Error('sandbox: a captured payment cannot be released')
    p.status = 'canceled'
  }

  /**
   * Takes over an authorization another process of the deployment made. A real processor keeps its
   * payments across Portico's restarts; the sandbox keeps them in memory, so a test that kills a
   * process hands its authorizations to the process that restarts.
   */
  adopt(paymentId: string, amountCents: number): void {
    if (!this.payments.has(paymentId)) this.payments.set(paymentId, { id: paymentId, status: 'requires_capture', amountCents, captures: 0 })
  }

  capturesOf(paymentId: string): number {
    return this.payments.get(paymentId)?.captures ?? 0
  }

  async setupCard(input: { tenantId: string; customerRef: string | null; mode: SetupMode }) {
    const mode: SetupMode = input.mode === 'elements' && !this.elementsAvailable ? 'embedded' : input.mode
    const session = this.session('setup', input.tenantId, input.customerRef)
    return { ...this.sessionOut(session.id), ui_mode: mode, customerRef: session.customerRef }
  }

  async planCheckout(input: { tenantId: string; customerRef: string | null; planId: string; amountCents: number; currency: string }): Promise<SessionOut> {
    const session = this.session('plan', input.tenantId, input.customerRef)
    Object.assign(session, { planId: input.planId, amountCents: input.amountCents, currency: input.currency })
    return this.sessionOut(session.id)
  }

  async portal(input: { customerRef: string | null }): Promise<{ url: string }> {
    return { url: `${this.baseUrl}/sandbox/portal/${input.customerRef ?? 'none'}` }
  }

  /** The buyer pays a checkout: the authorization is held (or declined) and a signed webhook says so. */
  pay(sessionId: string, cardNumber = '4242424242424242'): SignedWebhook {
    const p = this.payment(sessionId)
    if (p.status !== 'requires_payment_method') throw new Error(`sandbox: payment is ${p.status}`)
    p.status = cardNumber === DECLINED_CARD ? 'failed' : 'requires_capture'
    const type = p.status === 'failed' ? 'payment.failed' : 'payment.authorized'
    return this.sign({ type, payment_id: p.id })
  }

  /** The person finishes a setup or plan checkout; the signed webhook carries the saved card. */
  complete(sessionId: string, card: Card = { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 }): SignedWebhook {
    const s = this.sessions.get(sessionId)
    if (!s || s.done) throw new Error('sandbox: no open session')
    s.done = true
    const base = { session_id: s.id, tenant_id: s.tenantId, customer: s.customerRef }
    return s.kind === 'setup'
      ? this.sign({ type: 'setup.completed', ...base, card })
      : this.sign({ type: 'plan.paid', ...base, plan_id: s.planId, amount_cents: s.amountCents, currency: s.currency })
  }

  sign(payload: Record<string, unknown>): SignedWebhook {
    const body = JSON.stringify({ id: newId('evt_sbx', this.clock.now().getTime()), ...payload })
    const t = Math.floor(this.clock.now().getTime() / 1000)
    return { body, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: `t=${t},v1=${this.mac(t, body)}` } }
  }

  async parseWebhook(raw: string, headers: Headers): Promise<PaymentEvent> {
    const header = headers.get(SANDBOX_SIGNATURE_HEADER) ?? ''
    const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=', 2) as [string, string]))
    const t = Number(parts.t)
    const given = Buffer.from(parts.v1 ?? '', 'hex')
    const want = Buffer.from(this.mac(t, raw), 'hex')
    if (!Number.isInteger(t) || given.length !== want.length || !timingSafeEqual(given, want)) throw new WebhookSignatureError('signature does not verify')
    if (Math.abs(this.clock.now().getTime() / 1000 - t) > TOLERANCE_S) throw new WebhookSignatureError('signature is outside the tolerance window')
    const e = JSON.parse(raw) as Record<string, any>
    switch (e.type) {
      case 'payment.authorized':
        return { kind: 'payment_authorized', paymentId: e.payment_id }
      case 'payment.failed':
        return { kind: 'payment_failed', paymentId: e.payment_id }
      case 'setup.completed':
        return { kind: 'setup_completed', sessionId: e.session_id, tenantId: e.tenant_id, customerRef: e.customer, card: e.card ?? null }
      case 'plan.paid':
        return { kind: 'plan_paid', sessionId: e.session_id, tenantId: e.tenant_id, planId: e.plan_id, customerRef: e.customer, amountCents: e.amount_cents, currency: e.currency }
      default:
        return { kind: 'ignored', type: String(e.type) }
    }
  }

  private mac(t: number, body: string): string {
    return createHmac('sha256', this.secret).update(`${t}.${body}`).digest('hex')
  }

  private payment(id: string): SandboxPayment {
    const p = this.payments.get(id)
    if (!p) throw new Error(`sandbox: no payment ${id}`)
    return p
  }

  private session(kind: 'setup' | 'plan', tenantId: string, customerRef: string | null): SandboxSession {
    const s: SandboxSession = { id: newId(kind === 'setup' ? 'seti_sbx' : 'cs_sbx', this.clock.now().getTime()), kind, tenantId, customerRef: customerRef ?? newId('cus_sbx', this.clock.now().getTime()), done: false }
    this.sessions.set(s.id, s)
    return s
  }

  private sessionOut(id: string): SessionOut {
    return { id, url: `${this.baseUrl}/sandbox/checkout/${id}`, client_secret: `${id}_secret_${randomToken(12)}` }
  }
}
