// Tencent Cloud DNSPod API 3.0, the parts the adapter uses (https://www.tencentcloud.com/document/api/1157/51290
// and its neighbouring pages DescribeDomainList, CreateRecord, ModifyRecord, DeleteRecord, "Signature v3", "Common Error
// Codes"). Each request's TC3-HMAC-SHA256 signature is recomputed from the body, the Host header and
// X-TC-Timestamp with the SecretKey, and the timestamp must be within five minutes; all answers are
// HTTP 200 with `{Response}`; errors `{Response: {Error: {Code, Message}, RequestId}}`:
// AuthFailure.SecretIdNotFound / AuthFailure.SignatureFailure / AuthFailure.SignatureExpire,
// RequestLimitExceeded (no Retry-After), InvalidParameterValue.DomainNotExists, and the "no data"
// codes for empty lists, LimitExceeded.RecordTtlLimit under the free plan's 600,
// InvalidParameter.DomainRecordExist for a record already there. Both lists page by Offset/Limit, a
// page as long as asked (at most 3000). Records are RecordListItems with their own attributes (Line,
// LineId, Weight, Status, Remark, DefaultNS); CreateRecord and ModifyRecord take RecordLine, Weight,
// Status and Remark. Everything answers as the card says (src/adapters/dns-providers/dnspod/card.ts).
import { createHash, createHmac } from 'node:crypto'
import { dnspod as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface DnspodRecord {
  RecordId: number
  Value: string
  Status: string
  UpdatedOn: string
  Name: string
  Line: string
  LineId: string
  Type: string
  Weight: number | null
  MonitorStatus: string
  Remark: string
  TTL: number
  MX: number
  DefaultNS: boolean
}

const LINES: Record<string, string> = { 默认: '0', 电信: '10=0', 联通: '10=1', 境外: '3=0' }
const TYPES = new Set(card.records.types)

/** The signature as the reference spells it out, written apart from the adapter's so neither checks itself. */
function expected(secretKey: string, req: Request, ts: number, body: string): { scope: string; signature: string } {
  const date = new Date(ts * 1000).toISOString().slice(0, 10)
  const hash = (s: string) => createHash('sha256').update(s).digest('hex')
  const headers = `content-type:${req.headers.get('content-type')}\nhost:${req.headers.get('host')}\n`
  const canonical = `${req.method}\n/\n\n${headers}\ncontent-type;host\n${hash(body)}`
  const scope = `${date}/dnspod/tc3_request`
  const secretDate = createHmac('sha256', 'TC3' + secretKey).update(date).digest()
  const secretService = createHmac('sha256', secretDate).update('dnspod').digest()
  const secretSigning = createHmac('sha256', secretService).update('tc3_request').digest()
  return { scope, signature: createHmac('sha256', secretSigning).update(`TC3-HMAC-SHA256\n${ts}\n${scope}\n${hash(canonical)}`).digest('hex') }
}

export function startDnspodFake(secretId = 'AKID' + nextId().padEnd(32, '0'), secretKey = nextId('k').padEnd(32, 'x')): Fake<DnspodRecord> {
  let ids = 1000
  const answer = (body: object) => json(200, { Response: { ...body, RequestId: crypto.randomUUID() } })
  const error = (Code: string, Message: string) => answer({ Error: { Code, Message } })
  // Offset/Limit as asked, up to 3000 a page.
  const page = <T>(f: Fake<DnspodRecord>, list: 'zones' | 'records', items: T[], b: any) => ({ items: askedPage(f, list, items, Number(b.Offset ?? 0), Number(b.Limit ?? 100), 3000), total: items.length })
  return startFake<DnspodRecord>({
    credential: `${secretId}:${secretKey}`,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      const text = await req.text()
      const m = /^TC3-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=content-type;host, Signature=([0-9a-f]{64})$/.exec(req.headers.get('authorization') ?? '')
      if (!m || m[1] !== secretId) return error('AuthFailure.SecretIdNotFound', 'The SecretId is not found.')
      const ts = Number(req.headers.get('x-tc-timestamp'))
      if (!(Math.abs(Date.now() / 1000 - ts) < 300)) return error('AuthFailure.SignatureExpire', 'The signature expired.')
      if (req.headers.get('content-type') !== 'application/json; charset=utf-8' || req.method !== 'POST' || url.pathname !== '/') return error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated.')
      const s = expected(secretKey, req, ts, text)
      if (m[2] !== s.scope || m[3] !== s.signature) return error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated.')
      if (req.headers.get('x-tc-version') !== '2021-03-23') return error('InvalidParameter', 'X-TC-Version')
      const b = JSON.parse(text || '{}')
      const action = req.headers.get('x-tc-action')
      if (b.Limit !== undefined && !(Number(b.Limit) >= 1 && Number(b.Limit) <= 3000)) return error('InvalidParameterValue.LimitInvalid', 'Error in number of entries per page.')
      if (action === 'DescribeDomainList') {
        if (f.zones.length === 0) return error('ResourceNotFound.NoDataOfDomain', 'No domains.')
        const p = page(f, 'zones', f.zones, b)
        return answer({ DomainCountInfo: { AllTotal: p.total, DomainTotal: p.total }, DomainList: p.items.map((z, i) => ({ DomainId: i + 1, Name: z.name, Status: 'ENABLE', DNSStatus: '' })) })
      }
      const zone = f.zones.find((z) => z.name === b.Domain)
      if (!zone) return error('InvalidParameterValue.DomainNotExists', 'The domain does not exist.')
      if (action === 'DescribeRecordList') {
        if (zone.records.length === 0) return error('ResourceNotFound.NoDataOfRecord', 'No records.')
        const p = page(f, 'records', zone.records, b)
        return answer({ RecordCountInfo: { TotalCount: p.total, ListCount: p.items.length, SubdomainCount: 0 }, RecordList: p.items })
      }
      if (action === 'CreateRecord' || action === 'ModifyRecord') {
        if (typeof b.SubDomain !== 'string' || typeof b.RecordType !== 'string' || typeof b.Value !== 'string' || !b.Value || typeof b.RecordLine !== 'string') return error('MissingParameter', 'SubDomain, RecordType, RecordLine and Value are required.')
        if (b.RecordType === 'MX' && !(b.MX >= 1 && b.MX <= 20)) return error('InvalidParameter.MxInvalid', 'The MX priority is incorrect.')
        if (!TYPES.has(b.RecordType)) return error('InvalidParameter.RecordTypeInvalid', 'The record type is incorrect.')
        if (!(b.RecordLine in LINES)) return error('InvalidParameter.RecordLineInvalid', 'The record split zone is incorrect.')
        const ttl = b.TTL ?? card.ttl.default
        if (ttl < card.ttl.min || ttl > card.ttl.max!) return error('LimitExceeded.RecordTtlLimit', 'The TTL value of the record exceeds the limit.')
        if (b.Weight !== undefined && !(b.Weight >= 0 && b.Weight <= 100)) return error('InvalidParameter.InvalidWeight', 'The weight is invalid. Enter an integer between 0 and 100.')
        const old = action === 'ModifyRecord' ? zone.records.find((r) => r.RecordId === b.RecordId) : undefined
        if (action === 'ModifyRecord' && !old) return error('InvalidParameter.RecordIdInvalid', 'The record number is incorrect.')
        const same = zone.records.filter((r) => r.Name === b.SubDomain && r !== old && r.Status === 'ENABLE')
        if (b.Status !== 'DISABLE' && ((b.RecordType === 'CNAME' && same.length) || same.some((r) => r.Type === 'CNAME'))) return error('InvalidParameter.RecordValueInvalid', 'A CNAME record cannot stand beside other records of the name.')
        if (zone.records.some((r) => r !== old && r.Name === b.SubDomain && r.Type === b.RecordType && r.Value === b.Value && r.Line === b.RecordLine)) return error('InvalidParameter.DomainRecordExist', 'The record already exists and does not need to be added again.')
        // ModifyRecord keeps what it is not given (status, remark, weight).
        const rec: DnspodRecord = {
          RecordId: old?.RecordId ?? ++ids,
          Value: b.Value,
          Status: b.Status ?? old?.Status ?? 'ENABLE',
          UpdatedOn: '2026-01-01 00:00:00',
          Name: b.SubDomain,
          Line: b.RecordLine,
          LineId: LINES[b.RecordLine]!,
          Type: b.RecordType,
          Weight: b.Weight ?? old?.Weight ?? null,
          MonitorStatus: '',
          Remark: b.Remark ?? old?.Remark ?? '',
          TTL: ttl,
          MX: b.MX ?? 0,
          DefaultNS: false,
        }
        if (old) zone.records.splice(zone.records.indexOf(old), 1, rec)
        else zone.records.push(rec)
        return answer({ RecordId: rec.RecordId })
      }
      if (action === 'DeleteRecord') {
        const i = zone.records.findIndex((r) => r.RecordId === b.RecordId)
        if (i === -1) return error('InvalidParameter.RecordIdInvalid', 'The record number is incorrect.')
        zone.records.splice(i, 1)
        return answer({})
      }
      return error('InvalidAction', `${action} is not an action of this API`)
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'dnspod',
  reference: 'https://www.tencentcloud.com/document/api/1157/51290',
  start: () => startDnspodFake(),
  base: (f) => f.url,
  badCredential: 'AKIDwrong:wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 100 a page of both lists; DNSPod answers as many as asked (up to 3000).
  pageFill: { zones: 101, records: { count: 100, row: (_z, i) => ({ RecordId: 700000 + parseInt(nextId().slice(-6), 16) * 1000 + i, Value: `filler-${i}`, Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: `filler${i}`, Line: '默认', LineId: '0', Type: 'TXT', Weight: null, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false }) } },
  seedRow: (z, row) => z.records.push({ ...row, RecordId: 900000 + parseInt(nextId().slice(-6), 16) }),
}
