// The plan catalog (GET /plans). Quotas are monthly new connected domains; only the free plan is
// hard-capped, and only where BILLING_ENFORCE_QUOTA is on (the API contract, sections 7 and 8).
export interface Plan {
  id: string
  name: string
  monthly_price_cents: number
  currency: string
  domain_quota: number
  hard_cap: boolean
  first_domain_free: boolean
  features: string[]
}

export const PLANS: Plan[] = [
  { id: 'free', name: 'Free', monthly_price_cents: 0, currency: 'usd', domain_quota: 5, hard_cap: true, first_domain_free: true, features: ['connect', 'monitor'] },
  { id: 'starter', name: 'Starter', monthly_price_cents: 4900, currency: 'usd', domain_quota: 100, hard_cap: false, first_domain_free: false, features: ['connect', 'secure', 'monitor', 'power'] },
  { id: 'growth', name: 'Growth', monthly_price_cents: 19900, currency: 'usd', domain_quota: 1000, hard_cap: false, first_domain_free: false, features: ['connect', 'secure', 'monitor', 'power', 'sell'] },
  { id: 'scale', name: 'Scale', monthly_price_cents: 79900, currency: 'usd', domain_quota: 10000, hard_cap: false, first_domain_free: false, features: ['connect', 'secure', 'monitor', 'power', 'sell'] },
]

export function planById(id: string): Plan | undefined {
  return PLANS.find((p) => p.id === id)
}
