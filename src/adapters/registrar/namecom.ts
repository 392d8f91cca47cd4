// Name.com's reseller API (core v1, JSON over HTTPS with HTTP Basic auth: account user name and API
// token; sandbox at api.dev.name.com). Chosen over Dynadot, OpenSRS and Namecheap because it is the
// only one of them whose domain create takes an idempotency key (`X-Idempotency-Key`), it speaks JSON
// with documented per-status error bodies `{message, details}`, prices are in its availability answer
// (premium included), and a small platform can open an account without a reseller contract.
// Calls used:
// - POST /core/v1/domains:checkAvailability {domainNames}  → {results: [{domainName, purchasable,
//   premium, purchasePrice, purchaseType}]}; a non-premium name without a price is priced with
//   GET /core/v1/domains/{name}:getPricing?years=1 → {purchasePrice};
// - POST /core/v1/domains {domain: {domainName}, years, purchasePrice?} with X-Idempotency-Key: the
//   order id → {domain: {domainName, nameservers}, order, totalPaid};
// - GET /core/v1/domains/{name} (200 ours, 404 not) and GET /core/v1/orders?perPage&page (paged by
//   `nextPage`) to find the order that registered it, for `lookup` after a crash.
// Errors by status (the API's documented responses): 400 invalid argument ("Purchase price does not
// match" is a price change), 401 bad credentials, 402 insufficient account funds, 403 forbidden,
// 404 not found, 405 method not allowed, 409 conflict (the name is not available), 423 locked,
// 429 rate limited, 500/501/502/504 (server errors, an unsupported call, bad gateway, gateway timeout).
import { RegistrarError, suggestionCandidates, type Lookup, type Offer, type Registrar, type RegistrarReason, type Registration } from './index.ts'

interface SearchResult {
  domainName: string
  purchasable?: boolean
  premium?: boolean
  purchasePrice?: number
  purchaseType?: string
}

/** The reason each documented status means. */
const REASONS: Record<number, RegistrarReason> = {
  400: 'invalid_request',
  401: 'unauthorized',
  402: 'insufficient_funds',
  403: 'forbidden',
  404: 'not_found',
  405: 'unsupported',
  409: 'unavailable',
  423: 'locked',
  429: 'rate_limited',
  500: 'registry_error',
  501: 'unsupported',
  502: 'registry_error',
  504: 'registry_error',
}

/** Refusals that settle a registration: the order fails and the card is released. Other errors leave the outcome unknown. */
const REFUSALS = new Set<RegistrarReason>(['invalid_request', 'price_mismatch', 'insufficient_funds', 'forbidden', 'unavailable', 'locked', 'unsupported'])

const PAGE = 100
const MAX_PAGES = 50
const TIMEOUT_MS = 30_000

const cents = (usd: number) => Math.round(usd * 100)

export class NamecomRegistrar implements Registrar {
  readonly name = 'namecom'
  // Name.com's apex record is its ANAME (the catalogue's and the DNS adapter's, src/adapters/dns-providers/namecom/adapter.ts): a
  // purchased apex is shown and planned with the record Name.com really offers (issue 46).
  readonly dns = { nameservers: ['ns1.name.com', 'ns2.name.com', 'ns3.name.com', 'ns4.name.com'], apex: 'aname' as const }
  private readonly auth: string

  constructor(
    private readonly settings: { apiUrl: string; username: string; token: string },
    private readonly pageSize = PAGE,
  ) {
    this.auth = `Basic ${Buffer.from(`${settings.username}:${settings.token}`).toString('base64')}`
  }

  /** One call; a non-2xx answer is thrown as a RegistrarError with its typed reason. */
  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    let res: Response
    try {
      res = await fetch(`${this.settings.apiUrl}${path}`, {
        method,
        headers: { authorization: this.auth, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
    } catch (err) {
      throw new RegistrarError('unreachable', `Name.com did not answer: ${(err as Error).message}`)
    }
    const text = await res.text()
    let json: Record<string, unknown> = {}
    try {
      json = text ? JSON.parse(text) : {}
    } catch {
      // a gateway's HTML page: the status says enough
    }
    if (res.ok) return json as T
    const message = typeof json.message === 'string' ? json.message : `HTTP ${res.status}`
    const details = typeof json.details === 'string' ? `: ${json.details}` : ''
    const reason = res.status === 400 && /price does not match/i.test(message) ? 'price_mismatch' : (REASONS[res.status] ?? (res.status >= 500 ? 'registry_error' : 'invalid_request'))
    throw new RegistrarError(reason, `Name.com ${method} ${path.split('?')[0]}: ${message}${details}`)
  }

  private async availability(names: string[]): Promise<SearchResult[]> {
    const r = await this.call<{ results?: SearchResult[] }>('POST', '/core/v1/domains:checkAvailability', { domainNames: names })
    return r.results ?? []
  }

  private async offer(r: SearchResult): Promise<Offer> {
    // Aftermarket, expiring and backorder names are other products than a registration: not sold here.
    const available = r.purchasable === true && (r.purchaseType ?? 'registration') === 'registration'
    let price = r.purchasePrice ?? null
    if (available && price === null) {
      price = (await this.call<{ purchasePrice?: number }>('GET', `/core/v1/domains/${encodeURIComponent(r.domainName)}:getPricing?years=1`)).purchasePrice ?? null
    }
    return { domain: r.domainName.toLowerCase(), available: available && price !== null, premium: r.premium === true, price_cents: price === null ? null : cents(price), currency: 'usd' }
  }

  async check(domain: string): Promise<Offer> {
    const [r] = await this.availability([domain])
    return r ? this.offer(r) : { domain, available: false, premium: false, price_cents: null, currency: 'usd' }
  }

  async suggest(domain: string, limit: number): Promise<Offer[]> {
    const results = await this.availability(suggestionCandidates(domain))
    const offers = await Promise.all(results.filter((r) => r.purchasable).slice(0, limit).map((r) => this.offer(r)))
    return offers.filter((o) => o.available)
  }

  /** The registrant is the account's default contact (Name.com's rule when a create names none). */
  async register(input: Parameters<Registrar['register']>[0]): Promise<Registration> {
    // A premium name must carry its price, which must match Name.com's exactly (else 400, price_mismatch).
    const offer = await this.check(input.domain)
    const body = { domain: { domainName: input.domain }, years: input.years, purchaseType: 'registration', ...(offer.premium && offer.price_cents !== null ? { purchasePrice: offer.price_cents / 100 } : {}) }
    if (offer.premium && input.priceCents !== undefined && offer.price_cents !== input.priceCents) {
      return { ok: false, code: 'price_mismatch', reason: `The price of ${input.domain} changed since the quote` }
    }
    try {
      const r = await this.call<{ domain: { domainName: string; nameservers?: string[] }; order: number }>('POST', '/core/v1/domains', body, { 'x-idempotency-key': input.reference })
      return { ok: true, orderId: String(r.order), nameservers: r.domain.nameservers?.length ? r.domain.nameservers : this.dns.nameservers }
    } catch (err) {
      if (err instanceof RegistrarError && REFUSALS.has(err.reason)) return { ok: false, code: err.reason, reason: err.message }
      throw err
    }
  }

  async lookup(input: { domain: string; reference: string }): Promise<Lookup> {
    let domain: { domainName: string; nameservers?: string[] }
    try {
      domain = await this.call('GET', `/core/v1/domains/${encodeURIComponent(input.domain)}`)
    } catch (err) {
      if (err instanceof RegistrarError && err.reason === 'not_found') return { registered: false }
      throw err
    }
    const nameservers = domain.nameservers?.length ? domain.nameservers : this.dns.nameservers
    // The order that registered it, newest pages first as the API lists them.
    let page: number | undefined = 1
    for (let i = 0; page && i < MAX_PAGES; i++) {
      const r: { orders?: { id: number; orderItems?: { name?: string; type?: string; status?: string }[] }[]; nextPage?: number } = await this.call('GET', `/core/v1/orders?perPage=${this.pageSize}&page=${page}`)
      const order = r.orders?.find((o) => o.orderItems?.some((it) => it.name?.toLowerCase() === input.domain && it.type === 'registration' && it.status === 'success'))
      if (order) return { registered: true, orderId: String(order.id), nameservers }
      page = r.nextPage
    }
    // In the account, its order out of reach of the listing: still registered.
    return { registered: true, orderId: `namecom:${input.domain}`, nameservers }
  }
}
