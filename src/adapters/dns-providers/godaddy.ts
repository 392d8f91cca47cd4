// GoDaddy Domains API v1 (https://developer.godaddy.com/doc/endpoint/domains): header
// `Authorization: sso-key <key>:<secret>`; the credential is given as `key:secret`. Zones: GET
// /v1/domains (the account's domains; paged with `limit` and `marker`); records: GET
// /v1/domains/{domain}/records; a record set is replaced with PUT /v1/domains/{domain}/records/{type}/{name}
// (an array of `{data, ttl, priority?}`) and removed with DELETE on the same path (204). Names are
// relative (`@`); records are paged with `offset` and `limit`. Errors are `{code, message}`: 401
// UNABLE_TO_AUTHENTICATE, 403 ACCESS_DENIED (GoDaddy opens the API only to accounts with enough
// domains or a qualifying plan, so this is an account restriction, not a bad key), 404
// UNKNOWN_DOMAIN, 429 TOO_MANY_REQUESTS (with `retryAfterSec`), 422 INVALID_BODY. Both lists are read
// until an empty page, since GoDaddy may answer fewer items than the limit asked for.
import { exchange, failureOf, type HttpResult } from './http.ts'
import { absoluteName, relativeName } from './record-based.ts'
import { canonicalName, canonicalValue, ProviderError, unquoteTxt, type DnsProvider, type RRset, type RRsetChange, type Zone } from './types.ts'

export const GODADDY_API = 'https://api.godaddy.com'

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const code = r.body?.code as string | undefined
  const msg = code ? `${code}: ${r.body.message}` : `HTTP ${r.status}`
  const e = failureOf('GoDaddy', r, msg, code === 'ACCESS_DENIED' ? 'plan_restricted' : code === 'UNABLE_TO_AUTHENTICATE' ? 'auth' : code === 'DUPLICATE_RECORD' ? 'conflict' : undefined)
  const after = Number(r.body?.retryAfterSec)
  return e.kind === 'rate_limited' && e.retryAfter === undefined && after >= 0 ? new ProviderError('rate_limited', e.message, r.status, after) : e
}

export class GoDaddyProvider implements DnsProvider {
  readonly id = 'godaddy'
  constructor(
    private readonly keySecret: string,
    private readonly base = GODADDY_API,
  ) {}

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { authorization: `sso-key ${this.keySecret}` }, body)
    const f = failure(r)
    if (f) throw f
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    const out: Zone[] = []
    let marker = ''
    for (;;) {
      const page = (await this.call('GET', `/v1/domains?statuses=ACTIVE&limit=500${marker ? `&marker=${encodeURIComponent(marker)}` : ''}`)) as { domain: string }[]
      out.push(...page.map((d) => ({ id: canonicalName(d.domain), name: canonicalName(d.domain) })))
      if (page.length === 0) return out
      marker = page[page.length - 1]!.domain
    }
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const rows: { type: string; name: string; data: string; ttl: number; priority?: number }[] = []
    for (;;) {
      const page = (await this.call('GET', `/v1/domains/${encodeURIComponent(zone.id)}/records?offset=${rows.length}&limit=500`)) as typeof rows
      if (page.length === 0) break
      rows.push(...page)
    }
    const sets = new Map<string, RRset>()
    for (const r of rows) {
      if (r.type === 'SOA') continue
      const name = absoluteName(r.name, zone.name)
      const host = (v: string) => (v === '@' ? zone.name : canonicalName(v))
      const value =
        r.type === 'MX' ? `${r.priority ?? 0} ${host(r.data)}` : r.type === 'CNAME' || r.type === 'NS' ? host(r.data) : r.type === 'TXT' ? unquoteTxt(r.data) : canonicalValue(r.type, r.data)
      const k = `${name}|${r.type}`
      const s = sets.get(k) ?? { name, type: r.type, ttl: r.ttl, values: [] }
      s.values.push(value)
      sets.set(k, s)
    }
    return [...sets.values()]
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const ordered = [...changes].sort((a, b) => Number(a.values.length > 0) - Number(b.values.length > 0))
    for (const c of ordered) {
      const path = `/v1/domains/${encodeURIComponent(zone.id)}/records/${c.type}/${encodeURIComponent(relativeName(c.name, zone.name))}`
      if (c.values.length === 0) {
        await this.call('DELETE', path)
        continue
      }
      const items = c.values.map((v) => {
        if (c.type === 'MX') {
          const [p, h] = v.split(' ')
          return { data: h, ttl: c.ttl, priority: Number(p) }
        }
        return { data: v, ttl: c.ttl }
      })
      await this.call('PUT', path, items)
    }
  }
}
