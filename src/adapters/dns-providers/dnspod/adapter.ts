// Tencent Cloud DNSPod, API 3.0 (https://www.tencentcloud.com/document/api/1157/51290 and its
// neighbouring pages DescribeDomainList, CreateRecord, DeleteRecord, "Signature v3" and "Common Error
// Codes"). The credential is `SecretId:SecretKey`. Every call is a POST of a JSON body to `/` with
// `X-TC-Action`, `X-TC-Version: 2021-03-23` and `X-TC-Timestamp`, signed TC3-HMAC-SHA256 over the
// canonical request (method, path, empty query, the `content-type` and `host` headers, SHA-256 of the
// body) with a key derived `TC3<secret>` → date → `dnspod` → `tc3_request`. Answers are HTTP 200 with
// `{Response: {…, RequestId}}`; a failure is `{Response: {Error: {Code, Message}}}`: `AuthFailure.*`
// (refused credential or signature), `RequestLimitExceeded` (no Retry-After documented),
// `InvalidParameterValue.DomainNotExists` (unknown zone). An empty list is an error too:
// `ResourceNotFound.NoDataOfDomain` (no zones), `ResourceNotFound.NoDataOfRecord` (no records). Lists
// page by `Offset`/`Limit`. Record names are relative (`@` the apex); hostnames in `Value` end with a
// dot; MX priority is its own field. A record replaced by one of the same name and type is changed in
// place with ModifyRecord; the rest of a change is DeleteRecord and CreateRecord. The international endpoint is dnspod.intl.tencentcloudapi.com (set it with
// DNS_PROVIDER_API_BASES); the default is the mainland one.
// Do no harm (src/adapters/dns-providers/dnspod/card.ts): the free plan's TTL floor is 600
// (LimitExceeded.RecordTtlLimit below it), so the planner writes at least that. RequestLimitExceeded
// (HTTP 200, no wait given) is called again after 1, 2, 4, 8 s. A set holding a record on a line
// other than the default one (默认) or a weighted one is read as locked, so the planner never changes
// it; URL forwards (显性URL, 隐性URL) are written back as they are, and a record's Status and Remark
// are restored with it (CreateRecord takes both).
import { coexistOrder } from '../coexist.ts'
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { createHash, createHmac } from 'node:crypto'
import { backoffWhileThrottled, exchange, failureOf, type HttpResult } from '../http.ts'
import { pairUpdates } from '../modify-pairs.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type NewRecord, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type ProviderErrorKind, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

export const DNSPOD_API = 'https://dnspod.tencentcloudapi.com'
const VERSION = '2021-03-23'
const PAGE = 100

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')
const hmac = (key: string | Buffer, s: string) => createHmac('sha256', key).update(s).digest()

/** The TC3-HMAC-SHA256 signature of one JSON POST to `/`. */
export function tc3Signature(secret: string, host: string, timestamp: number, body: string, service = 'dnspod'): { scope: string; signedHeaders: string; signature: string } {
  const date = new Date(timestamp * 1000).toISOString().slice(0, 10)
  const signedHeaders = 'content-type;host'
  const canonical = ['POST', '/', '', `content-type:application/json; charset=utf-8\nhost:${host}\n`, signedHeaders, sha256(body)].join('\n')
  const scope = `${date}/${service}/tc3_request`
  const toSign = ['TC3-HMAC-SHA256', String(timestamp), scope, sha256(canonical)].join('\n')
  const key = hmac(hmac(hmac('TC3' + secret, date), service), 'tc3_request')
  return { scope, signedHeaders, signature: createHmac('sha256', key).update(toSign).digest('hex') }
}

function kindOf(code: string): ProviderErrorKind {
  if (code.startsWith('AuthFailure')) return 'auth'
  if (code.startsWith('RequestLimitExceeded')) return 'rate_limited'
  if (/DomainNotExist|DomainIdInvalid|NoPermissionToOperateDomain/.test(code)) return 'zone_not_found'
  if (code.startsWith('UnauthorizedOperation') || code.startsWith('OperationDenied')) return 'permission'
  if (code === 'InvalidParameter.DomainRecordExist') return 'conflict'
  return 'write_failed'
}

const DEFAULT_LINES = new Set(['默认', 'default', 'Default'])

/** Why Portico cannot write a record back as it is (its set is then locked), or undefined. */
function lockOf(r: { Line?: string; LineId?: string; Weight?: number | null }): string | undefined {
  if ((r.Line && !DEFAULT_LINES.has(r.Line)) || (r.LineId !== undefined && r.LineId !== '0' && !DEFAULT_LINES.has(r.Line ?? ''))) return `a DNSPod record on the line "${r.Line}"`
  if (r.Weight !== undefined && r.Weight !== null) return 'a DNSPod weighted record'
  return undefined
}

/** A record's own attributes CreateRecord takes back (a paused record, a remark). */
function nativeOf(r: { Status?: string; Remark?: string }): Record<string, string> | undefined {
  const n: Record<string, string> = {}
  if (r.Status && r.Status !== 'ENABLE') n.Status = r.Status
  if (r.Remark) n.Remark = r.Remark
  return Object.keys(n).length ? n : undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "with the trailing dot",
  txt: "bare text",
  ttl: "at least 600 (free plan)",
  temporary: "RequestLimitExceeded retried after 1, 2, 4, 8 s",
  sources: {
    apex: "catalogue: no apex record offered",
    names: "the reference card (src/adapters/dns-providers/dnspod/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/dnspod/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/dnspod/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/dnspod/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/dnspod/card.ts)",
  },
}

export class DnspodProvider extends RecordBasedProvider {
  readonly id = 'dnspod'
  readonly conventions = CONVENTIONS
  readonly minTtl = 600
  private readonly secretId: string
  private readonly secretKey: string
  constructor(
    credential: string,
    private readonly base = DNSPOD_API,
  ) {
    super()
    ;[this.secretId, this.secretKey] = credentialParts(credential, [{ name: 'SecretId', aliases: ['secret_id', 'TENCENTCLOUD_SECRET_ID'] }, { name: 'SecretKey', aliases: ['secret_key', 'TENCENTCLOUD_SECRET_KEY'] }]) as [string, string]
  }

  /** One action; null where DNSPod answers `empty` (its "no data" code for an empty list). */
  private async call(action: string, params: Record<string, unknown>, empty?: string): Promise<any> {
    // Throttled: signed afresh (the timestamp is part of the signature) and sent again after a backoff.
    const r = await backoffWhileThrottled(() => this.send(action, params), (x) => String(x.body?.Response?.Error?.Code ?? '').startsWith('RequestLimitExceeded'))
    const err = r.body?.Response?.Error as { Code: string; Message: string } | undefined
    if (err && err.Code === empty) return null
    if (r.status >= 300 || err || !r.body?.Response) throw failureOf('DNSPod', r, err ? `${err.Code}: ${err.Message}` : `HTTP ${r.status}`, err ? kindOf(err.Code) : undefined)
    return r.body.Response
  }

  private send(action: string, params: Record<string, unknown>): Promise<HttpResult> {
    const url = new URL(this.base + '/')
    const body = JSON.stringify(params)
    const ts = Math.floor(Date.now() / 1000)
    const s = tc3Signature(this.secretKey, url.host, ts, body)
    return exchange('POST', url.toString(), {
      'content-type': 'application/json; charset=utf-8',
      'x-tc-action': action,
      'x-tc-version': VERSION,
      'x-tc-timestamp': String(ts),
      authorization: `TC3-HMAC-SHA256 Credential=${this.secretId}/${s.scope}, SignedHeaders=${s.signedHeaders}, Signature=${s.signature}`,
    }, body, { once: true })
  }

  /** Every item of a list read by Offset/Limit until the total is reached. */
  private async all(action: string, empty: string, params: Record<string, unknown>, pick: (r: any) => { items: any[]; total: number }): Promise<any[]> {
    return paginate<any>({ provider: 'DNSPod', what: action, pageSize: PAGE }, async ({ offset }) => {
      const r = await this.call(action, { ...params, Offset: offset, Limit: PAGE }, empty)
      if (!r) return { items: [] }
      const { items, total } = pick(r)
      return { items, more: offset + items.length < total }
    })
  }

  async listZones(): Promise<Zone[]> {
    const rows = await this.all('DescribeDomainList', 'ResourceNotFound.NoDataOfDomain', {}, (r) => ({ items: r.DomainList ?? [], total: Number(r.DomainCountInfo?.AllTotal ?? 0) }))
    return rows.map((d: { Name: string }) => ({ id: canonicalName(d.Name), name: canonicalName(d.Name) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const rows = await this.all('DescribeRecordList', 'ResourceNotFound.NoDataOfRecord', { Domain: zone.id }, (r) => ({ items: r.RecordList ?? [], total: Number(r.RecordCountInfo?.TotalCount ?? 0) }))
    return rows
      // DNSPod keeps the apex NS records itself (DefaultNS).
      .filter((r: any) => !r.DefaultNS && !(r.Type === 'NS' && r.Name === '@'))
      .map((r: any) => {
        const locked = lockOf(r)
        const native = nativeOf(r)
        return {
          id: String(r.RecordId),
          name: absoluteName(r.Name, zone.name),
          type: r.Type,
          ttl: Number(r.TTL),
          value: fromFields(r.Type, r.Value, r.MX, zone.name, unquoteTxt, true),
          ...(native ? { native } : {}),
          ...(locked ? { locked } : {}),
        }
      })
  }

  /** The wire fields of a record (RecordLine 默认 is the default line every plan has). */
  private fields(zone: Zone, name: string, type: string, ttl: number, value: string) {
    const f = toFields(type, value, { dot: true })
    return { Domain: zone.id, SubDomain: relativeName(name, zone.name), RecordType: type, RecordLine: '默认', Value: f.data, TTL: ttl, ...(f.priority !== undefined ? { MX: f.priority } : {}) }
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    await this.call('CreateRecord', { ...this.fields(zone, name, type, ttl, value), ...(native as object | undefined) })
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    const plan = pairUpdates(deletes, creates)
    for (const u of plan.updates) await this.call('ModifyRecord', { ...this.fields(zone, u.to.name, u.to.type, u.to.ttl, u.to.value), ...(u.to.native as object | undefined), RecordId: Number(u.item.id) })
    // What may stand beside the records it replaces is created before they go (coexist.ts).
    for (const s of coexistOrder(plan.deletes, plan.creates)) {
      if ('del' in s) await this.deleteItem(zone, s.del)
      else await this.createItem(zone, s.put.name, s.put.type, s.put.ttl, s.put.value, s.put.native)
    }
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DeleteRecord', { Domain: zone.id, RecordId: Number(item.id) })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'dnspod',
  defaultBase: DNSPOD_API,
  make: (s, o) => new DnspodProvider(s, o.base),
  token_url: 'https://console.cloud.tencent.com/cam/capi',
  token_scopes: ['QcloudDNSPodFullAccess'],
  credential: 'API key pair (SecretId:SecretKey)',
}
