// Tencent Cloud DNSPod API 3.0, the parts the adapter uses (https://www.tencentcloud.com/document/api/1157/51290
// and its neighbouring pages DescribeDomainList, CreateRecord, ModifyRecord, DeleteRecord, "Signature v3", "Common Error
// Codes"). Each request's TC3-HMAC-SHA256 signature is recomputed from the body, the Host header and
// X-TC-Timestamp with the SecretKey, and the timestamp must be within five minutes; all answers are
// HTTP 200 with `{Response}`; errors `{Response: {Error: {Code, Message}, RequestId}}`:
// AuthFailure.SecretIdNotFound / AuthFailure.SignatureFailure / AuthFailure.SignatureExpire,
// RequestLimitExceeded (no Retry-After), InvalidParameterValue.DomainNotExists, and the "no data"
// codes for empty lists. Both lists page by Offset/Limit.
import { createHash, createHmac } from 'node:crypto'
import { json, nextId, servePage, startFake, type Fake } from './common.ts'

export interface DnspodRecord {
  RecordId: number
  Name: string
  Type: string
  Value: string
  TTL: number
  MX: number
  Line: string
  Status: string
}

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
  // Offset/Limit on the fake's page grid (the adapter advances by what it was given).
  const page = <T>(f: Fake<DnspodRecord>, list: 'zones' | 'records', items: T[], b: any) => {
    const size = Math.max(1, Math.min(Number(b.Limit ?? 20), 3))
    return servePage(f, list, items, Math.floor(Number(b.Offset ?? 0) / size) + 1, size)
  }
  return startFake<DnspodRecord>({
    credential: `${secretId}:${secretKey}`,
    zoneId: (name) => name,
    throttled: () => error('RequestLimitExceeded', 'The request frequency exceeds the limit.'),
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
        if (b.RecordType === 'MX' && !(b.MX >= 1)) return error('InvalidParameter.MxInvalid', 'MX priority is required.')
        const old = action === 'ModifyRecord' ? zone.records.find((r) => r.RecordId === b.RecordId) : undefined
        if (action === 'ModifyRecord' && !old) return error('InvalidParameter.RecordIdInvalid', 'The record id is wrong.')
        const same = zone.records.filter((r) => r.Name === b.SubDomain && r !== old)
        if ((b.RecordType === 'CNAME' && same.length) || same.some((r) => r.Type === 'CNAME')) return error('InvalidParameter.RecordConflict', 'A CNAME conflicts with other records of the name.')
        const rec: DnspodRecord = { RecordId: old?.RecordId ?? ++ids, Name: b.SubDomain, Type: b.RecordType, Value: b.Value, TTL: b.TTL ?? 600, MX: b.MX ?? 0, Line: b.RecordLine, Status: 'ENABLE' }
        if (old) zone.records.splice(zone.records.indexOf(old), 1, rec)
        else zone.records.push(rec)
        return answer({ RecordId: rec.RecordId })
      }
      if (action === 'DeleteRecord') {
        const i = zone.records.findIndex((r) => r.RecordId === b.RecordId)
        if (i === -1) return error('InvalidParameter.RecordIdInvalid', 'The record id is wrong.')
        zone.records.splice(i, 1)
        return answer({})
      }
      return error('InvalidAction', `${action} is not an action of this API`)
    },
  })
}
