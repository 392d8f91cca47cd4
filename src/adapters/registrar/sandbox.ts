// The sandbox registrar: deterministic rules so development and tests can reach every outcome.
// - a name whose first label contains `taken` is registered already, as is anything this process
//   registered; `premium` in the label makes it premium (PREMIUM_CENTS a year);
// - registration of a name containing `fail` is refused by the "registry";
// - only the TLDs in RETAIL_CENTS are sold; other names answer unavailable with no price.
import { newId } from '../../ids.ts'
import type { Offer, Registrar, Registration } from './index.ts'

export const RETAIL_CENTS: Record<string, number> = { com: 1299, net: 1499, org: 1399, io: 3999, dev: 1599, app: 1799, co: 2499 }
export const PREMIUM_CENTS = 250_000
const SUGGEST_TLDS = ['com', 'net', 'org', 'io', 'dev', 'app', 'co']
const AFFIXES: [string, string][] = [['get', ''], ['', 'hq'], ['try', ''], ['', 'app'], ['my', '']]

function split(domain: string): { label: string; tld: string } {
  const dot = domain.indexOf('.')
  return { label: domain.slice(0, dot), tld: domain.slice(dot + 1) }
}

export class SandboxRegistrar implements Registrar {
  readonly name = 'sandbox'
  readonly dns = { nameservers: ['ns1.registrar.sandbox.portico.test', 'ns2.registrar.sandbox.portico.test'], apex: 'alias' as const }
  private readonly registered = new Set<string>()

  async check(domain: string): Promise<Offer> {
    const { label, tld } = split(domain)
    const retail = RETAIL_CENTS[tld]
    const premium = label.includes('premium')
    const available = retail !== undefined && !label.includes('taken') && !this.registered.has(domain)
    return { domain, available, premium, price_cents: retail === undefined ? null : premium ? PREMIUM_CENTS : retail, currency: 'usd' }
  }

  async suggest(domain: string, limit: number): Promise<Offer[]> {
    const { label } = split(domain)
    const base = label.replace(/taken/g, '') || 'site'
    const names = [...SUGGEST_TLDS.map((t) => `${label}.${t}`), ...AFFIXES.map(([pre, post]) => `${pre}${base}${post}.com`)]
    const offers = await Promise.all([...new Set(names)].filter((n) => n !== domain).map((n) => this.check(n)))
    return offers.filter((o) => o.available).slice(0, limit)
  }

  async register(input: { domain: string; years: number }): Promise<Registration> {
    const offer = await this.check(input.domain)
    if (!offer.available) return { ok: false, reason: `${input.domain} is not available` }
    if (input.domain.includes('fail')) return { ok: false, reason: 'The registry refused the registration' }
    this.registered.add(input.domain)
    return { ok: true, orderId: newId('rego'), nameservers: this.dns.nameservers }
  }
}
