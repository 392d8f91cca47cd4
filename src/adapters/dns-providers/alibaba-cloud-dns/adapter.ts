// Alibaba Cloud DNS, Alidns 2015-01-09 RPC API (https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-dir
// — DescribeDomains, DescribeDomainRecords, AddDomainRecord, UpdateDomainRecord, DeleteDomainRecord; signing:
// https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism, signature version 1.0).
// The credential is `AccessKeyId:AccessKeySecret`. Every call is a GET of `/` whose query carries
// `Action`, `Version`, `Format=JSON`, `AccessKeyId`, `SignatureMethod=HMAC-SHA1`,
// `SignatureVersion=1.0`, `SignatureNonce`, `Timestamp` (ISO 8601 UTC) and the action's parameters,
// plus `Signature`: base64 HMAC-SHA1, keyed `<secret>&`, of `GET&%2F&<percent-encoded canonical
// query>` (parameters sorted by name, RFC 3986 encoding: space %20, `*` %2A, `~` kept). Errors are
// `{Code, Message, RequestId}`: InvalidAccessKeyId.NotFound / SignatureDoesNotMatch /
// IncompleteSignature (refused credential), Throttling.User / Throttling (rate limit, no Retry-After
// documented), InvalidDomainName.NoExist / DomainRecordNotBelongToUser (unknown zone). Lists page by
// PageNumber/PageSize with TotalCount. Record names (`RR`) are relative, `@` the apex; hostnames in
// `Value` have no trailing dot; MX priority is `Priority`. A record replaced by one of the same name
// and type is changed in place with UpdateDomainRecord; the rest is DeleteDomainRecord and AddDomainRecord.
// The signing page marks this scheme ("V2") discontinued in favour of ACS3-HMAC-SHA256; only `call`
// and `rpcSignature` would change to move.
// Do no harm (src/adapters/dns-providers/alibaba-cloud-dns/card.ts): the free edition's TTL floor is 600 (QuotaExceeded.TTL
// below it), so the planner writes at least that. Throttling.User / Throttling (HTTP 400, no wait
// given) is called again after 1, 2, 4, 8 s. A set holding a record Portico could not write back as
// it is (one answering on an ISP line other than `default`, a weighted one, a paused one, one locked
// at Alibaba) is read as locked, so the planner never changes it; REDIRECT_URL and FORWARD_URL records
// are read and written back as they are, and a record's Remark is restored with it.
import { coexistOrder } from '../coexist.ts'
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { createHmac, randomUUID } from 'node:crypto'
import { backoffWhileThrottled, exchange, failureOf } from '../http.ts'
import { pairUpdates } from '../modify-pairs.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type NewRecord, type ProviderRecord } from '../record-based.ts'
import { canonicalName, unquoteTxt, type ProviderErrorKind, type Zone, type HostConventions } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'

/** Why Portico cannot write a record back as it is (its set is then locked), or undefined. */
function lockOf(r: { Line?: string; Weight?: number; Status?: string; Locked?: boolean }): string | undefined {
  if (r.Line && r.Line !== 'default') return `an Alibaba Cloud DNS record on the ISP line "${r.Line}"`
  if (r.Weight !== undefined && r.Weight !== null && Number(r.Weight) !== 1) return 'an Alibaba Cloud DNS weighted record'
  if (r.Status && r.Status !== 'ENABLE') return 'a paused Alibaba Cloud DNS record'
  if (r.Locked === true) return 'an Alibaba Cloud DNS record locked against changes'
  return undefined
}

export const ALIDNS_API = 'https://alidns.aliyuncs.com'
const PAGE = 100

/** RFC 3986 percent-encoding, as the RPC signature wants it. */
const enc = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())

/** The canonical query of a GET and its signature (version 1.0, HMAC-SHA1 keyed `<secret>&`). */
export function rpcSignature(secret: string, q: Record<string, string>): { canonical: string; signature: string } {
  const canonical = Object.keys(q)
    .sort()
    .map((k) => `${enc(k)}=${enc(q[k]!)}`)
    .join('&')
  return { canonical, signature: createHmac('sha1', secret + '&').update(`GET&${enc('/')}&${enc(canonical)}`).digest('base64') }
}

function kindOf(code: string): ProviderErrorKind | undefined {
  if (/^(InvalidAccessKeyId|SignatureDoesNotMatch|IncompleteSignature|InvalidTimeStamp|SignatureNonceUsed)/.test(code)) return 'auth'
  if (code.startsWith('Throttling')) return 'rate_limited'
  if (/^(InvalidDomainName\.NoExist|DomainRecordNotBelongToUser|Forbidden\.DomainNotBelong)/.test(code)) return 'zone_not_found'
  if (code.startsWith('Forbidden')) return 'permission'
  if (code === 'DomainRecordDuplicate' || code === 'DomainRecordConflict') return 'conflict'
  return undefined
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, `@` the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "at least 600 (free edition)",
  temporary: "Throttling.User retried after 1, 2, 4, 8 s",
  sources: {
    apex: "dnscontrol providers/alidns (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot",
    names: "the reference card (src/adapters/dns-providers/alibaba-cloud-dns/card.ts)",
    hostnames: "the reference card (src/adapters/dns-providers/alibaba-cloud-dns/card.ts)",
    txt: "the reference card (src/adapters/dns-providers/alibaba-cloud-dns/card.ts)",
    ttl: "the reference card (src/adapters/dns-providers/alibaba-cloud-dns/card.ts)",
    temporary: "the reference card (src/adapters/dns-providers/alibaba-cloud-dns/card.ts)",
  },
}

export class AlidnsProvider extends RecordBasedProvider {
  readonly id = 'alibaba-cloud-dns'
  readonly conventions = CONVENTIONS
  readonly minTtl = 600
  private readonly keyId: string
  private readonly secret: string
  constructor(
    credential: string,
    private readonly base = ALIDNS_API,
  ) {
    super()
    ;[this.keyId, this.secret] = credentialParts(credential, [{ name: 'AccessKeyId', aliases: ['access_key_id', 'ALICLOUD_ACCESS_KEY', 'ALIBABA_CLOUD_ACCESS_KEY_ID', 'AccessKey ID'] }, { name: 'AccessKeySecret', aliases: ['access_key_secret', 'ALICLOUD_SECRET_KEY', 'ALIBABA_CLOUD_ACCESS_KEY_SECRET', 'AccessKey Secret'] }]) as [string, string]
  }

  private async call(action: string, params: Record<string, string | number>): Promise<any> {
    // A throttled call is signed again with a fresh nonce and timestamp (a nonce is good once).
    const r = await backoffWhileThrottled(() => this.send(action, params), (x) => /^Throttling/.test(String(x.body?.Code ?? '')))
    if (r.status >= 300 || r.body?.Code) {
      const code = String(r.body?.Code ?? '')
      throw failureOf('Alibaba Cloud DNS', r, code ? `${code}: ${r.body?.Message ?? ''}` : `HTTP ${r.status}`, kindOf(code))
    }
    return r.body
  }

  private async send(action: string, params: Record<string, string | number>) {
    const q: Record<string, string> = {
      Action: action,
      Version: '2015-01-09',
      Format: 'JSON',
      AccessKeyId: this.keyId,
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      SignatureNonce: randomUUID(),
      Timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }
    for (const [k, v] of Object.entries(params)) q[k] = String(v)
    const { canonical, signature } = rpcSignature(this.secret, q)
    return exchange('GET', `${this.base}/?${canonical}&Signature=${enc(signature)}`, {}, undefined, { once: true })
  }

  /** Every item of a list read by PageNumber/PageSize until TotalCount is reached. */
  private async all(action: string, params: Record<string, string>, pick: (r: any) => any[]): Promise<any[]> {
    return paginate<any>({ provider: 'Alibaba Cloud DNS', what: action, pageSize: PAGE }, async ({ index, offset }) => {
      const r = await this.call(action, { ...params, PageNumber: index, PageSize: PAGE })
      const items = pick(r) ?? []
      return { items, more: offset + items.length < Number(r.TotalCount ?? 0) }
    })
  }

  async listZones(): Promise<Zone[]> {
    const rows = await this.all('DescribeDomains', {}, (r) => r.Domains?.Domain)
    return rows.map((d: { DomainName: string }) => ({ id: canonicalName(d.DomainName), name: canonicalName(d.DomainName) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const rows = await this.all('DescribeDomainRecords', { DomainName: zone.id }, (r) => r.DomainRecords?.Record)
    return rows
      // Alibaba Cloud DNS keeps the apex NS records itself.
      .filter((r: any) => !(r.Type === 'NS' && r.RR === '@'))
      .map((r: any) => {
        const locked = lockOf(r)
        return {
          id: String(r.RecordId),
          name: absoluteName(r.RR, zone.name),
          type: r.Type,
          ttl: Number(r.TTL),
          value: fromFields(r.Type, r.Value, r.Priority, zone.name, unquoteTxt, true),
          ...(r.Remark ? { native: { Remark: String(r.Remark) } } : {}),
          ...(locked ? { locked } : {}),
        }
      })
  }

  private fields(zone: Zone, name: string, type: string, ttl: number, value: string) {
    const f = toFields(type, value)
    return { RR: relativeName(name, zone.name), Type: type, Value: f.data, TTL: ttl, ...(f.priority !== undefined ? { Priority: f.priority } : {}) }
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const r = await this.call('AddDomainRecord', { DomainName: zone.id, ...this.fields(zone, name, type, ttl, value) })
    // A restored record gets its remark back (AddDomainRecord takes none).
    const remark = (native as { Remark?: string } | undefined)?.Remark
    if (remark) await this.call('UpdateDomainRecordRemark', { RecordId: String(r.RecordId), Remark: remark })
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    const plan = pairUpdates(deletes, creates)
    for (const u of plan.updates) await this.call('UpdateDomainRecord', { RecordId: u.item.id, ...this.fields(zone, u.to.name, u.to.type, u.to.ttl, u.to.value) })
    // What may stand beside the records it replaces is created before they go (coexist.ts).
    for (const s of coexistOrder(plan.deletes, plan.creates)) {
      if ('del' in s) await this.deleteItem(zone, s.del)
      else await this.createItem(zone, s.put.name, s.put.type, s.put.ttl, s.put.value, s.put.native)
    }
  }

  protected async deleteItem(_zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DeleteDomainRecord', { RecordId: item.id })
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'alibaba-cloud-dns',
  defaultBase: ALIDNS_API,
  make: (s, o) => new AlidnsProvider(s, o.base),
  token_url: 'https://ram.console.aliyun.com/manage/ak',
  token_scopes: ['AliyunDNSFullAccess'],
  credential: 'AccessKey pair (AccessKeyId:AccessKeySecret)',
}
