// The sandbox registrar: deterministic rules so development and tests can reach every outcome.
// - a name whose first label contains `taken` is registered already, as is anything this process
//   registered; `premium` in the label makes it premium (PREMIUM_CENTS a year);
// - registration of a name containing `fail` is refused by the "registry";
// - only the TLDs in RETAIL_CENTS are sold; other names answer unavailable with no price;
// - registrations are kept per reference, so a repeated `register` answers the first one.
import { newId } from '../../ids.ts'
import { splitName, suggestionCandidates, type Lookup, type Offer, type Registrar, type Registration } from './index.ts'

export const RETAIL_CENTS: Record<string, number> = { com: 1299, net: 1499, org: 1399, io: 3999, dev: 1599, app: 1799, co: 2499 }
export const PREMIUM_CENTS = 250_000

export class SandboxRegistrar implements Registrar {
  readonly name = 'sandbox'
  readonly dns = { nameservers: ['ns1.registrar.sandbox.portico.test', 'ns2.registrar.sandbox.portico.test'], apex: 'alias' as const }
  /** domain → the registration made for it, with the reference it was made for. */
  private readonly registered = new Map<string, { reference: string; orderId: string }>()

  async check(domain: string): Promise<Offer> {
    const { label, tld } = splitName(domain)
    const retail = RETAIL_CENTS[tld]
    const premium = label.includes('premium')
    const available = retail !== undefined && !label.includes('taken') && !this.registered.has(domain)
    return { domain, available, premium, price_cents: retail === undefined ? null : premium ? PREMIUM_CENTS : retail, currency: 'usd' }
  }

  async suggest(domain: string, limit: number): Promise<Offer[]> {
    const offers = await Promise.all(suggestionCandidates(domain).map((n) => this.check(n)))
    return offers.filter((o) => o.available).slice(0, limit)
  }

  async register(input: { domain: string; years: number; reference: string }): Promise<Registration> {
    const prior = this.registered.get(input.domain)
    if (prior?.reference === input.reference) return { ok: true, orderId: prior.orderId, nameservers: this.dns.nameservers }
    const offer = await this.check(input.domain)
    if (!offer.available) return { ok: false, code: 'unavailable', reason: `${input.domain} is not available` }
    if (input.domain.includes('fail')) return { ok: false, code: 'registry_error', reason: 'The registry refused the registration' }
    const orderId = newId('rego')
    this.registered.set(input.domain, { reference: input.reference, orderId })
    return { ok: true, orderId, nameservers: this.dns.nameservers }
  }

  async lookup(input: { domain: string; reference: string }): Promise<Lookup> {
    const r = this.registered.get(input.domain)
    return r?.reference === input.reference ? { registered: true, orderId: r.orderId, nameservers: this.dns.nameservers } : { registered: false }
  }
}
