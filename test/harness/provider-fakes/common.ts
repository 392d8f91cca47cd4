// Shared plumbing of the local provider fakes: a loopback HTTP server, an in-memory zone store, and
// switches a test flips to get the provider's documented failures (rate limit on the next request).
// Each fake implements only the requests the adapter makes, with the documented request shapes,
// response bodies and error bodies of that provider's API. Every exchange is recorded, so a test can
// hold both sides to the provider's published OpenAPI document (test/harness/openapi-validate.ts).
import type { Exchange } from '../openapi-validate.ts'
import type { ProviderCard } from '../../../src/adapters/dns-providers/card-types.ts'
import type { Zone } from '../../../src/adapters/dns-providers/types.ts'

export interface FakeZone<R> {
  id: string
  name: string
  records: R[]
  /** Zone-level settings the provider keeps beside the records (Namecheap's EmailType). */
  settings?: Record<string, unknown>
  /** The name servers the host assigned this zone, where its stand-in reports them (its own default otherwise). */
  nameServers?: string[]
  /** The host's status of the zone, where it has one (Cloudflare: `active` by default, `pending`, `moved`). */
  status?: string
}

export interface Fake<R> {
  url: string
  /** The credential the fake accepts, in the form Portico takes it. */
  credential: string
  zones: FakeZone<R>[]
  addZone(name: string): FakeZone<R>
  /** The next `times` requests are answered with the provider's rate-limit response; with `wait`,
   * one that signals that many seconds (stand-ins that build it from their card). */
  throttleNext(wait?: number, times?: number): void
  requests: string[]
  /** Every request and its answer, in order. */
  exchanges: Exchange[]
  /** The deepest page (1-based) served of each listing, so a test can see the adapter paged. */
  deepest: { zones: number; records: number }
  /** The Retry-After (seconds) the fake's rate-limit response carries, if the provider sends one. */
  retryAfter?: number
  /**
   * Failure injection (issue 46): the next `times` requests of `method` whose path matches `path` get
   * `answer` instead of being carried out, as a host refuses one call of a write after the calls before it
   * went through. Each stand-in exports the answers its host really gives (with their source).
   */
  refuseNext(method: string, path: RegExp, answer: () => Response, times?: number): void
  /** The request `at` requests from now (1: the next one) gets `answer` instead of being carried out. */
  refuseAt(at: number, answer: () => Response): void
  stop(): void
}

/** The fakes serve at most this many items a page, whatever the request asked for (a provider may
 * cap a page below the asked size), so every listing of a test zone spans pages. */
export const PAGE_CAP = 3

/** One page (1-based) of `items`, at most PAGE_CAP long, noted in `fake.deepest`. */
export function servePage<T>(fake: Fake<any>, list: 'zones' | 'records', items: T[], page: number, asked = PAGE_CAP) {
  const size = Math.max(1, Math.min(asked, PAGE_CAP))
  fake.deepest[list] = Math.max(fake.deepest[list], page)
  return { items: items.slice((page - 1) * size, page * size), size, last: Math.max(1, Math.ceil(items.length / size)), total: items.length }
}

/**
 * One page of `items` as an API that honours the asked size up to its documented maximum serves it
 * (the stand-ins that follow a card): a page shorter than asked is the last one. `index` is 1-based
 * (a marker or offset listing passes the page number it amounts to), noted in `fake.deepest`.
 */
export function askedPage<T>(fake: Fake<any>, list: 'zones' | 'records', items: T[], from: number, asked: number, max = Infinity) {
  const size = Math.max(1, Math.min(asked, max))
  fake.deepest[list] = Math.max(fake.deepest[list], Math.floor(from / size) + 1)
  return items.slice(from, from + size)
}

let ids = 0
export const nextId = (prefix = '') => `${prefix}${(++ids).toString(16).padStart(8, '0')}`

export function startFake<R>(opts: {
  credential: string
  zoneId?: (name: string) => string
  throttled: (wait?: number) => Response
  retryAfter?: number
  handle: (req: Request, url: URL, fake: Fake<R>) => Promise<Response> | Response
}): Fake<R> {
  let throttle = 0
  let throttleWait: number | undefined
  const refusals: { method: string; path: RegExp; answer: () => Response; times: number }[] = []
  const refusedAt = new Map<number, () => Response>()
  const fake: Fake<R> = {
    url: '',
    credential: opts.credential,
    zones: [],
    requests: [],
    exchanges: [],
    deepest: { zones: 0, records: 0 },
    retryAfter: opts.retryAfter,
    addZone(name) {
      const z = { id: opts.zoneId ? opts.zoneId(name) : nextId('z'), name, records: [] as R[] }
      fake.zones.push(z)
      return z
    },
    throttleNext(wait?: number, times = 1) {
      throttle = times
      throttleWait = wait
    },
    refuseNext(method, path, answer, times = 1) {
      refusals.push({ method, path, answer, times })
    },
    refuseAt(at, answer) {
      refusedAt.set(fake.requests.length + at, answer)
    },
    stop: () => server.stop(true),
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      fake.requests.push(`${req.method} ${url.pathname}${url.search}`)
      const requestBody = req.body ? await req.clone().text() : ''
      let res: Response
      const refusal = refusals.find((r) => r.times > 0 && r.method === req.method && r.path.test(url.pathname))
      const atThis = refusedAt.get(fake.requests.length)
      if (atThis) {
        refusedAt.delete(fake.requests.length)
        res = atThis()
      } else if (refusal) {
        refusal.times--
        res = refusal.answer()
      } else if (throttle > 0) {
        throttle--
        res = opts.throttled(throttleWait)
      } else {
        res = await opts.handle(req, url, fake)
      }
      const responseBody = res.body ? await res.clone().text() : ''
      fake.exchanges.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), requestBody, status: res.status, responseBody })
      return res
    },
  })
  fake.url = `http://127.0.0.1:${server.port}`
  return fake
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

/** `@` and relative names as absolute ones (the fakes store absolute names). */
export const abs = (name: string, zone: string) => (name === '@' || name === '' ? zone : name.endsWith('.' + zone) || name === zone ? name : `${name}.${zone}`)
export const rel = (name: string, zone: string) => (name === zone ? '@' : name.slice(0, -(zone.length + 1)))

/** The provider's rate-limit answer as its card describes it, for a wait of `wait` seconds. */
export const cardThrottle =
  (card: ProviderCard, fallbackWait: number) =>
  (wait = fallbackWait): Response => {
    const a = card.rateLimit.answer(wait)
    return typeof a.body === 'string' ? new Response(a.body, { status: card.rateLimit.status, headers: a.headers }) : json(card.rateLimit.status, a.body, a.headers)
  }

/**
 * A hosted adapter with its stand-in, as the shared contract test (test/integration/dns-adapter-contract.test.ts),
 * the do-no-harm and the host-property tests take it: each provider's stand-in.ts exports its own as
 * `fakeCase`. It names the published reference its stand-in follows; `badCredential` is a credential of the
 * right shape the stand-in refuses, `foreignZone` a zone id the credential does not reach.
 */
export interface FakeCase {
  /** Catalog id, as `makeHosted` takes it. */
  id: string
  reference: string
  start(): Fake<any>
  /** The API base the adapter is pointed at. */
  base(f: Fake<any>): string
  /** A credential of the right shape the stand-in refuses (a function where it depends on the stand-in). */
  badCredential: string | ((f: Fake<any>) => string)
  foreignZone: Zone
  /** Lists the provider's API does not page, and why (the test then checks the adapter did not page them). */
  unpaged?: { lists: ('zones' | 'records')[]; why: string }
  /** What a fresh zone holds at the provider besides what a test writes (Route 53: SOA and NS). */
  seedZone?(zoneName: string, f: Fake<any>): void
  /** Other API bases the adapter may reach (the NS1 fleet also tries Netlify with a key NS1 refuses). */
  extraBases?: Record<string, string>
  /** Where the stand-in honours the asked page size (as its card says the API does), how many filler
   * zones and record rows make each listing span pages. */
  pageFill?: { zones?: number; records?: { count: number; row: (zoneName: string, i: number) => unknown } }
  /** Do-no-harm test: fields the provider assigns afresh on each write, a stored row's name and type
   * where the usual field names do not tell it, how a seed row is stored. */
  volatile?: string[]
  rowKey?: (row: any, zone: string) => { name: string; type: string }
  seedRow?: (zone: FakeZone<any>, row: any) => void
}
