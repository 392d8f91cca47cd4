// Alibaba Cloud DNS (Alidns 2015-01-09), the parts the adapter uses
// (https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-dir — DescribeDomains,
// DescribeDomainRecords, AddDomainRecord, UpdateDomainRecord, DeleteDomainRecord; signing:
// https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism). Each request's
// Signature is recomputed from its other query parameters with the AccessKeySecret, its Timestamp must
// be within 15 minutes and its SignatureNonce unused. Errors `{Code, Message, RequestId, HostId}`:
// 404 InvalidAccessKeyId.NotFound, 400 SignatureDoesNotMatch, 400 SignatureNonceUsed,
// 400 InvalidTimeStamp.Expired, 400 Throttling.User (no Retry-After), 400 InvalidDomainName.NoExist,
// 400 DomainRecordNotBelongToUser. Both lists page by PageNumber/PageSize with TotalCount.
import { createHmac } from 'node:crypto'
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface AliRecord {
  RecordId: string
  RR: string
  Type: string
  Value: string
  TTL: number
  Priority?: number
  Line: string
  Status: string
  Locked: boolean
}

/** RFC 3986 encoding byte by byte (unreserved characters kept), as the signing page specifies. */
function percent(s: string): string {
  let out = ''
  for (const b of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(b)
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : '%' + b.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}

export function startAlidnsFake(keyId = 'LTAI' + nextId().padEnd(20, '0'), secret = nextId('s').padEnd(30, 'x')): Fake<AliRecord> {
  let ids = 5000
  const nonces = new Set<string>()
  const error = (status: number, Code: string, Message: string) => json(status, { RequestId: crypto.randomUUID(), HostId: 'alidns.aliyuncs.com', Code, Message, Recommend: 'https://api.aliyun.com/troubleshoot' })
  const ok = (body: object) => json(200, { RequestId: crypto.randomUUID(), ...body })
  return startFake<AliRecord>({
    credential: `${keyId}:${secret}`,
    zoneId: (name) => name,
    throttled: () => error(400, 'Throttling.User', 'Request was denied due to user flow control.'),
    async handle(req, url, f) {
      const p = url.searchParams
      if (req.method !== 'GET' || url.pathname !== '/') return error(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.')
      if (p.get('AccessKeyId') !== keyId) return error(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.')
      const signed = [...p.entries()].filter(([k]) => k !== 'Signature').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      const canonical = signed.map(([k, v]) => `${percent(k)}=${percent(v)}`).join('&')
      const want = createHmac('sha1', `${secret}&`).update(`${req.method}&${percent('/')}&${percent(canonical)}`).digest('base64')
      if (p.get('SignatureMethod') !== 'HMAC-SHA1' || p.get('SignatureVersion') !== '1.0' || p.get('Signature') !== want) return error(400, 'SignatureDoesNotMatch', 'Specified signature is not matched with our calculation.')
      if (!(Math.abs(Date.now() - Date.parse(p.get('Timestamp') ?? '')) < 15 * 60_000)) return error(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.')
      const nonce = p.get('SignatureNonce') ?? ''
      if (!nonce || nonces.has(nonce)) return error(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.')
      nonces.add(nonce)
      if (p.get('Version') !== '2015-01-09' || p.get('Format') !== 'JSON') return error(400, 'InvalidVersion', 'Specified parameter Version is not valid.')
      const action = p.get('Action')
      // AddDomainRecord, or UpdateDomainRecord of `old` (which keeps its RecordId).
      const write = (zone: (typeof f.zones)[number], old?: AliRecord) => {
        const rr = p.get('RR') ?? ''
        const type = p.get('Type') ?? ''
        const value = p.get('Value') ?? ''
        if (!rr || !type || !value) return error(400, 'MissingParameter', 'RR, Type and Value are mandatory for this action.')
        if (type === 'MX' && !p.get('Priority')) return error(400, 'InvalidPriority.Malformed', 'MX records need a Priority.')
        const same = zone.records.filter((r) => r.RR === rr && r !== old)
        if ((type === 'CNAME' && same.length) || same.some((r) => r.Type === 'CNAME')) return error(400, 'DomainRecordConflict', 'The DNS record conflicts with other records.')
        if (same.some((r) => r.Type === type && r.Value === value)) return error(400, 'DomainRecordDuplicate', 'The DNS record already exists.')
        const rec: AliRecord = { RecordId: old?.RecordId ?? String(++ids), RR: rr, Type: type, Value: value, TTL: Number(p.get('TTL') ?? 600), ...(type === 'MX' ? { Priority: Number(p.get('Priority')) } : {}), Line: 'default', Status: 'ENABLE', Locked: false }
        if (old) zone.records.splice(zone.records.indexOf(old), 1, rec)
        else zone.records.push(rec)
        return ok({ RecordId: rec.RecordId })
      }
      const paged = (list: 'zones' | 'records', items: unknown[]) => {
        const s = servePage(f, list, items, Number(p.get('PageNumber') ?? 1), Number(p.get('PageSize') ?? 20))
        return { items: s.items, TotalCount: s.total, PageNumber: Number(p.get('PageNumber') ?? 1), PageSize: s.size }
      }
      if (action === 'DescribeDomains') {
        const { items, ...page } = paged('zones', f.zones.map((z) => ({ DomainId: z.name, DomainName: z.name, AliDomain: false, DnsServers: { DnsServer: ['dns1.hichina.com', 'dns2.hichina.com'] } })))
        return ok({ ...page, Domains: { Domain: items } })
      }
      if (action === 'DeleteDomainRecord') {
        for (const z of f.zones) {
          const i = z.records.findIndex((r) => r.RecordId === p.get('RecordId'))
          if (i !== -1) return ok({ RecordId: z.records.splice(i, 1)[0]!.RecordId })
        }
        return error(400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist or does not belong to the user.')
      }
      if (action === 'UpdateDomainRecord') {
        const z = f.zones.find((x) => x.records.some((r) => r.RecordId === p.get('RecordId')))
        if (!z) return error(400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist or does not belong to the user.')
        return write(z, z.records.find((r) => r.RecordId === p.get('RecordId')))
      }
      const zone = f.zones.find((z) => z.name === p.get('DomainName'))
      if (!zone) return error(400, 'InvalidDomainName.NoExist', 'The specified domain name does not exist. Refresh the page and try again.')
      if (action === 'DescribeDomainRecords') {
        const { items, ...page } = paged('records', zone.records)
        return ok({ ...page, DomainRecords: { Record: items } })
      }
      if (action === 'AddDomainRecord') return write(zone)
      return error(404, 'InvalidAction.NotFound', `${action} is not an action of this API`)
    },
  })
}
