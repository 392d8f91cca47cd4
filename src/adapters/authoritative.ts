// Lookups asked of a zone's own nameservers, with no resolver cache in between: what verification
// uses, so a customer's DNS change is seen the moment their provider serves it. A recursive resolver
// would answer from its cache, and a name first asked before its record existed stays NXDOMAIN there
// for the zone's negative TTL (RFC 2308 §5; an hour with many providers' SOA).
//
// How a lookup goes:
// - The zone is found through the configured (recursive) resolvers: the nearest enclosing name,
//   from the registrable domain upward, that has an NS set; its servers' addresses likewise. Both are
//   cached for their TTL (bounded), and a failed search for a short while.
// - The question goes to every server of the zone without recursion (RD=0). A referral (the name
//   was delegated further down) is followed; so is a CNAME that leaves the zone, to the zone of its
//   target, as a resolver would.
// - The servers must agree. One that does not answer, answers without authority (lame), or disagrees
//   with the others makes the lookup a resolver failure naming every server and what it said: the
//   verification is then inconclusive, never "not propagated". So do zone servers none of which
//   answers (silent, refusing, SERVFAIL), and a zone that could not be searched for because the
//   resolvers failed: nothing was learned from the zone itself, so there is no verdict, and the
//   recursive resolvers' NXDOMAIN (perhaps cached) is never taken for one.
// - Only when the zone has no servers that could be asked (no NS set exists, or none of its servers
//   has an address: a delegation nothing can reach) does the lookup use the recursive resolvers'
//   answer, and says so (`via: recursive`).
import { getDomain } from 'tldts'
import type { Dns, Lookup, LookupType } from './dns.ts'
import { toLookup, TYPE_CODE, type Decoded, type Resolver } from './resolver.ts'

const TYPE_NS = 2
const TYPE_CNAME = 5
const RCODE_NXDOMAIN = 3
/** Hops across zones (referrals and CNAMEs leaving a zone) before a lookup gives up. */
const MAX_HOPS = 8
/** At most this many servers of a zone are asked. */
const MAX_SERVERS = 8
/** Cache bounds for zone cuts and server addresses, whatever their TTLs say. */
const MIN_CACHE_MS = 30_000
const MAX_CACHE_MS = 3_600_000
/** A zone that could not be found (or had no reachable address) is searched again after this. */
const NEGATIVE_CACHE_MS = 30_000
/** Entries per cache: past it the cache starts over (a sweep refills what it uses in one pass). */
const MAX_ENTRIES = 100_000

function remember<T>(cache: Map<string, Cached<T>>, key: string, value: T, forMs: number, now: number): void {
  if (cache.size >= MAX_ENTRIES) cache.clear()
  cache.set(key, { value, until: now + forMs })
}

type SourcedLookup = Lookup & { via: NonNullable<Lookup['via']> }

interface NameServer {
  name: string
  /** `host:port` to ask. */
  address: string
}

interface Zone {
  name: string
  servers: NameServer[]
}

interface Cached<T> {
  value: T
  until: number
}

export interface AuthoritativeOptions {
  /** Port the zones' servers answer on: 53, except in tests of Portico itself. */
  port?: number
  now?: () => number
}

const norm = (n: string) => n.toLowerCase().replace(/\.$/, '')
const parentOf = (n: string) => n.slice(n.indexOf('.') + 1)
const cacheMs = (ttlSeconds: number) => Math.min(MAX_CACHE_MS, Math.max(MIN_CACHE_MS, ttlSeconds * 1000))
const hostPort = (ip: string, port: number) => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`)

/** How one server's reply reads: an answer, a referral further down, or why it does not count. */
type Reply = { kind: 'answer'; lookup: Lookup } | { kind: 'referral'; zone: string; ns: string[]; glue: Map<string, string> } | { kind: 'failed'; said: string }

function classify(o: Decoded | string, name: string, code: number): Reply {
  if (typeof o === 'string') return { kind: 'failed', said: o }
  if (o.rcode !== 0 && o.rcode !== RCODE_NXDOMAIN) return { kind: 'failed', said: `rcode ${o.rcode}` }
  if (o.authoritative) return { kind: 'answer', lookup: toLookup(o, name, code) }
  // Without authority: a referral to a zone cut below (NS in the authority section), or a lame server.
  const ns = o.authority.filter((r) => r.type === TYPE_NS)
  const zone = ns[0]?.name
  if (zone && (name === zone || name.endsWith(`.${zone}`))) {
    const glue = new Map<string, string>()
    for (const r of o.additional) if (r.type === 1 && !glue.has(r.name)) glue.set(r.name, r.value)
    return { kind: 'referral', zone, ns: ns.filter((r) => r.name === zone).map((r) => norm(r.value)), glue }
  }
  return { kind: 'failed', said: 'not authoritative (lame)' }
}

/** What an answer says, comparable across servers. */
function fingerprint(l: Lookup): string {
  if (l.status !== 'ok') return l.status
  return `${l.cname ? `CNAME ${l.cname} ` : ''}${[...l.values].sort().join(', ')}`
}

export class AuthoritativeDns implements Dns {
  private readonly zones = new Map<string, Cached<Zone | null>>()
  private readonly addresses = new Map<string, Cached<string | null>>()
  private readonly inflight = new Map<string, Promise<Zone | null | string>>()
  private readonly port: number
  private readonly now: () => number

  /** `recursive` finds zones and addresses (and answers when no zone server can be asked). */
  constructor(
    private readonly recursive: Resolver,
    opts: AuthoritativeOptions = {},
  ) {
    this.port = opts.port ?? 53
    this.now = opts.now ?? Date.now
  }

  async lookup(name: string, type: LookupType): Promise<SourcedLookup> {
    return this.resolve(norm(name), type, 0)
  }

  private async resolve(name: string, type: LookupType, hops: number): Promise<SourcedLookup> {
    const zone = await this.zoneOf(name)
    if (!zone) return this.fallback(name, type)
    if (typeof zone === 'string') return { status: 'error', error: zone, via: 'authoritative' }
    const answered = await this.ask(zone, name, type, hops)
    if (answered === null) return this.fallback(name, type)
    const l = answered
    // A CNAME whose target lies outside the zone: the target's zone answers for the rest of the chain.
    if (l.status === 'ok' && l.cname && l.values.length === 0 && type !== 'CNAME' && hops < MAX_HOPS) {
      const target = await this.resolve(norm(l.cname), type, hops + 1)
      if (target.status === 'ok') return { ...target, cname: l.cname }
      if (target.status === 'error') return target
      return { status: 'ok', values: [], cname: l.cname, via: target.via }
    }
    return l
  }

  /**
   * Asks every server of the zone; null when a referral leads to servers without an address (the
   * caller reads the recursive view). None answering is a failure naming each server and what it said.
   */
  private async ask(zone: Zone, name: string, type: LookupType, hops: number): Promise<SourcedLookup | null> {
    const replies = await Promise.all(
      zone.servers.map(async (s) => ({ server: s, reply: classify(await this.recursive.exchange(s.address, name, type, { recursion: false }), name, TYPE_CODE[type]) })),
    )
    if (replies.every((r) => r.reply.kind === 'failed')) {
      const said = replies.map((r) => `${r.server.name} (${r.server.address}): ${(r.reply as Extract<Reply, { kind: 'failed' }>).said}`)
      return { status: 'error', error: `no nameserver of ${zone.name} could be asked: ${said.join('; ')}`, via: 'authoritative' }
    }
    const referral = replies.find((r) => r.reply.kind === 'referral')?.reply as Extract<Reply, { kind: 'referral' }> | undefined
    if (referral && replies.every((r) => r.reply.kind !== 'answer')) {
      if (hops >= MAX_HOPS) return { status: 'error', error: `too many referrals for ${name}`, via: 'authoritative' }
      const below = await this.delegated(referral)
      return below ? this.ask(below, name, type, hops + 1) : null
    }
    const said = replies.map((r) => `${r.server.name} (${r.server.address}): ${r.reply.kind === 'answer' ? fingerprint(r.reply.lookup) : r.reply.kind === 'referral' ? `referral to ${r.reply.zone}` : r.reply.said}`)
    const answers = replies.flatMap((r) => (r.reply.kind === 'answer' ? [r.reply.lookup] : []))
    if (answers.length < replies.length) return { status: 'error', error: `not every nameserver of ${zone.name} answered: ${said.join('; ')}`, via: 'authoritative' }
    if (new Set(answers.map(fingerprint)).size > 1) return { status: 'error', error: `the nameservers of ${zone.name} disagree: ${said.join('; ')}`, via: 'authoritative' }
    return { ...answers[0]!, via: 'authoritative' }
  }

  private async fallback(name: string, type: LookupType): Promise<SourcedLookup> {
    return { ...(await this.recursive.lookup(name, type)), via: 'recursive' }
  }

  /** The zone a referral points to, with its servers' addresses (glue first). */
  private async delegated(r: Extract<Reply, { kind: 'referral' }>): Promise<Zone | null> {
    const servers = await this.serversOf(r.ns, r.glue)
    if (servers.length === 0) return null
    const zone = { name: r.zone, servers }
    remember(this.zones, r.zone, zone, MIN_CACHE_MS, this.now())
    return zone
  }

  /**
   * The zone holding `name`: a cached zone cut if one encloses it, else found through the resolvers.
   * Null when there is none to ask; a string saying why when the search itself failed.
   */
  private zoneOf(name: string): Promise<Zone | null | string> {
    const now = this.now()
    for (let n = name; n.includes('.'); n = parentOf(n)) {
      const hit = this.zones.get(n)
      if (hit && hit.until > now) return Promise.resolve(hit.value)
    }
    // The search starts at the registrable domain (names below it are delegated further only rarely,
    // and the referrals of its servers lead there); a name under an unknown suffix starts at itself.
    const start = getDomain(name, { allowPrivateDomains: true }) ?? name
    let p = this.inflight.get(start)
    if (!p) {
      p = this.findZone(start).finally(() => this.inflight.delete(start))
      this.inflight.set(start, p)
    }
    return p
  }

  private async findZone(start: string): Promise<Zone | null | string> {
    for (let n = start; n.includes('.'); n = parentOf(n)) {
      const o = await this.recursive.query(n, 'NS')
      // The resolvers failed (no answer, SERVFAIL): the zone is unknown, not absent. Not cached.
      if (typeof o === 'string' || o.rcode === 2) return `the nameservers of ${n} could not be looked up: the resolvers said ${typeof o === 'string' ? o : 'SERVFAIL'}`
      if (o.rcode !== 0 && o.rcode !== RCODE_NXDOMAIN) break
      const ns = o.answers.filter((a) => a.type === TYPE_NS && a.name === n)
      if (ns.length === 0 || o.answers.some((a) => a.type === TYPE_CNAME && a.name === n)) continue
      const servers = await this.serversOf(ns.map((a) => norm(a.value)), new Map())
      const zone = servers.length > 0 ? { name: n, servers } : null
      const ttl = Math.min(...ns.map((a) => a.ttl))
      remember(this.zones, n, zone, zone ? cacheMs(ttl) : NEGATIVE_CACHE_MS, this.now())
      return zone
    }
    remember(this.zones, start, null, NEGATIVE_CACHE_MS, this.now())
    return null
  }

  /** Each nameserver with its first IPv4 address (glue when given); names without one are left out. */
  private async serversOf(names: string[], glue: Map<string, string>): Promise<NameServer[]> {
    const found = await Promise.all(names.slice(0, MAX_SERVERS).map(async (n) => ({ name: n, ip: glue.get(n) ?? (await this.addressOf(n)) })))
    return found.flatMap((s) => (s.ip ? [{ name: s.name, address: hostPort(s.ip, this.port) }] : []))
  }

  private async addressOf(host: string): Promise<string | null> {
    const hit = this.addresses.get(host)
    if (hit && hit.until > this.now()) return hit.value
    const o = await this.recursive.query(host, 'A')
    let ip: string | null = null
    let ttl = 0
    if (typeof o !== 'string' && o.rcode === 0) {
      const l = toLookup(o, host, 1)
      ip = l.status === 'ok' ? (l.values[0] ?? null) : null
      ttl = Math.min(...o.answers.filter((a) => a.type === 1).map((a) => a.ttl), MAX_CACHE_MS / 1000)
    }
    remember(this.addresses, host, ip, ip ? cacheMs(ttl) : NEGATIVE_CACHE_MS, this.now())
    return ip
  }
}
