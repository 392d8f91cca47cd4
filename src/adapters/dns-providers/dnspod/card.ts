import { defineCard } from '../card-types.ts'

export const dnspod = defineCard({
  id: 'dnspod',
  name: 'Tencent Cloud DNSPod',
  sources: {
    recordList: { kind: 'docs', url: 'https://www.tencentcloud.com/document/api/1157/51290', note: 'DescribeRecordList: Offset, Limit (default 100, at most 3000), RecordCountInfo.TotalCount; each record\'s Line, LineId, Weight, Status, Remark, MonitorStatus, DefaultNS' },
    structure: { kind: 'docs', url: 'https://www.tencentcloud.com/document/product/1157/49027', note: 'Request Structure: dnspod.intl.tencentcloudapi.com (nearest region) or a region\'s host; POST of JSON with X-TC-Action, X-TC-Version, X-TC-Timestamp, signed TC3-HMAC-SHA256' },
    models: {
      kind: 'description',
      url: 'https://app.unpkg.com/tencentcloud-sdk-nodejs@4.1.38/files/tencentcloud/services/dnspod/v20210323/dnspod_models.d.ts',
      note: 'the request and response structures Tencent generates its SDK from: CreateRecord RecordLine (默认), MX 1–20, TTL 1–604800 "the minimum differs by plan", Weight 0–100, Status ENABLE/DISABLE, Remark; RecordListItem fields. TypeScript, not OpenAPI: not carried',
    },
    errorsGo: {
      kind: 'description',
      url: 'https://github.com/TencentCloud/tencentcloud-sdk-go-intl-en/blob/master/tencentcloud/dnspod/v20210323/errors.go',
      note: 'the error codes Tencent generates its SDK from (API 2021-03-23): LimitExceeded.RecordTtlLimit, InvalidParameter.DomainRecordExist, InvalidParameterValue.DomainNotExists, RequestLimitExceeded.*, OperationDenied.*; Go source, not carried',
    },
    lego: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/tencentcloud/tencentcloud.go', note: 'TTL default 600; RecordLine 默认; the SDK client with SecretId and SecretKey' },
    legoWrapper: { kind: 'client', url: 'https://github.com/go-acme/lego/blob/master/providers/dns/tencentcloud/wrapper.go', note: 'DescribeDomainList paged by Offset (the count read so far)' },
  },
  base: { url: 'https://dnspod.tencentcloudapi.com', versions: 'X-TC-Version 2021-03-23; international endpoint dnspod.intl.tencentcloudapi.com', cite: ['structure', 'recordList'] },
  auth: {
    scheme: 'Authorization: TC3-HMAC-SHA256 Credential=<SecretId>/<date>/dnspod/tc3_request, SignedHeaders=content-type;host, Signature=…',
    issued: 'an API key pair (CAM → API Keys): SecretId (AKID…) and SecretKey',
    accepted: ['SecretId:SecretKey', '{"SecretId": …, "SecretKey": …}', 'TENCENTCLOUD_SECRET_ID=… / TENCENTCLOUD_SECRET_KEY=… lines'],
    cite: ['structure', 'lego'],
  },
  listing: {
    zones: { pages: 'offset', params: 'Offset, Limit (at most 3000)', maxPageSize: 3000, end: 'DomainCountInfo.AllTotal reached' },
    records: { pages: 'offset', params: 'Offset, Limit (at most 3000)', maxPageSize: 3000, end: 'RecordCountInfo.TotalCount reached; an empty zone is the error ResourceNotFound.NoDataOfRecord' },
    cite: ['recordList', 'legoWrapper'],
  },
  records: {
    types: ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'SRV', 'CAA', 'SPF', 'HTTPS', 'SVCB', '显性URL', '隐性URL'],
    names: '`Name` / `SubDomain` relative, `@` the apex',
    values: '`Value` (hostnames with the trailing dot, TXT unquoted); MX priority `MX` apart',
    providerOnly: [
      { kind: '显性URL, 隐性URL', what: 'explicit (301) and framed URL forwarding records', portico: 'kept' },
      { kind: 'RecordLine', what: 'split-horizon answers: records of one name and type on different lines (电信, 联通, 境外…)', portico: 'locked' },
      { kind: 'Weight', what: 'weights (0–100) between records of one name and type', portico: 'locked' },
      { kind: 'Status DISABLE, Remark', what: 'a paused record; a person\'s note on a record', portico: 'kept' },
    ],
    cite: ['recordList', 'models'],
  },
  ttl: { min: 600, default: 600, max: 604800, cite: ['models', 'errorsGo', 'lego'] },
  rateLimit: {
    status: 200,
    answer: () => ({ headers: {}, body: { Response: { Error: { Code: 'RequestLimitExceeded', Message: 'The number of requests exceeds the frequency limit.' }, RequestId: '6f0e2c1a-0000-4000-8000-000000000000' } } }),
    signal: 'the Error.Code RequestLimitExceeded (HTTP 200, no wait given): Portico calls again after 1, 2, 4, 8 s',
    limits: 'per action, not given in the DNSPod pages read here',
    cite: ['errorsGo', 'structure'],
  },
  errors: [
    { when: 'a SecretId Tencent does not know', status: 200, body: { Response: { Error: { Code: 'AuthFailure.SecretIdNotFound', Message: 'The SecretId is not found, please ensure that your SecretId is correct.' } } }, reason: 'auth' },
    { when: 'a signature made with another key', status: 200, body: { Response: { Error: { Code: 'AuthFailure.SignatureFailure', Message: 'The provided credentials could not be validated. Please check your signature is correct.' } } }, reason: 'auth' },
    { when: 'a domain not in the account', status: 200, body: { Response: { Error: { Code: 'InvalidParameterValue.DomainNotExists', Message: 'The current domain is incorrect. Return to the previous step and try again.' } } }, reason: 'zone_not_found' },
    { when: 'a CAM user without the DNSPod actions', status: 200, body: { Response: { Error: { Code: 'UnauthorizedOperation', Message: 'Unauthorized operation.' } } }, reason: 'permission' },
    { when: 'the same record again', status: 200, body: { Response: { Error: { Code: 'InvalidParameter.DomainRecordExist', Message: 'The record already exists and does not need to be added again.' } } }, reason: 'conflict' },
    { when: 'a TTL under the plan\'s floor (600 on the free plan)', status: 200, body: { Response: { Error: { Code: 'LimitExceeded.RecordTtlLimit', Message: 'The TTL value of the record exceeds the limit.' } } }, reason: 'write_failed', id: 'ttl' },
  ],
  errorsCite: ['errorsGo', 'structure'],
  quirks: [
    { text: 'Every answer is HTTP 200; a failure is `Response.Error`. An empty list is an error too (ResourceNotFound.NoDataOfRecord).', cite: ['errorsGo', 'recordList'] },
    { text: 'ModifyRecord changes a record in place under its RecordId, so a changed single-value set is never briefly empty.', cite: ['models'] },
    { text: 'CreateRecord takes Status and Remark, so a paused record or one with a note is restored as it was.', cite: ['models'] },
    { text: 'The apex NS records DNSPod serves itself come back with DefaultNS true; they are never written.', cite: ['recordList'] },
  ],
  seeds: (zone) => [
    { shape: 'an explicit URL forward (显性URL)', row: { RecordId: 0, Value: 'https://example.net/landing', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: 'go', Line: '默认', LineId: '0', Type: '显性URL', Weight: null, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false } },
    { shape: 'a framed URL forward (隐性URL) with a remark where Portico points www (removed under the CNAME, restored with its remark)', row: { RecordId: 0, Value: 'https://shop.example.net/', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: 'www', Line: '默认', LineId: '0', Type: '隐性URL', Weight: null, MonitorStatus: '', Remark: 'old shop', TTL: 600, MX: 0, DefaultNS: false } },
    { shape: 'split-horizon answers: an A on the 电信 (China Telecom) line beside the default one', row: { RecordId: 0, Value: '198.51.100.60', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: 'cdn', Line: '电信', LineId: '10=0', Type: 'A', Weight: null, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false } },
    { shape: 'weighted A records', row: { RecordId: 0, Value: '198.51.100.70', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: 'lb', Line: '默认', LineId: '0', Type: 'A', Weight: 30, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false } },
    { shape: 'a paused TXT at the apex (Portico merges beside it)', row: { RecordId: 0, Value: 'old-verification=1', Status: 'DISABLE', UpdatedOn: '2026-01-01 00:00:00', Name: '@', Line: '默认', LineId: '0', Type: 'TXT', Weight: null, MonitorStatus: '', Remark: 'kept for audit', TTL: 600, MX: 0, DefaultNS: false } },
    { shape: 'DNSPod\'s own apex NS records', row: { RecordId: 0, Value: 'f1g1ns1.dnspod.net.', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: '@', Line: '默认', LineId: '0', Type: 'NS', Weight: null, MonitorStatus: '', Remark: '', TTL: 86400, MX: 0, DefaultNS: true } },
    { shape: 'an A on the 境外 (outside China) line at www, where Portico points a CNAME', row: { RecordId: 0, Value: '198.51.100.62', Status: 'ENABLE', UpdatedOn: '2026-01-01 00:00:00', Name: 'www', Line: '境外', LineId: '3=0', Type: 'A', Weight: null, MonitorStatus: '', Remark: '', TTL: 600, MX: 0, DefaultNS: false }, blocks: true },
  ],
  disagreements: [
    'CreateRecord documents TTL 1–604800; the free plan refuses under 600 with LimitExceeded.RecordTtlLimit, and lego defaults to 600: the card follows the plan floor.',
    'The error list has no code for a CNAME beside other records of the name (the older dnsapi.cn API had code 31, "A, CNAME and URL records cannot coexist"): the stand-in answers it as InvalidParameter.RecordValueInvalid, reported as a refusal.',
  ],
})
