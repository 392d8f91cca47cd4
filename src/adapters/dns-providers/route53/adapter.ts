// Amazon Route 53 API 2013-04-01 (https://docs.aws.amazon.com/Route53/latest/APIReference/): REST with
// XML bodies, signed with SigV4 (service `route53`, region `us-east-1`); the credential is given as
// `access_key_id:secret_access_key`. Zones: GET /2013-04-01/hostedzone (paged by `NextMarker`); record
// sets: GET /2013-04-01/hostedzone/{Id}/rrset (paged by `NextRecordName`/`NextRecordType`, and
// `NextRecordIdentifier` when the page ends inside a set of routing-policy records); writes:
// POST /2013-04-01/hostedzone/{Id}/rrset/ with one ChangeBatch (atomic) of UPSERT and DELETE changes (a
// DELETE must name the set exactly as it is, so the current sets are read first). Values are zone-file
// text (TXT quoted, hostnames with the trailing dot). Errors are `<ErrorResponse><Error><Code>`: 403
// InvalidClientTokenId / SignatureDoesNotMatch / AccessDenied, 400 Throttling ("Rate exceeded"), 404
// NoSuchHostedZone, 400 InvalidChangeBatch; Throttling and PriorRequestNotComplete are retried with
// a growing wait (src/adapters/dns-providers/route53/card.ts is the card). Alias record sets (AliasTarget) and record sets with a
// routing policy (weighted, latency, failover…: several sets under one name and type, each with a
// `SetIdentifier`) are read as locked sets: the planner never changes or removes them (it refuses
// before writing), and a direct change to a routing-policy name and type is refused as a conflict
// instead of an UPSERT that would collide with them.
import { credentialParts } from '../credentials.ts'
import { paginate } from '../paging.ts'
import { exchange, failureOf, type HttpResult } from '../http.ts'
import { signV4 } from '../sigv4.ts'
import { canonicalName, canonicalValue, ProviderError, readTxtSet, writeTxt, type DnsProvider, type ProviderErrorKind, type RRset, type RRsetChange, type Zone, type HostConventions } from '../types.ts'
import { onceMoreIfZoneChanged } from '../zone-changed.ts'
import type { HostedProvider } from '../hosted.ts'

export const ROUTE53_API = 'https://route53.amazonaws.com'
const NS = 'https://route53.amazonaws.com/doc/2013-04-01/'

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
const encode = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
const tag = (xml: string, name: string) => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml)
  return m ? decode(m[1]!) : undefined
}
const blocks = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, 'g'))].map((m) => m[1]!)
/** Route 53 writes some characters of names as `\\ddd` octal escapes (`*` is `\\052`). */
const unescapeName = (n: string) => canonicalName(n.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))

function failure(r: HttpResult): ProviderError | null {
  if (r.status < 300) return null
  const code = tag(r.text, 'Code') ?? `HTTP ${r.status}`
  const msg = `${code}: ${tag(r.text, 'Message') ?? ''}`.trim()
  const kind: ProviderErrorKind | undefined =
    code === 'Throttling' || code === 'PriorRequestNotComplete'
      ? 'rate_limited'
      : /InvalidClientTokenId|SignatureDoesNotMatch|UnrecognizedClient|MissingAuthenticationToken/.test(code)
        ? 'auth'
        : code === 'AccessDenied'
          ? 'permission'
          : code === 'NoSuchHostedZone'
            ? 'zone_not_found'
            : undefined
  return failureOf('Route 53', r, msg, kind)
}

/**
 * Route 53's temporary refusals: `Throttling` (its account-wide 5 requests a second) and
 * `PriorRequestNotComplete` (a change to the zone still in progress), both 400 with no wait
 * signalled; AWS asks for retries at growing intervals, so they are backed off 0.5, 1, 2, 4 s.
 */
export function route53Temporary(r: HttpResult, attempt: number): number | undefined {
  if (r.status !== 400 && r.status !== 429 && r.status !== 503) return undefined
  const code = tag(r.text, 'Code')
  if (code === 'Throttling' || code === 'ThrottlingException' || code === 'PriorRequestNotComplete' || code === 'ServiceUnavailable') return Math.min(0.5 * 2 ** (attempt - 1), 4)
  return undefined
}

function toValue(type: string, v: string, native?: Record<string, unknown>): string {
  if (type === 'CNAME' || type === 'NS') return `${v}.`
  if (type === 'MX') {
    const [p, h] = v.split(' ')
    return `${p} ${h}.`
  }
  if (type === 'TXT' || type === 'SPF') return writeTxt(v, native)
  return v
}

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "absolute with the trailing dot",
  hostnames: "zone-file text, trailing dot",
  txt: "quoted zone-file strings, split at 255 bytes",
  ttl: "any",
  temporary: "Throttling and PriorRequestNotComplete retried with a growing wait",
  sources: {
    apex: "dnscontrol providers/route53 (StackExchange/dnscontrol@7a079bc): CanUseAlias Cannot (aliases reach only AWS resources)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/route53/)",
    hostnames: "AWS service model (test/fixtures/provider-openapi/route53.json)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/route53/) (TXT `\"challengetoken\"`)",
    ttl: "AWS API reference",
    temporary: "the reference card (src/adapters/dns-providers/route53/card.ts)",
  },
}

export class Route53Provider implements DnsProvider {
  readonly id = 'route53'
  readonly conventions = CONVENTIONS
  private readonly accessKeyId: string
  private readonly secretAccessKey: string

  constructor(
    credential: string,
    private readonly base = ROUTE53_API,
    private readonly now: () => Date = () => new Date(),
  ) {
    // As AWS issues it: `id:secret`, the downloaded CSV, an `aws iam create-access-key` JSON, or
    // AWS_ACCESS_KEY_ID= lines (an aws_session_token alongside is not used).
    ;[this.accessKeyId, this.secretAccessKey] = credentialParts(credential, [{ name: 'access_key_id', aliases: ['AccessKeyId', 'Access key ID', 'AWS_ACCESS_KEY_ID', 'aws_access_key_id'] }, { name: 'secret_access_key', aliases: ['SecretAccessKey', 'Secret access key', 'AWS_SECRET_ACCESS_KEY', 'aws_secret_access_key'] }]) as [string, string]
  }

  private async call(method: string, path: string, body = '') {
    const url = new URL(this.base + path)
    const headers: Record<string, string> = body ? { 'content-type': 'application/xml' } : {}
    const signed = signV4({ method, url, headers, body, accessKeyId: this.accessKeyId, secretAccessKey: this.secretAccessKey, region: 'us-east-1', service: 'route53', now: this.now() })
    const r = await exchange(method, url.toString(), { ...headers, ...signed, accept: 'application/xml' }, body || undefined, { temporary: route53Temporary })
    const f = failure(r)
    if (f) throw f
    return r.text
  }

  async listZones(): Promise<Zone[]> {
    let marker: string | undefined
    const zones = await paginate<string>({ provider: 'Route 53', what: 'hosted zones' }, async () => {
      const xml = await this.call('GET', `/2013-04-01/hostedzone${marker ? `?marker=${encodeURIComponent(marker)}` : ''}`)
      marker = tag(xml, 'NextMarker')
      return { items: blocks(xml, 'HostedZone'), more: tag(xml, 'IsTruncated') === 'true' && marker !== undefined }
    })
    const out: Zone[] = []
    for (const z of zones) {
      if (tag(z, 'PrivateZone') === 'true') continue // a VPC's private view is not the public zone
      out.push({ id: tag(z, 'Id')!.replace(/^\/hostedzone\//, ''), name: unescapeName(tag(z, 'Name')!) })
    }
    return out
  }

  /**
   * A hosted zone's delegation set (GetHostedZone: GET /2013-04-01/hostedzone/{Id}, `DelegationSet/NameServers`):
   * the listing does not carry it, and two public hosted zones of one name each get their own four
   * name servers, which is how the one the registrar delegates to is told from a stale copy (lego #192).
   */
  async zoneNameServers(zone: Zone): Promise<string[]> {
    const xml = await this.call('GET', `/2013-04-01/hostedzone/${encodeURIComponent(zone.id)}`)
    return blocks(xml, 'NameServer').map((n) => canonicalName(decode(n)))
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.readAll(zone)).sets
  }

  /** The plain record sets, and the `name|type` keys that hold routing-policy sets. */
  private async readAll(zone: Zone): Promise<{ sets: RRset[]; routed: Set<string> }> {
    const sets: RRset[] = []
    const routed = new Set<string>()
    let next = ''
    const blocksRead = await paginate<string>({ provider: 'Route 53', what: `record sets of ${zone.name}` }, async () => {
      const xml = await this.call('GET', `/2013-04-01/hostedzone/${encodeURIComponent(zone.id)}/rrset${next}`)
      const id = tag(xml, 'NextRecordIdentifier')
      const more = tag(xml, 'IsTruncated') === 'true' && tag(xml, 'NextRecordName') !== undefined
      next = more ? `?name=${encodeURIComponent(tag(xml, 'NextRecordName')!)}&type=${encodeURIComponent(tag(xml, 'NextRecordType')!)}${id !== undefined ? `&identifier=${encodeURIComponent(id)}` : ''}` : ''
      return { items: blocks(xml, 'ResourceRecordSet'), more }
    })
    const special = new Map<string, RRset>()
    for (const s of blocksRead) {
      const type = tag(s, 'Type')!
      const name = unescapeName(tag(s, 'Name')!)
      const ttl = Number(tag(s, 'TTL') ?? 300)
      const alias = tag(s, 'DNSName')
      const id = tag(s, 'SetIdentifier')
      if (id !== undefined || alias !== undefined) {
        // Routing-policy sets (several under one name and type) and alias sets are Route 53's own:
        // read as locked sets, so a plan that would change or remove one is refused before writing.
        if (id !== undefined) routed.add(`${name}|${type}`)
        const k = `${name}|${type}`
        const cur = special.get(k) ?? { name, type, ttl, values: [], locked: id !== undefined ? 'Route 53 routing-policy record sets (SetIdentifier)' : 'a Route 53 alias record' }
        cur.values.push(alias !== undefined ? `alias ${canonicalName(alias)}${id !== undefined ? ` (${id})` : ''}` : `${id}: ${blocks(s, 'ResourceRecord').map((r) => tag(r, 'Value')!).join(' ')}`)
        special.set(k, cur)
        continue
      }
      const values = blocks(s, 'ResourceRecord').map((r) => tag(r, 'Value')!)
      // TXT as Route 53 holds it: a value stored as several strings keeps them (readTxtSet), so a DELETE names it exactly and a restore is byte-identical.
      if (type === 'TXT' || type === 'SPF') sets.push({ name, type, ttl, ...readTxtSet(values) })
      else sets.push({ name, type, ttl, values: values.map((v) => canonicalValue(type, v)) })
    }
    return { sets: [...sets, ...special.values()], routed }
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    if (changes.length === 0) return
    // A set changed between this read and the POST (issue 46): the batch is all or nothing, so
    // nothing was written. Read the zone again and send the batch once more, its DELETEs as the sets
    // now stand; changed again, the zone is busy: 409 conflict (zone_changed), retry later.
    await onceMoreIfZoneChanged('Route 53', 400, isStaleDelete, () => this.sendBatch(zone, changes))
  }

  /** One ChangeBatch built from the zone as it stands now: a DELETE names the set exactly as Route 53 holds it. */
  private async sendBatch(zone: Zone, changes: RRsetChange[]): Promise<void> {
    const { sets: current, routed } = await this.readAll(zone)
    const clash = changes.find((c) => routed.has(`${c.name}|${c.type}`))
    if (clash) throw new ProviderError('conflict', `Route 53: ${clash.name} ${clash.type} has routing-policy record sets (SetIdentifier); Portico leaves those to you`)
    const alias = changes.find((c) => current.some((s) => s.locked && s.name === c.name && s.type === c.type))
    if (alias) throw new ProviderError('unrepresentable', `Route 53: ${alias.name} ${alias.type} is an alias record, which Portico cannot write back exactly as it is; nothing was written`)
    const set = (name: string, type: string, ttl: number, values: string[], native?: Record<string, unknown>) =>
      `<ResourceRecordSet><Name>${encode(name)}.</Name><Type>${type}</Type><TTL>${ttl}</TTL><ResourceRecords>${values
        .map((v) => `<ResourceRecord><Value>${encode(toValue(type, v, native))}</Value></ResourceRecord>`)
        .join('')}</ResourceRecords></ResourceRecordSet>`
    const parts: string[] = []
    for (const c of changes.filter((c) => c.values.length === 0)) {
      const cur = current.find((s) => s.name === c.name && s.type === c.type)
      if (cur) parts.push(`<Change><Action>DELETE</Action>${set(cur.name, cur.type, cur.ttl, cur.values, cur.native)}</Change>`)
    }
    for (const c of changes.filter((c) => c.values.length > 0)) {
      const cur = current.find((s) => s.name === c.name && s.type === c.type)
      parts.push(`<Change><Action>UPSERT</Action>${set(c.name, c.type, c.ttl, c.values, { ...cur?.native, ...c.native })}</Change>`)
    }
    if (parts.length === 0) return
    const body = `<?xml version="1.0" encoding="UTF-8"?>\n<ChangeResourceRecordSetsRequest xmlns="${NS}"><ChangeBatch><Comment>Portico</Comment><Changes>${parts.join('')}</Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`
    await this.call('POST', `/2013-04-01/hostedzone/${encodeURIComponent(zone.id)}/rrset/`, body)
  }
}

/** Route 53's 400 InvalidChangeBatch on a DELETE that no longer matches the set ("…but the values
 * provided do not match the current values", "…but it was not found"): the zone changed meanwhile. */
const isStaleDelete = (e: unknown) => e instanceof ProviderError && e.status === 400 && /Tried to delete resource record set .*(values provided do not match|it was not found)/.test(e.message)

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'route53',
  defaultBase: ROUTE53_API,
  make: (s, o) => new Route53Provider(s, o.base),
  token_url: 'https://console.aws.amazon.com/iam/home#/security_credentials',
  token_scopes: ['route53:ListHostedZones', 'route53:ListResourceRecordSets', 'route53:ChangeResourceRecordSets'],
  credential: 'IAM access key (access_key_id:secret_access_key)',
}
