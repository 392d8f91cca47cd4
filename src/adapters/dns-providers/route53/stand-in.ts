// Amazon Route 53 API 2013-04-01, the parts the adapter uses
// (https://docs.aws.amazon.com/Route53/latest/APIReference/): every request must carry a SigV4
// signature for the fake's access key (checked by recomputing it; 403 SignatureDoesNotMatch or
// InvalidClientTokenId otherwise). XML bodies; errors are `<ErrorResponse><Error><Type/><Code/>
// <Message/></Error><RequestId/></ErrorResponse>`: 404 NoSuchHostedZone, 400 Throttling "Rate
// exceeded", 400 InvalidChangeBatch (a DELETE that does not match the current set exactly, or a
// CNAME beside other data). A ChangeBatch applies all of its changes or none. Lists are paged
// (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html): zones by
// `marker`/`NextMarker`, record sets in name-then-type order by `name`/`type`/`identifier` and
// `NextRecordName`/`NextRecordType`/`NextRecordIdentifier`; a set with a routing policy carries a
// `SetIdentifier` and `Weight` and is one of several sets under its name and type.
import { signV4 } from '../sigv4.ts'
import { route53 as card } from './card.ts'
import { askedPage, cardThrottle, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface R53Set {
  name: string
  type: string
  ttl: number
  values: string[]
  setIdentifier?: string
  weight?: number
  /** Latency routing. */
  region?: string
  /** Failover routing: PRIMARY or SECONDARY. */
  failover?: string
  healthCheckId?: string
  /** An alias set: no TTL or values of its own. */
  aliasTarget?: { hostedZoneId: string; dnsName: string; evaluateTargetHealth: boolean }
}

const NS = 'https://route53.amazonaws.com/doc/2013-04-01/'
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const dec = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
const xml = (status: number, body: string) => new Response(`<?xml version="1.0"?>\n${body}`, { status, headers: { 'content-type': 'text/xml' } })
const error = (status: number, code: string, message: string) =>
  xml(status, `<ErrorResponse xmlns="${NS}"><Error><Type>Sender</Type><Code>${code}</Code><Message>${esc(message)}</Message></Error><RequestId>${nextId('req-')}</RequestId></ErrorResponse>`)
const all = (s: string, t: string) => [...s.matchAll(new RegExp(`<${t}>([\\s\\S]*?)</${t}>`, 'g'))].map((m) => m[1]!)
const one = (s: string, t: string) => all(s, t)[0]

/**
 * Answers a test injects with `refuseNext`: `changedMeanwhile`, someone's change to the set landing
 * between Portico's read and its ChangeBatch (`edit` applies it), so Route 53 refuses the batch's DELETE
 * as it does, all or nothing: 400 InvalidChangeBatch "…but the values provided do not match the
 * current values" (https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html).
 */
export const R53_REFUSALS = {
  changedMeanwhile: (edit: () => void, name: string, type: string) => () => {
    edit()
    return xml(400, `<InvalidChangeBatch xmlns="${NS}"><Messages><Message>[Tried to delete resource record set [name='${esc(name)}.', type='${type}'] but the values provided do not match the current values]</Message></Messages><RequestId>${nextId('req-')}</RequestId></InvalidChangeBatch>`)
  },
}

export type R53Fake = Fake<R53Set> & {
  /** A test's knob: serve at most this many a page whatever maxitems says (to reach paging inside a set of routing-policy records without hundreds of them). */
  pageCap: number | null
  /** The next this many change batches find an earlier change still being applied (400 PriorRequestNotComplete). */
  busy: number
}

export function startRoute53Fake(accessKeyId = 'AKIA' + nextId().toUpperCase().padEnd(16, 'X'), secret = 'r53secret/' + nextId()): R53Fake {
  const fake = startFake<R53Set>({
    credential: `${accessKeyId}:${secret}`,
    // As Route 53 issues them (Z1D633PJN98FT9): the model's ResourceId holds at most 32 characters, `/hostedzone/` included.
    zoneId: () => 'Z' + nextId().toUpperCase().padEnd(13, '7'),
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      const body = req.method === 'POST' ? await req.text() : ''
      const auth = req.headers.get('authorization') ?? ''
      const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/us-east-1\/route53\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth)
      if (!m) return error(403, 'MissingAuthenticationToken', 'Missing Authentication Token')
      if (m[1] !== accessKeyId) return error(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.')
      const date = req.headers.get('x-amz-date') ?? ''
      const signedHeaders = Object.fromEntries(m[3]!.split(';').filter((h) => h !== 'host' && h !== 'x-amz-date').map((h) => [h, req.headers.get(h) ?? '']))
      const at = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`)
      const expect = signV4({ method: req.method, url, headers: signedHeaders, body, accessKeyId, secretAccessKey: secret, region: 'us-east-1', service: 'route53', now: at })
      if (expect.authorization !== auth) return error(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.')

      if (req.method === 'GET' && url.pathname === '/2013-04-01/hostedzone') {
        const marker = url.searchParams.get('marker')
        const from = marker ? f.zones.slice(Math.max(0, f.zones.findIndex((z) => z.id === marker))) : f.zones
        // As many as asked (maxitems, default and most 100), as the API reference says.
        const p = { items: askedPage(f, 'zones', from, 0, Number(url.searchParams.get('maxitems') ?? 100), (f as R53Fake).pageCap ?? 100), size: Math.min(Number(url.searchParams.get('maxitems') ?? 100), (f as R53Fake).pageCap ?? 100) }
        if (marker) f.deepest.zones = Math.max(f.deepest.zones, 2)
        const more = from.length > p.items.length
        const zones = p.items.map((z) => `<HostedZone><Id>/hostedzone/${z.id}</Id><Name>${z.name}.</Name><CallerReference>${z.id}</CallerReference><Config><PrivateZone>false</PrivateZone></Config><ResourceRecordSetCount>${z.records.length}</ResourceRecordSetCount></HostedZone>`)
        const tail = more ? `<IsTruncated>true</IsTruncated><NextMarker>${from[p.items.length]!.id}</NextMarker>` : '<IsTruncated>false</IsTruncated>'
        // Marker is required: the marker asked with, empty on the first page.
        return xml(200, `<ListHostedZonesResponse xmlns="${NS}"><HostedZones>${zones.join('')}</HostedZones><Marker>${esc(marker ?? '')}</Marker>${tail}<MaxItems>${p.size}</MaxItems></ListHostedZonesResponse>`)
      }
      // GetHostedZone: the zone and its delegation set (four awsdns name servers of its own).
      const gm = req.method === 'GET' ? /^\/2013-04-01\/hostedzone\/([^/]+)$/.exec(url.pathname) : null
      if (gm) {
        const z = f.zones.find((x) => x.id === gm[1])
        if (!z) return error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${gm[1]}`)
        const ns = z.nameServers ?? ['ns-2048.awsdns-64.com', 'ns-2049.awsdns-65.net', 'ns-2050.awsdns-66.org', 'ns-2051.awsdns-67.co.uk']
        return xml(200, `<GetHostedZoneResponse xmlns="${NS}"><HostedZone><Id>/hostedzone/${z.id}</Id><Name>${z.name}.</Name><CallerReference>${z.id}</CallerReference><Config><PrivateZone>false</PrivateZone></Config><ResourceRecordSetCount>${z.records.length}</ResourceRecordSetCount></HostedZone><DelegationSet><NameServers>${ns.map((n) => `<NameServer>${n}</NameServer>`).join('')}</NameServers></DelegationSet></GetHostedZoneResponse>`)
      }
      const zm = /^\/2013-04-01\/hostedzone\/([^/]+)\/rrset\/?$/.exec(url.pathname)
      const zone = zm && f.zones.find((z) => z.id === zm[1])
      if (!zm || !zone) return error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${zm?.[1] ?? ''}`)
      if (req.method === 'GET') {
        const key = (s: { name: string; type: string; setIdentifier?: string }) => `${s.name}\u0000${s.type}\u0000${s.setIdentifier ?? ''}`
        const sorted = [...zone.records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
        const start = url.searchParams.get('name')
        const from = start ? sorted.filter((s) => key(s) >= key({ name: start, type: url.searchParams.get('type') ?? '', setIdentifier: url.searchParams.get('identifier') ?? undefined })) : sorted
        // As many as asked (maxitems, default and most 300).
        const p = { items: askedPage(f, 'records', from, 0, Number(url.searchParams.get('maxitems') ?? 300), (f as R53Fake).pageCap ?? 300), size: Math.min(Number(url.searchParams.get('maxitems') ?? 300), (f as R53Fake).pageCap ?? 300) }
        if (start) f.deepest.records = Math.max(f.deepest.records, 2)
        const sets = p.items.map(
          (s) =>
            `<ResourceRecordSet><Name>${s.name}</Name><Type>${s.type}</Type>${s.setIdentifier !== undefined ? `<SetIdentifier>${esc(s.setIdentifier)}</SetIdentifier>` : ''}${s.weight !== undefined ? `<Weight>${s.weight}</Weight>` : ''}${s.region ? `<Region>${s.region}</Region>` : ''}${s.failover ? `<Failover>${s.failover}</Failover>` : ''}${
              s.aliasTarget
                ? `<AliasTarget><HostedZoneId>${s.aliasTarget.hostedZoneId}</HostedZoneId><DNSName>${esc(s.aliasTarget.dnsName)}</DNSName><EvaluateTargetHealth>${s.aliasTarget.evaluateTargetHealth}</EvaluateTargetHealth></AliasTarget>`
                : `<TTL>${s.ttl}</TTL><ResourceRecords>${s.values.map((v) => `<ResourceRecord><Value>${esc(v)}</Value></ResourceRecord>`).join('')}</ResourceRecords>`
            }${s.healthCheckId ? `<HealthCheckId>${s.healthCheckId}</HealthCheckId>` : ''}</ResourceRecordSet>`,
        )
        const n = from[p.items.length]
        const tail = n
          ? `<IsTruncated>true</IsTruncated><NextRecordName>${n.name}</NextRecordName><NextRecordType>${n.type}</NextRecordType>${n.setIdentifier !== undefined ? `<NextRecordIdentifier>${esc(n.setIdentifier)}</NextRecordIdentifier>` : ''}`
          : '<IsTruncated>false</IsTruncated>'
        return xml(200, `<ListResourceRecordSetsResponse xmlns="${NS}"><ResourceRecordSets>${sets.join('')}</ResourceRecordSets>${tail}<MaxItems>${p.size}</MaxItems></ListResourceRecordSetsResponse>`)
      }
      if ((f as R53Fake).busy > 0) {
        ;(f as R53Fake).busy--
        return error(400, 'PriorRequestNotComplete', 'The request was rejected because Route 53 was still processing a prior request.')
      }
      // A ChangeBatch: validated against a copy, committed whole.
      const next = zone.records.map((s) => ({ ...s, values: [...s.values] }))
      for (const c of all(body, 'Change')) {
        const action = one(c, 'Action')
        const set: R53Set = { name: dec(one(c, 'Name') ?? ''), type: one(c, 'Type') ?? '', ttl: Number(one(c, 'TTL') ?? 300), values: all(c, 'Value').map(dec) }
        const id = one(c, 'SetIdentifier')
        if (id !== undefined) set.setIdentifier = dec(id)
        const i = next.findIndex((s) => s.name === set.name && s.type === set.type && s.setIdentifier === set.setIdentifier)
        // A plain set and routing-policy sets cannot share a name and type.
        if (next.some((s) => s.name === set.name && s.type === set.type && (s.setIdentifier === undefined) !== (set.setIdentifier === undefined)) && action !== 'DELETE') {
          return error(400, 'InvalidChangeBatch', `[RRSet with DNS name ${set.name}, type ${set.type} cannot be created as other RRSets exist with the same name and type.]`)
        }
        if (action === 'DELETE') {
          const cur = next[i]
          if (!cur) return error(400, 'InvalidChangeBatch', `[Tried to delete resource record set [name='${set.name}', type='${set.type}'] but it was not found]`)
          if (cur.ttl !== set.ttl || [...cur.values].sort().join('\n') !== [...set.values].sort().join('\n')) {
            return error(400, 'InvalidChangeBatch', `[Tried to delete resource record set [name='${set.name}', type='${set.type}'] but the values provided do not match the current values]`)
          }
          next.splice(i, 1)
        } else if (action === 'UPSERT' || action === 'CREATE') {
          if (action === 'CREATE' && i !== -1) return error(400, 'InvalidChangeBatch', `[Tried to create resource record set [name='${set.name}', type='${set.type}'] but it already exists]`)
          if (i === -1) next.push(set)
          else next[i] = set
        } else return error(400, 'InvalidInput', `Invalid action ${action}`)
      }
      for (const s of next) {
        if (s.type === 'CNAME' && next.some((o) => o.name === s.name && o.type !== 'CNAME')) {
          return error(400, 'InvalidChangeBatch', `[RRSet of type CNAME with DNS name ${s.name} is not permitted as it conflicts with other records with the same DNS name in zone ${zone.name}.]`)
        }
      }
      zone.records = next
      return xml(200, `<ChangeResourceRecordSetsResponse xmlns="${NS}"><ChangeInfo><Id>/change/${nextId('C')}</Id><Status>PENDING</Status><SubmittedAt>${new Date().toISOString()}</SubmittedAt></ChangeInfo></ChangeResourceRecordSetsResponse>`)
    },
  })
  return Object.assign(fake, { pageCap: null as number | null, busy: 0 })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'route53',
  reference: 'https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html',
  start: () => startRoute53Fake(),
  base: (f) => f.url,
  badCredential: 'AKIAWRONG:wrong',
  foreignZone: { id: 'ZNOTMINE000', name: 'not-mine.example' },
  // Route 53 answers up to maxitems (default and most: 100 zones, 300 record sets).
  pageFill: { zones: 101, records: { count: 300, row: (z, i) => ({ name: `filler${i}.${z}.`, type: 'TXT', ttl: 300, values: [`"filler-${i}"`] }) } },
  seedZone: (name, f) =>
    f.zones.find((z) => z.name === name)!.records.push(
      { name: `${name}.`, type: 'SOA', ttl: 900, values: ['ns-1.awsdns-01.org. awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400'] },
      { name: `${name}.`, type: 'NS', ttl: 172800, values: ['ns-1.awsdns-01.org.', 'ns-2.awsdns-02.com.'] },
    ),
}
