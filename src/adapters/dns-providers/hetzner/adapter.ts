// Hetzner DNS on the Cloud API (https://docs.hetzner.cloud/reference/cloud#zones and #zone-rrsets; the
// old dns.hetzner.com API was retired when DNS moved here): `Authorization: Bearer <Cloud API token>`
// with DNS read & write. Zones: GET /zones (paged: `meta.pagination.next_page`); record sets: GET
// /zones/{id}/rrsets (paged the same way), each `{name, type, ttl (null = the zone's default),
// records: [{value, comment}]}`; a new set is POST /zones/{id}/rrsets, an existing one is replaced
// with POST …/rrsets/{name}/{type}/actions/set_records (and …/change_ttl), and removed with DELETE
// …/rrsets/{name}/{type}. Names are relative (`@` the apex); values are zone-file text (hostnames
// with the trailing dot, TXT as quoted strings). Errors are `{"error": {"code", "message"}}`: 401
// unauthorized, 403 forbidden (a read-only token), 404 not_found, 409 uniqueness_error, 429
// rate_limit_exceeded (RateLimit-Reset, a Unix time, waited out when short), 422 invalid_input, 423
// locked (another action on the zone is running) and 409 conflict (changed during the request): both
// temporary, waited out then answered as temporary
// and 423 protected (change protection: a refusal). Every write answers 201 with an Action
// `{id, status: running|success|error, error {code, message}}` (#zone-rrset-actions, #actions): the
// write is done only when GET /actions/{id} says `success`, and an action ending `error` is a
// refusal like any other, so the adapter waits for each one as hcloud-go's Action WaitFor does
// (issue 46: before, an accepted write that then failed was reported as applied). A record's comment
// is written back with it; a set under change protection is read as locked
// (src/adapters/dns-providers/hetzner/card.ts is the card).
import { paginate } from '../paging.ts'
import { waitForOperation } from '../async-writes.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { absoluteName, HOSTNAME_TYPES, hostValue, relativeName } from '../record-based.ts'
import { RRsetBasedProvider } from '../rrset-based.ts'
import { canonicalName, canonicalValue, ProviderError, quoteTxt, readTxt, unquoteTxt, writeTxt, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const HETZNER_API = 'https://api.hetzner.cloud/v1'

/**
 * Hetzner's "busy" answers (#errors): 423 `locked`, another action on the zone still running ("The item
 * you are trying to access is locked (there is already an Action running)"), and 409 `conflict`, "The
 * resource has changed during the request, please retry". Both temporary; 409 `uniqueness_error` is not.
 */
const isLocked = (r: HttpResult) => (r.status === 423 && r.body?.error?.code === 'locked') || (r.status === 409 && r.body?.error?.code === 'conflict')
/** Seconds to wait before sending a write refused as `locked` again: Hetzner sends no hint; its actions take seconds. */
export const LOCKED_WAIT = 2

const failure = (r: HttpResult) =>
  r.status < 300 ? null : failureOf('Hetzner', r, r.body?.error ? `${r.body.error.code}: ${r.body.error.message}` : `HTTP ${r.status}`, isLocked(r) ? 'temporary' : undefined)

interface HzAction {
  id: number
  command?: string
  status: 'running' | 'success' | 'error'
  error?: { code: string; message: string } | null
}

/** Canonical value as Hetzner writes it in a zone file. */
export function toZoneFile(type: string, v: string): string {
  if (HOSTNAME_TYPES.has(type)) return `${v}.`
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return `${p} ${h}.`
  }
  return type === 'TXT' ? quoteTxt(v) : v
}

export function fromZoneFile(type: string, v: string, zone: string): string {
  if (HOSTNAME_TYPES.has(type)) return hostValue(v, zone)
  if (type === 'MX') {
    const [p, h] = v.trim().split(/\s+/)
    return `${Number(p)} ${hostValue(h ?? '', zone)}`
  }
  return type === 'TXT' ? unquoteTxt(v) : canonicalValue(type, v)
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "zone-file text with the trailing dot; a relative one is read under the zone",
  txt: "quoted zone-file strings",
  ttl: "null is the zone default",
  temporary: "429 with RateLimit-Reset waited out when short; 423 locked (an action already running) waited out, then temporary; a write is done when its action ends success",
  sources: {
    apex: "dnscontrol providers/hetznerv2 (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot",
    names: "Hetzner Cloud OpenAPI (test/fixtures/provider-openapi/hetzner.json)",
    hostnames: "Hetzner Cloud OpenAPI rrsets",
    txt: "Hetzner Cloud OpenAPI rrsets",
    ttl: "Hetzner Cloud OpenAPI rrsets",
    temporary: "providers-reality check (RateLimit-Reset); docs.hetzner.cloud #errors (locked), #actions, hcloud-go Action WaitFor",
  },
}

export class HetznerProvider extends RRsetBasedProvider {
  readonly id = 'hetzner'
  readonly conventions = CONVENTIONS
  constructor(
    private readonly token: string,
    private readonly base = HETZNER_API,
  ) {
    super()
  }

  private async call(method: string, path: string, body?: unknown) {
    const r = await exchange(method, this.base + path, { authorization: `Bearer ${this.token}` }, body, { temporary: (x) => (isLocked(x) ? LOCKED_WAIT : undefined) })
    const f = failure(r)
    if (f) {
      // Still locked after the waits: temporary, with a hint (503 provider_temporary, never a refusal).
      if (isLocked(r)) throw new ProviderError('temporary', f.message, r.status, LOCKED_WAIT * 2)
      throw f
    }
    if (method !== 'GET' && r.body?.action) await this.waitFor(r.body.action)
    return r.body
  }

  /**
   * Waits for a write's action to finish (GET /actions/{id}, rate limits waited out by `exchange`):
   * `error` is Hetzner refusing the write after accepting it (src/adapters/dns-providers/async-writes.ts).
   */
  private async waitFor(first: HzAction): Promise<void> {
    await waitForOperation(
      `Hetzner action ${first.id} (${first.command ?? 'write'})`,
      first,
      (a) => {
        if (a.status === 'running') return 'running'
        if (a.status !== 'error') return 'done'
        const code = a.error?.code ?? 'action_failed'
        const locked = code === 'locked'
        return new ProviderError(locked ? 'temporary' : 'write_failed', `Hetzner: action ${a.command ?? a.id} ended in error (${code}: ${a.error?.message ?? 'no message'})`, undefined, locked ? LOCKED_WAIT * 2 : undefined)
      },
      async (a) => (await this.call('GET', `/actions/${a.id}`)).action,
    )
  }

  private async paged(path: string, key: string): Promise<any[]> {
    let page: number | null = 1
    // per_page: at most 50, as the reference says.
    return paginate<any>({ provider: 'Hetzner', what: path, pageSize: 50 }, async () => {
      if (!page) return { items: [] }
      const r = await this.call('GET', `${path}?page=${page}&per_page=50`)
      page = r.meta?.pagination?.next_page ?? null
      return { items: r[key] ?? [], more: page !== null }
    })
  }

  async listZones(): Promise<Zone[]> {
    return (await this.paged('/zones', 'zones')).filter((z) => z.mode !== 'secondary').map((z) => ({ id: String(z.id), name: canonicalName(z.name) }))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    const z = (await this.call('GET', `/zones/${encodeURIComponent(zone.id)}`)).zone
    const rows = await this.paged(`/zones/${encodeURIComponent(zone.id)}/rrsets`, 'rrsets')
    return rows.map((s) => {
      const records = s.records as { value: string; comment?: string | null }[]
      const values = records.map((r) => fromZoneFile(s.type, r.value, zone.name))
      // A record's comment goes back with it whenever Portico writes its set.
      // A TXT value held as several strings keeps them (readTxt): it goes back byte-identical.
      const comments = records.flatMap((r, i) => {
        const own = s.type === 'TXT' ? readTxt(r.value).native : undefined
        return r.comment || own ? [[values[i]!, { ...(r.comment ? { comment: r.comment } : {}), ...own }] as const] : []
      })
      return {
        name: absoluteName(s.name, zone.name),
        type: s.type,
        ttl: s.ttl ?? z?.ttl ?? 3600,
        values,
        ...(comments.length ? { native: Object.fromEntries(comments) } : {}),
        ...(s.protection?.change ? { locked: 'Hetzner change protection on the record set' } : {}),
      }
    })
  }

  private setPath(zone: Zone, name: string, type: string) {
    return `/zones/${encodeURIComponent(zone.id)}/rrsets/${encodeURIComponent(relativeName(name, zone.name))}/${type}`
  }

  protected async putSet(zone: Zone, c: RRsetChange, cur: RRset | undefined): Promise<void> {
    const comment = (v: string) => ((c.native?.[v] ?? cur?.native?.[v]) as { comment?: string } | undefined)?.comment
    const records = c.values.map((v) => ({ value: c.type === 'TXT' ? writeTxt(v, { ...cur?.native, ...c.native }) : toZoneFile(c.type, v), ...(comment(v) ? { comment: comment(v) } : {}) }))
    if (!cur) {
      await this.call('POST', `/zones/${encodeURIComponent(zone.id)}/rrsets`, { name: relativeName(c.name, zone.name), type: c.type, ttl: c.ttl, records })
      return
    }
    await this.call('POST', `${this.setPath(zone, c.name, c.type)}/actions/set_records`, { records })
    if (cur.ttl !== c.ttl) await this.call('POST', `${this.setPath(zone, c.name, c.type)}/actions/change_ttl`, { ttl: c.ttl })
  }

  protected async deleteSet(zone: Zone, cur: RRset): Promise<void> {
    await this.call('DELETE', this.setPath(zone, cur.name, cur.type))
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'hetzner',
  defaultBase: HETZNER_API,
  make: (s, o) => new HetznerProvider(s, o.base),
  token_url: 'https://console.hetzner.cloud/projects',
  token_scopes: ['Read & Write (project API token)'],
  credential: 'Project API token',
}
