// Alibaba Cloud DNS (Alidns 2015-01-09), the parts the adapter uses
// (https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-dir — DescribeDomains,
// DescribeDomainRecords, AddDomainRecord, UpdateDomainRecord, DeleteDomainRecord; signing:
// https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism). Each request's
// Signature is recomputed from its other query parameters with the AccessKeySecret, its Timestamp must
// be within 15 minutes and its SignatureNonce unused. Errors `{Code, Message, RequestId, HostId}`:
// 404 InvalidAccessKeyId.NotFound, 400 SignatureDoesNotMatch, 400 SignatureNonceUsed,
// 400 InvalidTimeStamp.Expired, 400 Throttling.User (no Retry-After), 400 InvalidDomainName.NoExist,
// 400 DomainRecordNotBelongToUser, 400 QuotaExceeded.TTL (a TTL under the free edition's 600). Both
// lists page by PageNumber/PageSize with TotalCount, a page as long as asked up to 100 (domains) or
// 500 (records). Records keep the provider's own attributes: Line (ISP lines), Weight, Status, Locked,
// Remark (set by UpdateDomainRecordRemark). Everything answers as the card says
// (src/adapters/dns-providers/alibaba-cloud-dns/card.ts).
import { createHmac } from 'node:crypto'
import { alidns as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface AliRecord {
  DomainName: string
  RecordId: string
  RR: string
  Type: string
  Value: string
  TTL: number
  Priority?: number
  Line: string
  Status: string
  Locked: boolean
  Weight?: number
  Remark?: string
}

const TYPES = new Set(card.records.types)

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
    throttled: cardThrottle(card, 0),
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
        if (old?.Locked) return error(400, 'DomainRecordLocked', 'The DNS record is locked.')
        if (!rr || !type || !value) return error(400, 'MissingParameter', 'RR, Type and Value are mandatory for this action.')
        if (!TYPES.has(type)) return error(400, 'InvalidType', `The record type ${type} is not supported.`)
        const ttl = Number(p.get('TTL') ?? card.ttl.default)
        if (ttl < card.ttl.min) return error(400, 'QuotaExceeded.TTL', 'The TTL has exceeded the limit of the domain edition.')
        if (type === 'MX' && !p.get('Priority')) return error(400, 'InvalidPriority.Malformed', 'MX records need a Priority.')
        const same = zone.records.filter((r) => r.RR === rr && r !== old)
        if ((type === 'CNAME' && same.length) || same.some((r) => r.Type === 'CNAME')) return error(400, 'DomainRecordConflict', 'The DNS record conflicts with other records.')
        const line = p.get('Line') ?? 'default'
        if (same.some((r) => r.Type === type && r.Value === value && r.Line === line)) return error(400, 'DomainRecordDuplicate', 'The DNS record already exists.')
        // An update keeps the record's id, status, lock and remark.
        const rec: AliRecord = { DomainName: zone.name, RecordId: old?.RecordId ?? String(++ids), RR: rr, Type: type, Value: value, TTL: ttl, ...(type === 'MX' ? { Priority: Number(p.get('Priority')) } : {}), Line: line, Status: old?.Status ?? 'ENABLE', Locked: old?.Locked ?? false, ...(old?.Remark ? { Remark: old.Remark } : {}) }
        if (old) zone.records.splice(zone.records.indexOf(old), 1, rec)
        else zone.records.push(rec)
        return ok({ RecordId: rec.RecordId })
      }
      const paged = (list: 'zones' | 'records', items: unknown[]) => {
        const max = list === 'zones' ? 100 : 500
        const number = Number(p.get('PageNumber') ?? 1)
        const size = Number(p.get('PageSize') ?? 20)
        if (!(size >= 1 && size <= max) || !(number >= 1)) return null
        return { items: askedPage(f, list, items, (number - 1) * size, size, max), TotalCount: items.length, PageNumber: number, PageSize: size }
      }
      const badPage = () => error(400, 'InvalidPageSize', 'The specified PageSize or PageNumber is invalid.')
      if (action === 'DescribeDomains') {
        const page = paged('zones', f.zones.map((z) => ({ DomainId: z.name, DomainName: z.name, AliDomain: false, DnsServers: { DnsServer: ['dns1.hichina.com', 'dns2.hichina.com'] } })))
        if (!page) return badPage()
        const { items, ...rest } = page
        return ok({ ...rest, Domains: { Domain: items } })
      }
      if (action === 'DeleteDomainRecord') {
        for (const z of f.zones) {
          const i = z.records.findIndex((r) => r.RecordId === p.get('RecordId'))
          if (i !== -1 && z.records[i]!.Locked) return error(400, 'DomainRecordLocked', 'The DNS record is locked.')
          if (i !== -1) return ok({ RecordId: z.records.splice(i, 1)[0]!.RecordId })
        }
        return error(400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist or does not belong to the user.')
      }
      if (action === 'UpdateDomainRecordRemark') {
        const r = f.zones.flatMap((z) => z.records).find((x) => x.RecordId === p.get('RecordId'))
        if (!r) return error(400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist or does not belong to the user.')
        const remark = p.get('Remark') ?? ''
        if (remark) r.Remark = remark
        else delete r.Remark
        return ok({})
      }
      if (action === 'UpdateDomainRecord') {
        const z = f.zones.find((x) => x.records.some((r) => r.RecordId === p.get('RecordId')))
        if (!z) return error(400, 'DomainRecordNotBelongToUser', 'The DNS record does not exist or does not belong to the user.')
        return write(z, z.records.find((r) => r.RecordId === p.get('RecordId')))
      }
      const zone = f.zones.find((z) => z.name === p.get('DomainName'))
      if (!zone) return error(400, 'InvalidDomainName.NoExist', 'The specified domain name does not exist. Refresh the page and try again.')
      if (action === 'DescribeDomainRecords') {
        const page = paged('records', zone.records)
        if (!page) return badPage()
        const { items, ...rest } = page
        return ok({ ...rest, DomainRecords: { Record: items } })
      }
      if (action === 'AddDomainRecord') return write(zone)
      return error(404, 'InvalidAction.NotFound', `${action} is not an action of this API`)
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'alibaba-cloud-dns',
  reference: 'https://www.alibabacloud.com/help/en/dns/api-alidns-2015-01-09-describedomainrecords',
  start: () => startAlidnsFake(),
  base: (f) => f.url,
  badCredential: 'LTAIwrong:wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 100 a page of both lists; Alibaba answers as many as asked (up to 100 and 500).
  pageFill: { zones: 101, records: { count: 100, row: (z, i) => ({ DomainName: z, RecordId: nextId('9'), RR: `filler${i}`, Type: 'TXT', Value: `filler-${i}`, TTL: 600, Line: 'default', Status: 'ENABLE', Locked: false }) } },
  seedRow: (z, row) => z.records.push({ ...row, RecordId: nextId('8') }),
}
