// GoDaddy Domains API v1 (https://developer.godaddy.com/doc/endpoint/domains): header
// `Authorization: sso-key <key>:<secret>`; the credential is given as `key:secret`. Zones: GET
// /v1/domains (the account's domains; paged with `limit` and `marker`); records: GET
// /v1/domains/{domain}/records; a record set is replaced with PUT /v1/domains/{domain}/records/{type}/{name}
// (an array of `{data, ttl, priority?}`) and removed with DELETE on the same path (204). Names are
// relative (`@`); records are paged with `offset` and `limit`. Errors are `{code, message}`: 401
// UNABLE_TO_AUTHENTICATE, 403 ACCESS_DENIED (GoDaddy opens the API only to accounts with enough
// domains or a qualifying plan, so this is an account restriction, not a bad key), 404
// UNKNOWN_DOMAIN, 429 TOO_MANY_REQUESTS (with `retryAfterSec`, waited out when short), 422 INVALID_BODY
// (a TTL under 600 among others: `minTtl` makes the planner raise TTLs to it). For a few seconds after
// an edit GoDaddy answers 409 to the next one on the same domain: that is temporary and retried with
// a growing wait; only a 409 that outlasts the retries is reported (as a rate limit: try again). The
// key and secret are accepted as `key:secret`, `sso-key key:secret`, JSON or NAME=value lines
// (src/adapters/dns-providers/godaddy/card.ts is the card).
import { coexistOrder } from '../coexist.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { absoluteName, relativeName } from '../record-based.ts'
import { canonicalName, canonicalValue, ProviderError, unquoteTxt, type DnsProvider, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const GODADDY_API = 'https://api.godaddy.com'
export const GODADDY_MIN_TTL = 600
const PAGE = 500

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const code = r.body?.code as string | undefined
  const msg = code ? `${code}: ${r.body.message}` : `HTTP ${r.status}`
  // A 409 still there after the retries: GoDaddy is busy with the domain's last edit; try again shortly.
  if (r.status === 409 && code !== 'DUPLICATE_RECORD') return new ProviderError('rate_limited', `GoDaddy is still applying an earlier change to this domain (${msg.slice(0, 300)})`, 409, 5)
  const e = failureOf('GoDaddy', r, msg, code === 'ACCESS_DENIED' ? 'plan_restricted' : code === 'UNABLE_TO_AUTHENTICATE' ? 'auth' : code === 'DUPLICATE_RECORD' ? 'conflict' : undefined)
  const after = Number(r.body?.retryAfterSec)
  return e.kind === 'rate_limited' && e.retryAfter === undefined && after >= 0 ? new ProviderError('rate_limited', e.message, r.status, after) : e
}

/** GoDaddy's temporary refusals: its rate limit (`retryAfterSec` in the body) and the 409 after an edit. */
export function godaddyTemporary(r: HttpResult, attempt: number): number | undefined {
  if (r.status === 429) {
    const after = Number(r.body?.retryAfterSec ?? r.headers.get('retry-after'))
    return Number.isFinite(after) && after >= 0 ? after : undefined
  }
  if (r.status === 409 && r.body?.code !== 'DUPLICATE_RECORD') return Math.min(2 ** (attempt - 1), 8)
  return undefined
}

interface GdRow {
  type: string
  name: string
  data: string
  ttl: number
  priority?: number
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute without the trailing dot; `@` the zone",
  txt: "bare text",
  ttl: "at least 600",
  temporary: "the 409 in the seconds after an edit and 429 retryAfterSec waited out",
  sources: {
    apex: "developer.godaddy.com/doc/endpoint/domains: no ALIAS type",
    names: "the reference card (src/adapters/dns-providers/godaddy/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/godaddy/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/godaddy/card.ts)",
    ttl: "GoDaddy OpenAPI: ttl minimum 600",
    temporary: "providers-reality check (409 after an edit); the reference card (src/adapters/dns-providers/godaddy/card.ts)",
  },
}

export class GoDaddyProvider implements DnsProvider {
  readonly id = 'godaddy'
  readonly conventions = CONVENTIONS
  readonly minTtl = GODADDY_MIN_TTL
  private readonly auth: string
  constructor(
    credential: string,
    private readonly base = GODADDY_API,
  ) {
    const [key, secret] = credentialParts(
      credential,
      [
        { name: 'key', aliases: ['api_key', 'apikey', 'GODADDY_API_KEY', 'GD_Key', 'godaddy_key'] },
        { name: 'secret', aliases: ['api_secret', 'apisecret', 'GODADDY_API_SECRET', 'GD_Secret', 'godaddy_secret'] },
      ],
      { strip: /^sso-key\s+/i },
    )
    this.auth = `sso-key ${key}:${secret}`
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { authorization: this.auth }, body, { temporary: godaddyTemporary })
    const f = failure(r)
    if (f) throw f
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const rows = await paginate<{ domain: string }>({ provider: 'GoDaddy', what: 'domains', pageSize: PAGE }, async ({ last }) => ({
      items: (await this.call('GET', `/v1/domains?statuses=ACTIVE&limit=${PAGE}${last ? `&marker=${encodeURIComponent(last.domain)}` : ''}`)) as { domain: string }[],
    }))
    return rows.map((d) => ({ id: canonicalName(d.domain), name: canonicalName(d.domain) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const rows = await paginate<GdRow>({ provider: 'GoDaddy', what: `records of ${zone.name}`, pageSize: PAGE }, async ({ offset }) => ({
      items: (await this.call('GET', `/v1/domains/${encodeURIComponent(zone.id)}/records?offset=${offset}&limit=${PAGE}`)) as GdRow[],
    }))
    const sets = new Map<string, RRset>()
    for (const r of rows) {
      if (r.type === 'SOA') continue
      const name = absoluteName(r.name, zone.name)
      const host = (v: string) => (v === '@' ? zone.name : canonicalName(v))
      const value =
        r.type === 'MX' ? `${r.priority ?? 0} ${host(r.data)}` : r.type === 'CNAME' || r.type === 'NS' ? host(r.data) : r.type === 'TXT' ? unquoteTxt(r.data) : canonicalValue(r.type, r.data)
      const k = `${name}|${r.type}`
      const s: RRset = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      s.values.push(value)
      // GoDaddy's parked apex (`A @ Parked`) is a word, not an address: written back exactly as it was.
      if ((r.type === 'A' || r.type === 'AAAA') && value !== r.data) s.native = { ...s.native, [value]: { data: r.data } }
      // Fields Portico does not model (SRV's service, protocol, port, weight): never rewritten.
      if (r.type === 'SRV' || (r as { port?: number }).port !== undefined) s.locked ??= 'GoDaddy SRV fields (service, protocol, port, weight)'
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    // Sets that may stand beside those removed go first; a removal first only where they cannot (coexist.ts).
    const steps = coexistOrder(changes.filter((c) => c.values.length === 0), changes.filter((c) => c.values.length > 0))
    for (const c of steps.map((s) => ('del' in s ? s.del : s.put))) {
      const path = `/v1/domains/${encodeURIComponent(zone.id)}/records/${c.type}/${encodeURIComponent(relativeName(c.name, zone.name))}`
      if (c.values.length === 0) {
        await this.call('DELETE', path)
        continue
      }
      const items = c.values.map((v) => {
        // GoDaddy refuses a TTL under its floor (422 INVALID_BODY); the planner already raises to it.
        const ttl = Math.max(c.ttl, GODADDY_MIN_TTL)
        if (c.type === 'MX') {
          const [p, h] = v.split(' ')
          return { data: h, ttl, priority: Number(p) }
        }
        const native = c.native?.[v] as { data?: string } | undefined
        return { data: native?.data ?? v, ttl }
      })
      await this.call('PUT', path, items)
    }
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'godaddy',
  defaultBase: GODADDY_API,
  make: (s, o) => new GoDaddyProvider(s, o.base),
  token_url: 'https://developer.godaddy.com/keys',
  token_scopes: ['Production key and secret (accounts with 10+ domains or a Discount Domain Club plan)'],
  credential: 'API key and secret (key:secret)',
}
