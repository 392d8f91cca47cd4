// The registrar port: what Sell needs of a domain registrar. Two implementations: `sandbox.ts`
// (deterministic, the default) and `namecom.ts` (Name.com's reseller API). Prices are what the
// platform charges, in the smallest currency unit, per year.
// Invariants every implementation keeps:
// - `register` is idempotent per `reference` (Portico's order id): a second call with the same
//   reference answers the first registration and never registers or charges twice;
// - a refusal the registrar gives (taken, price changed, no funds...) is `{ ok: false }` with a typed
//   `code`; a failure that says nothing about the outcome (timeout, 5xx, rate limit, bad credentials)
//   is thrown as a RegistrarError, and the order is resumed later by asking `lookup`.

export interface Offer {
  domain: string
  available: boolean
  premium: boolean
  /** Retail price for one year; absent when the name cannot be bought here. */
  price_cents: number | null
  currency: string
}

/** Why a registrar refused or failed, whichever registrar it was. */
export type RegistrarReason =
  | 'unavailable' // the name is taken or cannot be registered here
  | 'invalid_request' // the registrar rejected the request's contents
  | 'price_mismatch' // the price changed since the quote (premium names)
  | 'insufficient_funds' // the reseller account cannot pay
  | 'forbidden' // the account may not do this (TLD, reseller rights)
  | 'not_found'
  | 'locked' // the name is locked at the registry
  | 'unsupported' // the registrar does not offer this operation or TLD
  | 'unauthorized' // Portico's credentials were refused
  | 'rate_limited'
  | 'registry_error' // the registrar or the registry behind it failed
  | 'unreachable' // no answer at all

export class RegistrarError extends Error {
  constructor(
    readonly reason: RegistrarReason,
    message: string,
  ) {
    super(message)
  }
}

export type Registration =
  | { ok: true; orderId: string; nameservers: string[] }
  | { ok: false; code: RegistrarReason; reason: string }

/** Whether a registration Portico asked for happened (after a crash, the only way to know). */
export type Lookup = { registered: true; orderId: string; nameservers: string[] } | { registered: false }

export interface Registrar {
  /** Stable name, reported as `Registrar` in a fulfill result. */
  readonly name: string
  /** The DNS hosting a freshly registered domain gets; its apex capability decides the planned records. */
  readonly dns: { nameservers: string[]; apex: 'alias' | 'aname' | 'flattening' | null }
  check(domain: string): Promise<Offer>
  /** Available alternatives for a name, best first. */
  suggest(domain: string, limit: number): Promise<Offer[]>
  /** Registers for the order `reference` (the idempotency key). */
  register(input: { domain: string; years: number; email: string; reference: string; priceCents?: number }): Promise<Registration>
  /** Is `domain` registered in Portico's account (for the order `reference`)? */
  lookup(input: { domain: string; reference: string }): Promise<Lookup>
}

const SUGGEST_TLDS = ['com', 'net', 'org', 'io', 'dev', 'app', 'co']
const AFFIXES: [string, string][] = [['get', ''], ['', 'hq'], ['try', ''], ['', 'app'], ['my', '']]

export function splitName(domain: string): { label: string; tld: string } {
  const dot = domain.indexOf('.')
  return { label: domain.slice(0, dot), tld: domain.slice(dot + 1) }
}

/** Names worth offering instead of `domain`: its label under other TLDs, then affixed `.com` names. */
export function suggestionCandidates(domain: string): string[] {
  const { label } = splitName(domain)
  const base = label.replace(/taken/g, '') || 'site'
  const names = [...SUGGEST_TLDS.map((t) => `${label}.${t}`), ...AFFIXES.map(([pre, post]) => `${pre}${base}${post}.com`)]
  return [...new Set(names)].filter((n) => n !== domain)
}
