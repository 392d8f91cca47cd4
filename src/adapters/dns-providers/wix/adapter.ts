// Wix Domain DNS API (https://dev.wix.com/docs/rest/account-level/domains/domain-dns/introduction;
// src/adapters/dns-providers/wix/card.ts is the card). Account-level only: an API key created at
// manage.wix.com/account/api-keys with "Manage Domains", sent as `Authorization: <key>` (no scheme),
// and the account's id in `wix-account-id`; the credential is given as `account_id:api_key` (either
// order: the account id is a UUID), JSON, or NAME=value lines. Zones: the account's connected domains
// (GET /domains/v1/connected-domains, cursor-paged; a domain connected by pointing has no zone at Wix
// and is passed over) and its registered domains (GET /domains/v1/registered-domains). A zone is read
// whole with GET /domains/v1/dns-zones/{domain} → `{dnsZone: {domainName, records: [{type, hostName,
// values, ttl}], dnssecEnabled}}`: one record object per host name and type holds all its values.
// Writes are one PATCH on the same path with `deletions` and `additions`: a set is replaced by deleting
// the record object as it stands and adding the new one in the same call (Wix refuses a second object
// of one host name and type). Host names are absolute; values as Wix shows them (MX `10 host`,
// hostnames without the trailing dot, TXT as its text). Errors are Wix's standard `{message, details:
// {applicationError: {code, description}}}`: 401 a key Wix does not know, 404 USER_ID_NOT_FOUND /
// TARGET_ACCOUNT_NOT_FOUND (the key or the account id is wrong: a credential problem, not a missing
// zone), 404 DNS_ZONE_NOT_FOUND, 403 a key without Manage Domains, 428 FAILED_PRECONDITION
// (DOMAIN_NOT_PERMITTED: the domain is not this account's; other codes: a record Wix refuses), 429
// with no wait signalled (backed off 1, 2, 4 s, then reported).
import { credentialParts } from '../credentials.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { paginate } from '../paging.ts'
import { absoluteName } from '../record-based.ts'
import { acrossScopes, canonicalName, canonicalValue, ProviderError, unquoteTxt, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const WIX_API = 'https://www.wixapis.com'
const PAGE = 100

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface WixRecord {
  type: string
  hostName: string
  values: string[]
  ttl?: number
}

const codeOf = (r: HttpResult): string | undefined => r.body?.details?.applicationError?.code ?? r.body?.details?.validationError?.fieldViolations?.[0]?.ruleName

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const code = codeOf(r)
  const msg = `${code ? `${code}: ` : ''}${r.body?.message ?? r.body?.details?.applicationError?.description ?? `HTTP ${r.status}`}`
  const kind: ProviderErrorKind | undefined =
    code === 'USER_ID_NOT_FOUND' || code === 'TARGET_ACCOUNT_NOT_FOUND'
      ? 'auth'
      : code === 'DNS_ZONE_NOT_FOUND' || code === 'DOMAIN_NOT_PERMITTED'
        ? 'zone_not_found'
        : code === 'DOMAIN_DUPLICATE_RECORDS'
          ? 'conflict'
          : undefined
  return failureOf('Wix', r, msg, kind)
}

/** Wix signals no wait with its 429: back off 1, 2, 4 s (RETRY_LIMITS bound the total). */
export function wixTemporary(r: HttpResult, attempt: number): number | undefined {
  if (r.status !== 429) return undefined
  const after = Number(r.headers.get('retry-after'))
  return Number.isFinite(after) && after > 0 ? after : Math.min(2 ** (attempt - 1), 4)
}

function toValue(type: string, v: string): string {
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return `${p} ${h}`
  }
  return v
}

function fromValue(type: string, v: string): string {
  if (type === 'CNAME' || type === 'NS') return canonicalName(v)
  if (type === 'MX') {
    const [p, h] = v.trim().split(/\s+/)
    return `${Number(p)} ${canonicalName(h ?? '')}`
  }
  if (type === 'TXT' || type === 'SPF') return unquoteTxt(v)
  return canonicalValue(type, v)
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute (`hostName`)",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 without a wait backed off 1, 2, 4 s, then reported",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "the reference card (src/adapters/dns-providers/wix/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/wix/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/wix/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/wix/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/wix/card.ts)",
  },
}

export class WixProvider implements DnsProvider {
  readonly id = 'wix'
  readonly conventions = CONVENTIONS
  private readonly headers: Record<string, string>

  constructor(
    credential: string,
    private readonly base = WIX_API,
  ) {
    let [account, key] = credentialParts(credential, [
      { name: 'account_id', aliases: ['accountId', 'wix-account-id', 'wix_account_id', 'WIX_ACCOUNT_ID', 'account'] },
      { name: 'api_key', aliases: ['apiKey', 'key', 'WIX_API_KEY', 'authorization', 'token'] },
    ]) as [string, string]
    // Either order: the account id is the UUID.
    if (!UUID.test(account) && UUID.test(key)) [account, key] = [key, account]
    this.headers = { authorization: key, 'wix-account-id': account }
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const r = await exchange(method, this.base + path, this.headers, body, { temporary: wixTemporary })
    const f = failure(r)
    if (f) throw f
    return r.body
  }

  /** A cursor-paged list: `paging.limit` and `paging.cursor`, followed while `pagingMetadata.hasNext`. */
  private async paged(path: string, key: string): Promise<any[]> {
    let cursor: string | undefined
    return paginate<any>({ provider: 'Wix', what: path, pageSize: PAGE }, async ({ index }) => {
      if (index > 1 && !cursor) return { items: [] }
      const r = await this.call('GET', `${path}?paging.limit=${PAGE}${cursor ? `&paging.cursor=${encodeURIComponent(cursor)}` : ''}`)
      const meta = r?.pagingMetadata
      cursor = meta?.cursors?.next ?? undefined
      return { items: Array.isArray(r?.[key]) ? r[key] : [], more: meta?.hasNext === true && !!cursor }
    })
  }

  async listZones(): Promise<Zone[]> {
    // A key may reach one list and not the other (its permissions): what it reaches is the answer.
    const zones = await acrossScopes([
      async () => (await this.paged('/domains/v1/connected-domains', 'connectedDomains')).filter((d) => d.connectionType !== 'POINTING').map((d) => canonicalName(d.domain ?? d.id)),
      async () => (await this.paged('/domains/v1/registered-domains', 'registeredDomains')).map((d) => canonicalName(d.domain ?? d.id)),
    ].map((list) => async () => (await list()).map((name) => ({ id: name, name }))))
    return [...new Map(zones.map((z) => [z.name, z])).values()]
  }

  private async zone(zone: Zone): Promise<WixRecord[]> {
    const r = await this.call('GET', `/domains/v1/dns-zones/${encodeURIComponent(zone.id)}`)
    const records = r?.dnsZone?.records
    return Array.isArray(records) ? records : []
  }

  private toSet(r: WixRecord, zone: Zone): RRset {
    const type = String(r.type).toUpperCase()
    return { name: absoluteName(r.hostName, zone.name), type, ttl: r.ttl ?? 3600, values: r.values.map((v) => fromValue(type, v)) }
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.zone(zone)).map((r) => this.toSet(r, zone))
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    const records = await this.zone(zone)
    const deletions: WixRecord[] = []
    const additions: WixRecord[] = []
    for (const c of changes) {
      // The record objects of this name and type exactly as Wix holds them (deleted as they are).
      const cur = records.filter((r) => absoluteName(r.hostName, zone.name) === c.name && String(r.type).toUpperCase() === c.type)
      if ((c.type === 'SOA' || (c.type === 'NS' && c.name === zone.name)) && cur.length) {
        throw new ProviderError('unrepresentable', `Wix keeps the zone's own ${c.type} record; Portico does not change it; nothing was written`)
      }
      deletions.push(...cur)
      if (c.values.length > 0) additions.push({ type: c.type, hostName: c.name, values: c.values.map((v) => toValue(c.type, v)), ttl: c.ttl })
    }
    if (deletions.length === 0 && additions.length === 0) return
    await this.call('PATCH', `/domains/v1/dns-zones/${encodeURIComponent(zone.id)}`, { ...(additions.length ? { additions } : {}), ...(deletions.length ? { deletions } : {}) })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'wix',
  defaultBase: WIX_API,
  make: (s, o) => new WixProvider(s, o.base),
  token_url: 'https://manage.wix.com/account/api-keys',
  token_scopes: ['Account API key with All account permissions → Manage Domains', 'The account ID shown beside your API keys'],
  credential: 'Account ID and API key (account_id:api_key)',
}
