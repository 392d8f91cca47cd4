// The platform edge: Caddy, configured only through its admin API. Portico owns three servers in it:
// - `portico` (EDGE_HTTPS_LISTEN): one route per served connection (`@id` `site-<connection id>`):
//   a reverse proxy to the connection's origin, or a redirect (apex to www); TLS with the certificates
//   Portico loaded (`@id` `cert-<connection id>`), else one obtained on demand from the ACME CA for a
//   name the ask gate approves;
// - `portico-http` (EDGE_HTTP_LISTEN): ACME HTTP-01 answers forwarded to Portico, everything else
//   redirected to https;
// - `portico-ask` (EDGE_ASK_LISTEN, loopback): the address Caddy's on-demand TLS asks. Caddy's ask is
//   a plain GET, so this server turns it into Portico's `POST /v1/internal/ask` carrying the edge
//   shared secret (`X-Edge-Auth`); it must not be reachable from outside the host.
// Caddy keeps no state of ours across a restart: `sync` loads the base configuration when it is
// missing, and the edge sweep puts back every site and certificate `present` does not list.
//
// The edge may be several Caddy nodes (EDGE_ADMIN_URLS): `EdgeFleet` is an Edge over one CaddyEdge
// per node. Desired state lives in PostgreSQL; the fleet carries each change to every node at once,
// concurrently, and a node that fails or does not answer within FLEET_DEADLINE_MS is marked down,
// reported (`states()`, in /healthz) and skipped until the edge sweep, which reconciles every node on
// its own (`reconcileEach`): a restarted or new node gets the servers, routes and certificates it
// lacks, without touching the others. A certificate is issued once (by Portico, through ACME) and
// loaded on every node; HTTP-01 answers and the ask gate are forwarded to Portico by whichever node
// the CA or the visitor reaches. Certificates Caddy obtains itself on demand go to its storage
// (EDGE_STORAGE): shared by the nodes, one node's certificate serves on all and Caddy's storage locks
// keep two nodes from ordering the same name.
import type { Clock } from '../clock.ts'
import type { AcmeSettings } from './acme.ts'
import { canonicalJson } from '../json.ts'
import { errorFields, log } from '../logger.ts'

export interface SiteRoute {
  host: string
  /** `dial`: the origin address that was checked (the origin's Host and TLS name are still sent). */
  action: { kind: 'proxy'; origin: URL; dial: string; rootPath: string | null } | { kind: 'redirect'; to: string }
}

export interface Edge {
  /** Loads Portico's servers when Caddy does not have them (or has them with other settings); answers whether it had to. */
  sync(): Promise<boolean>
  /** The ids (`site-<connection id>-<n>`, `cert-<connection id>`) of what is on the edge now. */
  present(): Promise<Set<string>>
  putSite(connectionId: string, routes: SiteRoute[]): Promise<void>
  removeSite(connectionId: string): Promise<void>
  putCertificate(connectionId: string, certPem: string, keyPem: string): Promise<void>
  removeCertificate(connectionId: string): Promise<void>
  /** Answers when the node's admin API answers (a cheap, short call); throws when it does not. */
  ping?(): Promise<void>
  /**
   * Whether every node answers now (probed when the last answer is older than a few seconds): an
   * ACME HTTP-01 challenge may reach any node, so no order is placed while one cannot serve it.
   */
  canServe?(): Promise<boolean>
}

export class EdgeError extends Error {}

const portOf = (listen: string) => Number(listen.slice(listen.lastIndexOf(':') + 1))

function proxyHandlers(origin: URL, dial: string, rootPath: string | null): unknown[] {
  const https = origin.protocol === 'https:'
  const port = origin.port || (https ? '443' : '80')
  const handlers: unknown[] = []
  const prefix = `${origin.pathname.replace(/\/+$/, '')}${rootPath ? `/${rootPath.replace(/^\/+|\/+$/g, '')}` : ''}`
  if (prefix) handlers.push({ handler: 'rewrite', uri: `${prefix}{http.request.uri}` })
  handlers.push({
    handler: 'reverse_proxy',
    upstreams: [{ dial: `${dial.includes(':') ? `[${dial}]` : dial}:${port}` }],
    headers: { request: { set: { Host: [origin.host], 'X-Forwarded-Host': ['{http.request.host}'] } } },
    ...(https ? { transport: { protocol: 'http', tls: { server_name: origin.hostname } } } : {}),
  })
  return handlers
}

function route(connectionId: string, r: SiteRoute, i: number): unknown {
  const handle =
    r.action.kind === 'proxy'
      ? proxyHandlers(r.action.origin, r.action.dial, r.action.rootPath)
      : [{ handler: 'static_response', status_code: 301, headers: { Location: [`https://${r.action.to}{http.request.uri}`] } }]
  return { '@id': `site-${connectionId}-${i}`, match: [{ host: [r.host] }], handle, terminal: true }
}

/**
 * The platform edge's settings (EDGE_ADMIN_URL and its fellows, read by src/config.ts). `upstream` is
 * how the edge reaches Portico (the ask gate and HTTP-01 answers); `nodes` is the fleet, `adminUrl` its
 * first node; `storage` is Caddy's storage module, shared by the nodes.
 */
export interface EdgeSettings {
  adminUrl: string
  nodes: EdgeNodeSettings[]
  storage: Record<string, unknown> | null
  httpListen: string
  httpsListen: string
  askListen: string
  upstream: string
}

export interface EdgeNodeSettings {
  /** How operators know the node (health output, logs): `name=` in EDGE_ADMIN_URLS, else the admin URL's host:port. */
  name: string
  adminUrl: string
  bindHost: string | null
}

/** Pauses before each further try of an admin call whose connection was reset or refused. */
export const ADMIN_RETRY_MS = [50, 200, 500]

/** `send`, tried again after each pause of ADMIN_RETRY_MS while its connection is reset or refused. */
async function withRetries(send: () => Promise<Response>): Promise<Response> {
  for (let i = 0; ; i++) {
    try {
      return await send()
    } catch (err) {
      const code = (err as { code?: string } | null)?.code
      if (i >= ADMIN_RETRY_MS.length || (code !== 'ECONNRESET' && code !== 'ECONNREFUSED')) throw err
      await Bun.sleep(ADMIN_RETRY_MS[i]!)
    }
  }
}

export class CaddyEdge implements Edge {
  constructor(
    private readonly settings: EdgeSettings,
    private readonly secret: string,
    private readonly acme: AcmeSettings | null,
  ) {}

  private async call(method: string, path: string, body?: unknown, okMissing = false): Promise<unknown> {
    // Caddy replaces its admin server on every configuration change (its own, or another client's):
    // the old listener closes the connections it holds, and the new one is not yet listening. So a
    // fresh connection per call (no keep-alive), and when it is reset or refused a few more tries,
    // spaced out past the replacement (an immediate second try met the same closing listener).
    const send = () =>
      fetch(`${this.settings.adminUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        keepalive: false,
        signal: AbortSignal.timeout(10_000),
      })
    let res: Response
    try {
      res = await withRetries(send)
    } catch (err) {
      throw new EdgeError(`edge admin API unreachable: ${(err as Error).message}`)
    }
    const text = await res.text()
    if (okMissing && (res.status === 404 || ((res.status === 400 || res.status === 500) && /unknown object ID|not found|invalid traversal/i.test(text)))) return null
    if (!res.ok) throw new EdgeError(`edge admin API ${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
    return text ? JSON.parse(text) : null
  }

  private base(): unknown {
    const s = this.settings
    const admin = new URL(s.adminUrl)
    const storage = s.storage ? { storage: s.storage } : {}
    const noAuto = { disable: true }
    const tls: Record<string, unknown> = { certificates: { load_pem: [] } }
    if (this.acme) {
      tls.automation = {
        policies: [
          {
            on_demand: true,
            issuers: [
              {
                module: 'acme',
                ca: this.acme.directoryUrl,
                ...(this.acme.email ? { email: this.acme.email } : {}),
                ...(this.acme.caRoots ? { trusted_roots_pem_files: [this.acme.caRoots] } : {}),
                challenges: { http: { alternate_port: portOf(s.httpListen) }, 'tls-alpn': { disabled: true } },
              },
            ],
          },
        ],
        // `ask` is deprecated since Caddy 2.8 in favour of `permission` (module `http`, same GET with
        // `?domain=`); the Caddy this project runs and tests against (Debian's 2.6.2) has no
        // `tls.permission.*` module (`caddy list-modules`), so `ask` stays until the edge requires 2.8.
        on_demand: { ask: `http://${s.askListen.startsWith(':') ? `127.0.0.1${s.askListen}` : s.askListen}/ask` },
      }
    }
    return {
      admin: { listen: admin.host },
      ...storage,
      apps: {
        http: {
          http_port: portOf(s.httpListen),
          https_port: portOf(s.httpsListen),
          servers: {
            portico: { listen: [s.httpsListen], automatic_https: noAuto, tls_connection_policies: [{}], routes: [] },
            'portico-http': {
              listen: [s.httpListen],
              automatic_https: noAuto,
              routes: [
                { match: [{ path: ['/.well-known/acme-challenge/*'] }], handle: [{ handler: 'reverse_proxy', upstreams: [{ dial: s.upstream }] }], terminal: true },
                { handle: [{ handler: 'static_response', status_code: 308, headers: { Location: ['https://{http.request.host}{http.request.uri}'] } }] },
              ],
            },
            'portico-ask': {
              listen: [s.askListen],
              automatic_https: noAuto,
              routes: [
                {
                  handle: [
                    { handler: 'rewrite', method: 'POST', uri: '/v1/internal/ask?{http.request.uri.query}' },
                    { handler: 'reverse_proxy', upstreams: [{ dial: s.upstream }], headers: { request: { set: { 'X-Edge-Auth': [this.secret] } } } },
                  ],
                },
              ],
            },
          },
        },
        tls,
      },
    }
  }

  async sync(): Promise<boolean> {
    const servers = (await this.call('GET', '/config/apps/http/servers', undefined, true)) as Record<string, unknown> | null
    const want = (this.base() as { apps: { http: { servers: Record<string, unknown> } } }).apps.http.servers
    // Loaded already, with today's settings (a changed secret or upstream reloads it). Caddy answers
    // its configuration with keys in its own order: compare with keys sorted.
    const same = (name: string) => canonicalJson(servers?.[name]) === canonicalJson(want[name])
    const storageSame = async () => !this.settings.storage || canonicalJson(await this.call('GET', '/config/storage', undefined, true)) === canonicalJson(this.settings.storage)
    if (servers?.portico && same('portico-http') && same('portico-ask') && (await storageSame())) return false
    await this.call('POST', '/load', this.base())
    return true
  }

  /** The `@id`s of the routes and certificates Portico put on the edge that are there now. */
  async present(): Promise<Set<string>> {
    const routes = ((await this.call('GET', '/config/apps/http/servers/portico/routes', undefined, true)) ?? []) as { '@id'?: string }[]
    const certs = ((await this.call('GET', '/config/apps/tls/certificates/load_pem', undefined, true)) ?? []) as { '@id'?: string }[]
    return new Set([...routes, ...certs].map((x) => x['@id']).filter((id): id is string => !!id))
  }

  private ready: Promise<boolean> | null = null

  /** Portico's servers are on the edge before anything is put there (once per process, again after a failure). */
  private ensure(): Promise<boolean> {
    this.ready ??= this.sync().catch((err) => {
      this.ready = null
      throw err
    })
    return this.ready
  }

  /**
   * A failed change may mean the edge lost our servers (it restarted): check again, and when they had
   * to be loaded, try the change once more.
   */
  private async change(fn: () => Promise<void>): Promise<void> {
    await this.ensure()
    try {
      await fn()
    } catch (err) {
      this.ready = null
      if (!(await this.ensure().catch(() => false))) throw err
      await fn()
    }
  }

  putSite(connectionId: string, routes: SiteRoute[]): Promise<void> {
    return this.change(async () => {
      await this.removeSite(connectionId)
      for (const [i, r] of routes.entries()) await this.call('POST', '/config/apps/http/servers/portico/routes', route(connectionId, r, i))
    })
  }

  async removeSite(connectionId: string): Promise<void> {
    // A site has at most two routes (the host and its www redirect).
    for (const i of [0, 1]) await this.call('DELETE', `/id/site-${connectionId}-${i}`, undefined, true)
  }

  putCertificate(connectionId: string, certPem: string, keyPem: string): Promise<void> {
    return this.change(async () => {
      await this.removeCertificate(connectionId)
      await this.call('POST', '/config/apps/tls/certificates/load_pem', { '@id': `cert-${connectionId}`, certificate: certPem, key: keyPem, tags: [connectionId] })
    })
  }

  async removeCertificate(connectionId: string): Promise<void> {
    await this.call('DELETE', `/id/cert-${connectionId}`, undefined, true)
  }

  async ping(): Promise<void> {
    try {
      const res = await fetch(`${this.settings.adminUrl}/config/apps/http/servers`, { keepalive: false, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
      await res.arrayBuffer()
    } catch (err) {
      throw new EdgeError(`edge admin API unreachable: ${(err as Error).message}`)
    }
  }
}

/** A node's settings: its admin URL, and its listeners on its own host when it binds one. */
export function nodeSettings(settings: EdgeSettings, node: EdgeNodeSettings): EdgeSettings {
  const on = (listen: string) => (node.bindHost ? `${node.bindHost.includes(':') ? `[${node.bindHost}]` : node.bindHost}:${portOf(listen)}` : listen)
  return { ...settings, adminUrl: node.adminUrl, httpListen: on(settings.httpListen), httpsListen: on(settings.httpsListen), askListen: on(settings.askListen) }
}

/** What operators see of each node (GET /healthz). */
export interface EdgeNodeState {
  node: string
  status: 'up' | 'down' | 'unknown'
  last_error: string | null
  /** The last time the node answered a call. */
  last_seen_at: string | null
  /** The last time the sweep found it in the desired state or brought it there. */
  last_reconciled_at: string | null
}

/** How long a change waits for one node before marking it down and leaving it to the sweep. */
export const FLEET_DEADLINE_MS = 5_000
/** Edge health is live: a node's state older than this is probed again before it is reported or relied on. */
export const HEALTH_MAX_AGE_MS = 2_000
/** How long a health probe waits for a node's admin API. */
export const PROBE_TIMEOUT_MS = 1_500

export class EdgeFleet implements Edge {
  private readonly state = new Map<string, EdgeNodeState>()
  /** When each node's state was last learned (a call or a probe), in real time. */
  private readonly learned = new Map<string, number>()
  private probing: Promise<void> | null = null

  constructor(
    readonly nodes: { name: string; edge: Edge }[],
    private readonly clock: Clock,
    private readonly deadlineMs = FLEET_DEADLINE_MS,
  ) {
    for (const n of nodes) this.state.set(n.name, { node: n.name, status: 'unknown', last_error: null, last_seen_at: null, last_reconciled_at: null })
  }

  states(): EdgeNodeState[] {
    return this.nodes.map((n) => ({ ...this.state.get(n.name)! }))
  }

  /** Each node's state, none older than `maxAgeMs` (nodes not heard from since are probed, together). */
  async health(maxAgeMs = HEALTH_MAX_AGE_MS): Promise<EdgeNodeState[]> {
    const stale = () => this.nodes.filter((n) => n.edge.ping && performance.now() - (this.learned.get(n.name) ?? -Infinity) >= maxAgeMs)
    if (stale().length) {
      this.probing ??= Promise.all(stale().map((n) => this.attempt(n, (e) => e.ping!(), false))).then(() => {
        this.probing = null
      })
      await this.probing
    }
    return this.states()
  }

  async canServe(maxAgeMs = HEALTH_MAX_AGE_MS): Promise<boolean> {
    return (await this.health(maxAgeMs)).every((s) => s.status === 'up')
  }

  async ping(): Promise<void> {
    if (!(await this.canServe(0))) throw new EdgeError(`edge nodes down: ${this.states().filter((s) => s.status !== 'up').map((s) => s.node).join(', ')}`)
  }

  private mark(name: string, err: unknown): void {
    this.learned.set(name, performance.now())
    const s = this.state.get(name)!
    if (err === null) {
      if (s.status === 'down') log.info('edge node back', { node: name })
      Object.assign(s, { status: 'up', last_error: null, last_seen_at: this.clock.now().toISOString() })
    }
    else {
      if (s.status !== 'down') log.warn('edge node down', { node: name, ...errorFields(err) })
      Object.assign(s, { status: 'down', last_error: ((err as Error).message ?? String(err)).slice(0, 300) })
    }
  }

  /** One node's call, bounded by the deadline; answers whether it succeeded, its state noted. */
  private async attempt<T>(n: { name: string; edge: Edge }, fn: (edge: Edge) => Promise<T>, deadline = true): Promise<{ ok: true; value: T } | { ok: false }> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<never>((_, reject) => {
      if (deadline) timer = setTimeout(() => reject(new EdgeError(`no answer within ${this.deadlineMs} ms`)), this.deadlineMs)
    })
    try {
      const value = await Promise.race([fn(n.edge), late])
      this.mark(n.name, null)
      return { ok: true, value }
    } catch (err) {
      this.mark(n.name, err)
      return { ok: false }
    } finally {
      clearTimeout(timer)
    }
  }

  /**
   * A change on every node not known to be down (on all of them when none is up), concurrently. It
   * stands when one node took it; the others are reconciled by the sweep. No node taking it is an
   * EdgeError, as for a single edge.
   */
  private async fanOut<T>(what: string, fn: (edge: Edge) => Promise<T>): Promise<T[]> {
    const up = this.nodes.filter((n) => this.state.get(n.name)!.status !== 'down')
    const results = await Promise.all((up.length ? up : this.nodes).map((n) => this.attempt(n, fn)))
    const values = results.flatMap((r) => (r.ok ? [r.value] : []))
    if (values.length === 0) throw new EdgeError(`no edge node took ${what}: ${this.states().map((s) => `${s.node}: ${s.last_error}`).join('; ')}`)
    return values
  }

  /** Every node, down ones included (this is how a node that came back is noticed). */
  async sync(): Promise<boolean> {
    const results = await Promise.all(this.nodes.map((n) => this.attempt(n, (e) => e.sync())))
    if (!results.some((r) => r.ok)) throw new EdgeError('no edge node answered')
    return results.some((r) => r.ok && r.value)
  }

  /** What every reachable node has (what one node lacks is put back by reconcileEach). */
  async present(): Promise<Set<string>> {
    const sets = await this.fanOut('a read', (e) => e.present())
    return new Set([...sets[0]!].filter((id) => sets.every((s) => s.has(id))))
  }

  async putSite(connectionId: string, routes: SiteRoute[]): Promise<void> {
    await this.fanOut('the route', (e) => e.putSite(connectionId, routes))
  }

  async removeSite(connectionId: string): Promise<void> {
    await this.fanOut('the route removal', (e) => e.removeSite(connectionId))
  }

  async putCertificate(connectionId: string, certPem: string, keyPem: string): Promise<void> {
    await this.fanOut('the certificate', (e) => e.putCertificate(connectionId, certPem, keyPem))
  }

  async removeCertificate(connectionId: string): Promise<void> {
    await this.fanOut('the certificate removal', (e) => e.removeCertificate(connectionId))
  }

  /**
   * The sweep's pass: on every node at once, load Portico's servers if missing, then `restore` what
   * that node lacks. A node that fails is reported and costs the others nothing. Answers the sum.
   */
  async reconcile(restore: (node: Edge) => Promise<number>): Promise<number> {
    const results = await Promise.all(
      this.nodes.map(async (n) => {
        const r = await this.attempt(n, async (e) => (await e.sync(), restore(e)), false)
        if (r.ok) this.state.get(n.name)!.last_reconciled_at = this.clock.now().toISOString()
        return r.ok ? r.value : 0
      }),
    )
    return results.reduce((a, b) => a + b, 0)
  }
}

/** The sweep's entry: every node of a fleet reconciled on its own, or the one edge synced and restored. */
export async function reconcileEach(edge: Edge, restore: (node: Edge) => Promise<number>): Promise<number> {
  if (edge instanceof EdgeFleet) return edge.reconcile(restore)
  await edge.sync()
  return restore(edge)
}

/** The configured fleet: one CaddyEdge per node (one node for EDGE_ADMIN_URL). */
export function edgeFromConfig(config: { edgeServer: EdgeSettings | null; edgeAuthSecret: string | null; acme: AcmeSettings | null }, clock: Clock): EdgeFleet | undefined {
  const s = config.edgeServer
  if (!s) return undefined
  return new EdgeFleet(s.nodes.map((n) => ({ name: n.name, edge: new CaddyEdge(nodeSettings(s, n), config.edgeAuthSecret!, config.acme) })), clock)
}
