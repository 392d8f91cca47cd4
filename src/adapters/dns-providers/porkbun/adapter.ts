// Porkbun API v3 (https://porkbun.com/api/json/v3/documentation, OpenAPI at /api/json/v3/spec): every
// call is a POST of JSON carrying `apikey` and `secretapikey` (the credential is `apikey:secretapikey`).
// Zones: /domain/listAll `{start}` (up to 1000 a call; the next call starts after the last one seen,
// and an empty list ends it); records: /dns/retrieve/{domain} (the whole zone: `{records: [{id, name,
// type, content, ttl, prio}]}`, names fully qualified, numbers as strings); /dns/create/{domain}
// `{name, type, content, ttl, prio}` with the name relative (empty for the apex); /dns/delete/{domain}/{id}.
// TXT content is the text itself; MX keeps its priority in `prio`; the lowest TTL is 600. Errors are
// `{status: "ERROR", message}`: "Invalid API key." is a refused credential, a domain "not opted in to
// API access" a missing permission (the person switches API access on per domain), "Invalid domain." a
// zone the account does not hold. Porkbun's rate limit (about one request a second per key) is an
// HTTP 503 page from its front end with no wait signalled: it is waited out with 1, 2, 4 s and then
// reported as a rate limit, never as an unreachable API. Do no harm (card:
// src/adapters/dns-providers/porkbun/card.ts): a record's `notes` go back with it when it is restored;
// SRV, TLSA, HTTPS and SVCB rows and the records Porkbun keeps for URL forwarding and parking
// (targets under porkbun.com) are read as locked sets; an A, AAAA or CNAME beside an ALIAS is
// refused before anything is written.
import { credentialParts } from '../credentials.ts'
import { exchange, failureOf, reasonOf } from '../http.ts'
import { refuseBesideFlattened } from '../flattened.ts'
import { paginate } from '../paging.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, type ProviderErrorKind, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const PORKBUN_API = 'https://api.porkbun.com/api/json/v3'

const TYPES = new Set(['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'ALIAS'])
/** Waits for Porkbun's unsignalled 503 (its rate limit), in seconds, by attempt. */
const BACKOFF = [1, 2, 4]

function kindOf(message: string | undefined): ProviderErrorKind | undefined {
  const m = (message ?? '').toLowerCase()
  if (m.includes('invalid api key') || m.includes('authentication')) return 'auth'
  if (m.includes('opted in to api access') || m.includes('not authorized')) return 'permission'
  if (m.includes('invalid domain') || m.includes('domain not found')) return 'zone_not_found'
  return undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: "ALIAS",
  names: "absolute when read; relative (empty the apex) when written",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "at least 600",
  temporary: "its 503 rate limit backed off 1, 2, 4 s, then reported as a rate limit",
  sources: {
    apex: "dnscontrol providers/porkbun (StackExchange/dnscontrol@7a079bc): CanUseAlias Can",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/porkbun/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/porkbun/)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/porkbun/)",
    ttl: "the reference card (src/adapters/dns-providers/porkbun/card.ts)",
    temporary: "providers-reality check (503 rate limit)",
  },
}

export class PorkbunProvider extends RecordBasedProvider {
  readonly id = 'porkbun'
  readonly conventions = CONVENTIONS
  readonly minTtl = 600
  private readonly auth: { apikey: string; secretapikey: string }
  constructor(
    credential: string,
    private readonly base = PORKBUN_API,
  ) {
    super()
    const [apikey, secretapikey] = credentialParts(credential, [{ name: 'apikey', aliases: ['api_key', 'PORKBUN_API_KEY'] }, { name: 'secretapikey', aliases: ['secret_api_key', 'secret', 'PORKBUN_SECRET_API_KEY'] }])
    this.auth = { apikey: apikey!, secretapikey: secretapikey! }
  }

  private async post(path: string, body: Record<string, unknown> = {}): Promise<any> {
    const r = await exchange('POST', this.base + path, {}, { ...this.auth, ...body }, { temporary: (res, attempt) => (res.status === 503 ? BACKOFF[attempt - 1] : undefined) })
    if (r.status >= 300 || r.body?.status === 'ERROR') {
      const kind = r.status === 503 || r.status === 429 ? 'rate_limited' : kindOf(r.body?.message)
      // The 503 is an HTML page from Porkbun's front end: its status says all there is.
      const reason = r.status === 503 ? 'HTTP 503 Service Temporarily Unavailable: Porkbun allows about one request a second' : reasonOf(r, (b) => b?.message)
      throw failureOf('Porkbun', r, reason.split(this.auth.secretapikey).join('…'), kind)
    }
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    // listAll answers up to 1000 domains from `start`; the reference says to read on until an empty answer.
    const rows = await paginate<{ domain: string }>({ provider: 'Porkbun', what: 'domains' }, async ({ offset }) => ({
      items: ((await this.post('/domain/listAll', { start: String(offset) })).domains ?? []) as { domain: string }[],
    }))
    return rows.map((d) => ({ id: canonicalName(d.domain), name: canonicalName(d.domain) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.post(`/dns/retrieve/${encodeURIComponent(zone.id)}`)).records as any[]).map((r) => {
      const type = String(r.type)
      const content = String(r.content ?? '')
      const notes = typeof r.notes === 'string' && r.notes !== '' ? r.notes : undefined
      const value = TYPES.has(type) ? fromFields(type, content, Number(r.prio ?? 0), zone.name, (t) => t, true) : `${Number(r.prio ?? 0)} ${content}`
      const locked = !TYPES.has(type)
        ? `a Porkbun ${type} record (its fields apart)`
        : (type === 'ALIAS' || type === 'CNAME') && /(^|\.)porkbun\.com\.?$/i.test(content)
          ? 'a record Porkbun keeps for URL forwarding or its parking page'
          : undefined
      return { id: String(r.id), name: absoluteName(r.name, zone.name), type, ttl: Number(r.ttl), value, ...(notes ? { native: { notes } } : {}), ...(locked ? { locked } : {}) }
    })
  }

  protected override diff(items: ProviderRecord[], changes: Parameters<RecordBasedProvider['diff']>[1]) {
    refuseBesideFlattened('Porkbun', items.map((i) => ({ name: i.name, type: i.type, values: [i.value] })), changes, ['ALIAS'])
    return super.diff(items, changes)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const f = toFields(type, value)
    const notes = (native as { notes?: string } | undefined)?.notes
    await this.post(`/dns/create/${encodeURIComponent(zone.id)}`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, content: f.data, ttl: String(ttl), ...(f.priority !== undefined ? { prio: String(f.priority) } : {}), ...(notes ? { notes } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.post(`/dns/delete/${encodeURIComponent(zone.id)}/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'porkbun',
  defaultBase: PORKBUN_API,
  make: (s, o) => new PorkbunProvider(s, o.base),
  token_url: 'https://porkbun.com/account/api',
  token_scopes: ['API key and secret', 'API access switched on for the domain'],
  credential: 'API key and secret (key:secret)',
}
