// A stand-in for Name.com's core API v1, written from its published API reference (the reference of
// the official SDKs, github.com/namedotcom/core-api-php `reference.md` and `src/Types/*`): the calls
// Portico makes, with their shapes, paging and every documented error status. It keeps an account
// (balance, domains, orders) in memory on a loopback port. Rules:
// - HTTP Basic auth with the stand-in's user name and token, else 401;
// - a label containing `taken` is registered elsewhere (not purchasable; create answers 409), `premium`
//   is a registry premium at PREMIUM_USD (create must carry that exact `purchasePrice`, else 400
//   "Purchase price does not match"), `aftermarket` is an aftermarket listing, `locked` is locked at
//   the registry (423); a `.bank` name is not sold to this account (403); a label that is not a valid
//   LDH label is 400;
// - non-premium availability answers carry no price (the API reference: read it from getPricing);
// - create debits the balance (402 when short) and is idempotent per `X-Idempotency-Key`: a retry
//   answers the first result and charges nothing;
// - lists page with `perPage`/`page` and answer `nextPage`/`lastPage` while more remain;
// - `failNext(status)` makes the next call answer a server-side error (429, 500, 501, 502, 504);
//   an unknown method on a known path is 405; `loseNextCreate` registers the next create and answers
//   504 as a gateway that timed out after the registration went through (the caller cannot know).
export const PREMIUM_USD = 2500
export const PRICES_USD: Record<string, number> = { com: 10.99, net: 12.99, org: 11.99, io: 39.99, dev: 14.99, app: 16.99, co: 24.99, bank: 999 }
export const NAMECOM_NAMESERVERS = ['ns1.name.com', 'ns2.name.com', 'ns3.name.com', 'ns4.name.com']

interface OrderItem {
  id: number
  name: string
  tld: string
  type: string
  status: string
  price: number
  duration: number
  interval: string
  quantity: number
  isRefundable: boolean
}

export interface NamecomStandIn {
  url: string
  username: string
  token: string
  account: { balance: number; domains: Map<string, { domainName: string; nameservers: string[]; order: number }>; orders: { id: number; createDate: string; status: string; currency: string; orderItems: OrderItem[] }[] }
  /** Every request received, as `METHOD /path`. */
  calls: string[]
  /** The registry premium price (change it to make a quote stale). */
  premiumUsd: number
  /** The next create registers, then answers 504: the registration happened and its answer was lost. */
  loseNextCreate: boolean
  /** Awaited before each create is processed (a test holds a create in flight with it). */
  onCreate: (() => Promise<void>) | null
  /** The next `times` calls answer `status` with a documented error body. */
  failNext(status: number, times?: number): void
  stop(): void
}

const LDH = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

export function startNamecom(opts: { balance?: number } = {}): NamecomStandIn {
  const username = 'portico-test'
  const token = 'namecom-test-token'
  const account: NamecomStandIn['account'] = { balance: opts.balance ?? 100_000, domains: new Map(), orders: [] }
  const idempotent = new Map<string, { status: number; body: unknown }>()
  const calls: string[] = []
  const failures: number[] = []
  let nextId = 1000

  const json = (status: number, body: unknown) => Response.json(body, { status })
  const error = (status: number, message: string, details?: string) => json(status, details ? { message, details } : { message })
  const MESSAGES: Record<number, string> = { 429: 'Too Many Requests', 500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 504: 'Gateway Timeout' }

  function split(name: string) {
    const dot = name.indexOf('.')
    return { label: name.slice(0, dot), tld: name.slice(dot + 1) }
  }

  interface SearchResult { domainName: string; sld: string; tld: string; purchasable: boolean; premium?: boolean; purchaseType?: string; purchasePrice?: number; renewalPrice?: number }

  function searchResult(domainName: string): SearchResult {
    const name = domainName.toLowerCase()
    const { label, tld } = split(name)
    const price = PRICES_USD[tld]
    const base = { domainName: name, sld: label, tld }
    if (price === undefined || !LDH.test(label)) return { ...base, purchasable: false }
    if (label.includes('taken') || account.domains.has(name)) return { ...base, purchasable: false }
    if (label.includes('aftermarket')) return { ...base, purchasable: true, premium: false, purchaseType: 'aftermarket_s', purchasePrice: 500 }
    if (label.includes('premium')) return { ...base, purchasable: true, premium: true, purchaseType: 'registration', purchasePrice: standIn.premiumUsd, renewalPrice: standIn.premiumUsd }
    return { ...base, purchasable: true, premium: false, purchaseType: 'registration' }
  }

  function page<T>(items: T[], url: URL) {
    const perPage = Math.max(1, Math.min(1000, Number(url.searchParams.get('perPage') ?? 250)))
    const n = Math.max(1, Number(url.searchParams.get('page') ?? 1))
    const last = Math.max(1, Math.ceil(items.length / perPage))
    const slice = items.slice((n - 1) * perPage, n * perPage)
    return { slice, meta: { totalCount: items.length, from: (n - 1) * perPage + 1, to: (n - 1) * perPage + slice.length, ...(n < last ? { nextPage: n + 1, lastPage: last } : {}) } }
  }

  function create(body: { domain?: { domainName?: string }; years?: number; purchasePrice?: number; purchaseType?: string }) {
    const name = body.domain?.domainName?.toLowerCase() ?? ''
    const { label, tld } = split(name)
    if (!name.includes('.') || !LDH.test(label)) return error(400, 'Invalid Argument', `${JSON.stringify(name)} is not a valid domain name`)
    if (tld === 'bank') return error(403, 'Permission Denied', 'This account may not register .bank names')
    if (label.includes('locked')) return error(423, 'Locked', 'The domain is locked at the registry')
    const r = searchResult(name)
    if (!r.purchasable) return error(409, 'Conflict', 'Domain is not available')
    const years = body.years ?? 1
    const price = r.premium ? standIn.premiumUsd : PRICES_USD[tld]! * years
    if ((r.premium || r.purchaseType !== 'registration') && body.purchasePrice !== r.purchasePrice) return error(400, 'Purchase price does not match')
    if (account.balance < price) return error(402, 'Payment Required', 'Insufficient account balance')
    account.balance -= price
    const order = nextId++
    account.domains.set(name, { domainName: name, nameservers: NAMECOM_NAMESERVERS, order })
    account.orders.push({ id: order, createDate: new Date().toISOString(), status: 'success', currency: 'USD', orderItems: [{ id: nextId++, name, tld, type: 'registration', status: 'success', price, duration: years, interval: 'year', quantity: 1, isRefundable: true }] })
    return json(200, { domain: { domainName: name, nameservers: NAMECOM_NAMESERVERS, locked: false, autorenewEnabled: false }, order, totalPaid: price })
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    const path = decodeURIComponent(url.pathname)
    calls.push(`${req.method} ${path}`)
    if (req.headers.get('authorization') !== `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`) return error(401, 'Unauthenticated')
    const failing = failures.shift()
    if (failing) return error(failing, MESSAGES[failing] ?? 'Error')
    const body = req.method === 'POST' ? await req.json().catch(() => null) : null
    if (path === '/core/v1/domains:checkAvailability') {
      if (req.method !== 'POST') return error(405, 'Method Not Allowed')
      const names = (body as { domainNames?: string[] } | null)?.domainNames
      if (!Array.isArray(names) || names.length === 0 || names.length > 50) return error(400, 'Invalid Argument', 'domainNames takes 1 to 50 names')
      return json(200, { results: names.map(searchResult) })
    }
    const pricing = /^\/core\/v1\/domains\/([^/:]+):getPricing$/.exec(path)
    if (pricing) {
      if (req.method !== 'GET') return error(405, 'Method Not Allowed')
      const { tld } = split(pricing[1]!.toLowerCase())
      const years = Number(url.searchParams.get('years') ?? 1)
      const price = PRICES_USD[tld]
      if (price === undefined) return error(404, 'Not Found', 'Unsupported TLD')
      return json(200, { purchasePrice: price * years, renewalPrice: price, premium: false })
    }
    if (path === '/core/v1/domains') {
      if (req.method === 'GET') {
        const { slice, meta } = page([...account.domains.values()], url)
        return json(200, { domains: slice, ...meta })
      }
      if (req.method !== 'POST') return error(405, 'Method Not Allowed')
      const key = req.headers.get('x-idempotency-key')
      const prior = key ? idempotent.get(key) : undefined
      if (prior) return json(prior.status, prior.body)
      await standIn.onCreate?.()
      const res = create(body ?? {})
      if (key && res.status === 200) idempotent.set(key, { status: 200, body: await res.clone().json() })
      if (res.status === 200 && standIn.loseNextCreate) {
        standIn.loseNextCreate = false
        return error(504, MESSAGES[504]!)
      }
      return res
    }
    const one = /^\/core\/v1\/domains\/([^/:]+)$/.exec(path)
    if (one) {
      if (req.method !== 'GET') return error(405, 'Method Not Allowed')
      const d = account.domains.get(one[1]!.toLowerCase())
      return d ? json(200, { domainName: d.domainName, nameservers: d.nameservers, locked: false }) : error(404, 'Not Found', 'Domain not found in this account')
    }
    if (path === '/core/v1/orders') {
      if (req.method !== 'GET') return error(405, 'Method Not Allowed')
      const { slice, meta } = page([...account.orders].reverse(), url)
      return json(200, { orders: slice, ...meta })
    }
    return error(404, 'Not Found')
  }

  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: handle })
  const standIn: NamecomStandIn = {
    url: `http://127.0.0.1:${server.port}`,
    username,
    token,
    account,
    calls,
    failNext(status, times = 1) {
      for (let i = 0; i < times; i++) failures.push(status)
    },
    premiumUsd: PREMIUM_USD,
    loseNextCreate: false,
    onCreate: null,
    stop() {
      server.stop(true)
    },
  }
  return standIn
}
