// The registrar port: what Sell needs of a domain registrar. A real registrar (an EPP or reseller API)
// fits behind the same four calls. Prices are retail, in the smallest currency unit, per year.
import type { Capabilities } from '../../domain/providers.ts'

export interface Offer {
  domain: string
  available: boolean
  premium: boolean
  /** Retail price for one year; absent when the name cannot be bought here. */
  price_cents: number | null
  currency: string
}

export type Registration =
  | { ok: true; orderId: string; nameservers: string[] }
  | { ok: false; reason: string }

export interface Registrar {
  /** Stable name, reported as `Registrar` in a fulfill result. */
  readonly name: string
  /** The DNS hosting a freshly registered domain gets; its apex capability decides the planned records. */
  readonly dns: { nameservers: string[]; apex: Capabilities['apex'] }
  check(domain: string): Promise<Offer>
  /** Available alternatives for a name, best first. */
  suggest(domain: string, limit: number): Promise<Offer[]>
  register(input: { domain: string; years: number; email: string; reference: string }): Promise<Registration>
}
