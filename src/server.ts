// Wiring: from a Config to a running Portico (database, migrations, services, HTTP app). Used by
// src/main.ts and by the tests, so tests exercise the same assembly as production.
import type { createApp as CreateApp } from './http/app.ts'
import { MovableClock, type Clock } from './clock.ts'
import { validCredentialHashes } from './db/api-keys.ts'
import type { Config } from './config.ts'
import { connect, type Sql } from './db/sql.ts'
import { Lifecycle } from './lifecycle.ts'
import { migrate, type MigrationReport } from './db/migrate.ts'
import { DatabaseWatch } from './db/watch.ts'
import { WIDGET_TOKEN_MAX_TTL_SECONDS, WidgetTokens } from './domain/widget-tokens.ts'
import { createApp, createHandler } from './http/app.ts'
import { OPERATIONS } from './ops/index.ts'
import { withOpenApi } from './http/openapi.ts'
import type { Services } from './services.ts'
import { peopleMailWarning, workspaceMail } from '../oauth/mail.ts'
import { log, setLogLevel } from './logger.ts'
import { DnsHealth } from './domain/dns-health.ts'
import { docsMount } from './http/docs.ts'
import { playgroundMount } from './http/playground.ts'
import { allowFailpoints } from './failpoints.ts'
import { KeyCache } from './adapters/key-cache.ts'
import type { KeyPrincipal } from './domain/principal.ts'
import { Resolver } from './adapters/resolver.ts'
import { startJobs, VERIFY_QUEUE, WEBHOOK_QUEUE, type Sweep } from './jobs/index.ts'
import { deliverAll, nextDeliveryDue } from './domain/webhook-delivery.ts'
import { sweepDue } from './jobs/verify-sweep.ts'
import { nextVerifyDue } from './db/verification.ts'
import { AuthoritativeDns } from './adapters/authoritative.ts'
import { createAuthServer, oauthMount } from '../oauth/provider.ts'
import { cleanupAgentClients } from '../oauth/register.ts'
import { consentMount } from '../oauth/consent.ts'
import { peopleMount } from '../oauth/agents-page.ts'
import { signInMailSettled } from '../oauth/people.ts'
import { confirmMount } from '../oauth/confirm-page.ts'
import { registrationMount, REGISTRATION_LIMITS } from '../oauth/register.ts'
import { addressOfRequest, trustedProxies } from './client-address.ts'
import { metadataMount } from '../mcp/metadata.ts'
import { mcpMount } from '../mcp/server.ts'
import { paymentsFromConfig } from './adapters/payments/from-config.ts'
import { SandboxRegistrar } from './adapters/registrar/sandbox.ts'
import { NamecomRegistrar } from './adapters/registrar/namecom.ts'
import { sellExpirySweep } from './jobs/sell-expiry.ts'
import { sellResumeSweep } from './jobs/sell-resume.ts'
import { monitorSweep } from './jobs/monitor-sweep.ts'
import { paymentsWebhookMount } from './http/payments-webhook.ts'
import { widgetMount } from './widget/route.ts'
import { sharePageMount } from './share/page.ts'
import { apiKeyProviders } from './adapters/dns-providers/index.ts'
import { managedRepairRail } from './domain/grants.ts'
import { oauthProviders } from './domain/provider-oauth.ts'
import { TemplateCatalog } from './domain/templates.ts'
import { discover } from './domain/domain-connect/discovery.ts'
import { cleanupSessions } from './domain/domain-connect/async-api.ts'
import { edgeFromConfig } from './adapters/edge.ts'
import { AcmeIssuer } from './adapters/acme.ts'
import { DcvZone } from './adapters/dcv.ts'
import { challengeAnswer } from './db/acme.ts'
import { edgeSweep, issueSweep, watchEdge, type EdgeSweepDeps } from './jobs/edge-sweep.ts'
import type { AppDeps, Mount } from './http/app.ts'
import { deleteExpiredKeys } from './db/idempotency.ts'
import { purgeWidgetTokens, revokedWidgetTokenIds } from './db/widget-tokens.ts'
import { FailureThrottle } from './domain/throttle.ts'
import { VALID_PREFIX } from './db/channels.ts'
import { RateLimits } from './domain/rate-limits.ts'
import { ConnectionViews } from './domain/connection-views.ts'
import { metricsMount } from './http/metrics.ts'
import { statusCountsSweep } from './jobs/status-counts.ts'
import { checkEvents } from './domain/events.ts'
import { eventRetentionSweep } from './jobs/event-retention.ts'

/** ACME HTTP-01 answers, for the edge to forward `/.well-known/acme-challenge/<token>` to. */
function acmeChallengeMount(db: Sql): Mount {
  return (app) => {
    app.get('/.well-known/acme-challenge/:token', async ({ params }) => {
      const answer = await challengeAnswer(db, params.token)
      return new Response(answer ?? 'not found', { status: answer ? 200 : 404, headers: { 'content-type': 'text/plain' } })
    })
    return app
  }
}

/** The edge reconciler, and certificate orders as soon as a connection goes live when a CA is configured. */
const edgeSweeps = (deps: EdgeSweepDeps): Sweep[] => [edgeSweep(deps), ...(deps.issuer ? [issueSweep(deps)] : [])]

export interface Portico {
  config: Config
  db: Sql
  clock: Clock
  services: Services
  app: ReturnType<typeof CreateApp>
  /** Handles one request without a socket (tests). */
  handle: (req: Request, ip?: string | null) => Promise<Response>
  /** Stops the workers (runs in flight get `graceMs` to finish, then their jobs are handed back) and closes every pool. */
  close(graceMs?: number): Promise<void>
}

/** What a start says of the schema: what it applied, and any released migration whose file differs from what ran. */
function logMigrations(report: MigrationReport): void {
  log.info('migrations', { applied: report.applied, ...(report.recorded ? { checksums_recorded: report.recorded } : {}) })
  for (const c of report.changed) {
    log.error('migration changed after it was applied', { migration: c.name, applied_sha256: c.applied, file_sha256: c.file, hint: 'a released migration never changes: restore the file and fix forward with a new migration' })
  }
  if (report.unknown.length) log.warn('database has migrations this release does not have', { migrations: report.unknown, hint: 'a newer release ran them (a rollback): see docs/operations.md' })
}

export async function createPortico(config: Config, opts: { clock?: Clock; databaseUrl: string; poolSize?: number; lifecycle?: Lifecycle }): Promise<Portico> {
  setLogLevel(config.logLevel)
  if (config.appEnv === 'test') allowFailpoints(true)
  // In tests every event built is checked against the event registry.
  checkEvents(config.appEnv === 'test')
  const db = connect(opts.databaseUrl, opts.poolSize ?? 10, { statementMs: config.deadlines.statementMs, connectMs: 3000 })
  const clock = opts.clock ?? new MovableClock()
  logMigrations(await migrate(db))
  const lifecycle = opts.lifecycle ?? new Lifecycle()
  const { throttle, widgetTokens, revocations } = await credentialState(config, db, clock, opts.databaseUrl)
  const resolver = new Resolver({ servers: config.dnsResolvers, timeoutMs: config.dnsTimeoutMs })
  const services = buildServices({ config, db, clock, resolver, lifecycle, databaseUrl: opts.databaseUrl, throttle, widgetTokens, keyCache: config.apiKeyCache ? revocations : undefined })
  // The watch's probe connection is opened now, while the server has room for it.
  await services.database?.state()
  services.jobs = await startJobs(opts.databaseUrl, sweepsOf({ config, db, clock, services, resolver, stopping: () => lifecycle.stopping }), { work: config.role !== 'api', now: () => clock.now().getTime() })
  // A worker watches the edge: a node coming back wakes the certificate orders that waited for it.
  const edgeWatch = services.edge && config.role !== 'api' ? watchEdge({ db, clock, config, dns: resolver, edge: services.edge, issuer: services.issuer, dcv: services.dcv }, services.jobs.kick) : null
  const deps = { config, db, clock, services, ops: withOpenApi(OPERATIONS) }
  const { mounts, handler } = await facesOf(deps)
  return {
    config,
    db,
    clock,
    services,
    app: createApp(deps, mounts),
    handle: (req, ip = '127.0.0.1') => handler(req, ip),
    async close(graceMs?: number) {
      lifecycle.stop()
      edgeWatch?.stop()
      await services.jobs?.stop(graceMs)
      // Sign-in mail asked for before the stop still goes out (it is sent after its answer: oauth/people.ts).
      await signInMailSettled()
      await services.database?.stop()
      await resolver.close()
      await revocations.close()
      await db.close()
    },
  }
}

/**
 * What credentials are checked against in memory: the failure throttle with every credential valid now
 * (keys, client secrets, invitations, sign-in links), the widget tokens with their revocations, and
 * the revocation notifications that keep both (and the API-key cache) current.
 */
async function credentialState(config: Config, db: Sql, clock: Clock, databaseUrl: string) {
  const throttle = new FailureThrottle(config.authFailureBudget, () => clock.now().getTime())
  // A restart, or a credential minted on another process before this one started, is not left to its neighbours' budget.
  for (const hex of await validCredentialHashes(db, clock.now(), 50_000)) throttle.vouch(hex)
  const widgetTokens = new WidgetTokens(config.secretsKey, config.publicUrl)
  // Revoked widget tokens: read now, and again whenever the revocation notifications (re)start.
  const readRevoked = () => revokedWidgetTokenIds(db, clock.now()).then((ids) => widgetTokens.revoked.replace(ids)).catch(() => {})
  await readRevoked()
  const onRevoked = (payload: string) => {
    if (payload.startsWith('wtk_')) widgetTokens.revoked.add(payload, clock.now().getTime() + WIDGET_TOKEN_MAX_TTL_SECONDS * 1000)
    // A credential made valid on any process (notifyValid): known here too before its first use.
    else if (payload.startsWith(VALID_PREFIX)) throttle.vouch(payload.slice(VALID_PREFIX.length))
    else throttle.known.forget(payload)
  }
  // The revocation notifications are heard even with API_KEY_CACHE=0 (widget tokens, the known-valid set);
  // only the lookups are then not cached.
  const revocations = new KeyCache<KeyPrincipal>(undefined, undefined, onRevoked, () => void readRevoked())
  await revocations.start(databaseUrl)
  return { throttle, widgetTokens, revocations }
}

interface ServiceParts {
  config: Config
  db: Sql
  clock: Clock
  resolver: Resolver
  lifecycle: Lifecycle
  databaseUrl: string
  throttle: FailureThrottle
  widgetTokens: WidgetTokens
  keyCache: KeyCache<KeyPrincipal> | undefined
}

/** The services operations and jobs are handed, with the products this configuration offers. */
function buildServices({ config, db, clock, resolver, lifecycle, databaseUrl, throttle, widgetTokens, keyCache }: ServiceParts): Services {
  const services: Services = {
    widgetTokens,
    keyCache,
    dns: resolver,
    verifyDns: config.dnsVerify === 'authoritative' ? new AuthoritativeDns(resolver) : resolver,
    connectAdapters: { apiKey: apiKeyProviders(), oauth: oauthProviders(config) },
    products: ['connect'],
    payments: paymentsFromConfig(config, clock),
    registrar: config.namecom ? new NamecomRegistrar(config.namecom) : new SandboxRegistrar(),
    throttle,
    rateLimits: new RateLimits(config.rateLimits, () => clock.now().getTime()),
    database: new DatabaseWatch(databaseUrl),
    lifecycle,
    connectionViews: new ConnectionViews(),
    dnsHealth: new DnsHealth(config.dnsResolvers, config.dnsResolversFrom, config.dnsTimeoutMs),
  }
  if (config.dnsResolversFrom === 'fallback') {
    log.warn('dns.resolvers_fallback', { resolvers: config.dnsResolvers, hint: 'no DNS_RESOLVERS and no nameserver in /etc/resolv.conf: set DNS_RESOLVERS to a recursive resolver' })
  }
  const unmailed = peopleMailWarning(config)
  if (unmailed) log.warn('mail.people_unreachable', { hint: unmailed })
  if (config.sellPurchaseEnabled) services.products.push('sell')
  services.monitorRepair = managedRepairRail({ db, clock, config, dns: resolver })
  services.products.push('monitor')
  // Power and Secure: the edge (Caddy) and the ACME CA, each when configured.
  if (config.edgeServer) {
    services.edge = edgeFromConfig(config, clock)
    services.products.push('power')
    if (config.acme) {
      services.issuer = new AcmeIssuer(config.acme, { db, secretsKey: config.secretsKey })
      services.products.push('secure')
      if (config.dcv) services.dcv = new DcvZone(config.dcv)
    }
  }
  // Domain Connect: the template set (a failing file is logged by name and listed as rejected) and discovery for the domain check.
  services.templates = TemplateCatalog.load(config.domainConnect.templatesDir)
  const dcDeps = { dns: resolver, allowLoopback: config.webhookAllowLoopback, asyncClients: config.domainConnect.asyncClients, timeoutMs: 3000 }
  services.connectAdapters.domainConnect = (apex, host) => discover(dcDeps, resolver, apex, host)
  return services
}

/** The background work: each sweep's queue, schedule and drain. */
function sweepsOf({ config, db, clock, services, resolver, stopping }: { config: Config; db: Sql; clock: Clock; services: Services; resolver: Resolver; stopping: () => boolean }): Sweep[] {
  return [
    // Checks run when due: each worker sleeps until the earliest next_check_at; the cron is a safety net.
    { queue: VERIFY_QUEUE, cron: '* * * * *', drain: () => sweepDue({ db, dns: services.verifyDns, clock, stopping }), nextDue: () => nextVerifyDue(db) },
    // Retries run when due: the worker sleeps until the earliest next attempt (the documented schedule);
    // a worker that died mid-batch leaves its rows due, and the due timer hands them on.
    { queue: WEBHOOK_QUEUE, cron: '* * * * *', drain: () => deliverAll({ db, clock, config, dns: services.dns, stopping }), nextDue: () => nextDeliveryDue(db, clock.now()) },
    // Agent clients nobody approved within a day are deleted, with expired OAuth artefacts.
    { queue: 'agent-cleanup', cron: '17 * * * *', drain: async () => (await cleanupAgentClients(db, clock)).clients },
    sellExpirySweep({ db, clock, payments: services.payments }),
    sellResumeSweep({ db, clock, config, payments: services.payments!, registrar: services.registrar! }),
    monitorSweep({ db, dns: services.dns, clock, alerts: config.monitorAlertsEnabled, repair: services.monitorRepair }),
    // Idempotency-Key records past their 24 hours.
    { queue: 'idempotency-cleanup', cron: '41 * * * *', drain: () => deleteExpiredKeys(db, clock.now()) },
    // Widget token records an hour past their expiry.
    { queue: 'widget-token-cleanup', cron: '47 * * * *', drain: () => purgeWidgetTokens(db, clock.now()) },
    // Domain Connect consent sessions a day past their expiry.
    { queue: 'domain-connect-cleanup', cron: '23 * * * *', drain: () => cleanupSessions(db, clock.now()) },
    statusCountsSweep(db),
    // Events past their retention (EVENT_RETENTION_DAYS) leave the outbox.
    eventRetentionSweep({ db, clock, days: config.eventRetentionDays }),
    ...(services.edge ? edgeSweeps({ db, clock, config, dns: resolver, edge: services.edge, issuer: services.issuer, dcv: services.dcv }) : []),
  ]
}

/** Agents' OAuth server, its consent page and registration, the MCP server and the other faces mounted beside the REST one, and the REST handler. */
async function facesOf(deps: AppDeps) {
  const { config, db, clock, services } = deps
  const auth = await createAuthServer({ config, db, clock, dns: services.dns })
  services.verifyAgentToken = auth.verifyForApi
  services.agentTokenSigned = auth.accessTokenSigned
  services.mailPeople = workspaceMail({ config, db, dns: services.dns })
  services.products.push('mcp')
  const mounts = [metadataMount(auth), registrationMount({ db, clock, auth, trustProxy: trustedProxies(config.trustProxy, config.trustProxyHeader), limits: { ...REGISTRATION_LIMITS, ...config.agentRegistrationBudget } }), consentMount({ ...deps, auth }), peopleMount(deps), confirmMount(deps), oauthMount(auth), mcpMount({ ...deps, auth }), paymentsWebhookMount(deps), widgetMount(deps), acmeChallengeMount(db), metricsMount({ config, db, clock })]
  const handler = createHandler(deps)
  // The share-link page reads the API like any client, from the visitor's side and with the visitor's address.
  const addressOf = addressOfRequest(config.trustProxy, config.trustProxyHeader)
  mounts.push(sharePageMount({ handle: (req, ip) => handler(req, ip), addressOf, publicUrl: config.publicUrl }))
  // The API reference everywhere; the widget playground in development only (elsewhere: 404).
  mounts.push(docsMount())
  if (config.appEnv === 'development') mounts.push(playgroundMount({ widgetTokens: services.widgetTokens, clock, handle: (req, ip) => handler(req, ip), addressOf }))
  return { mounts, handler }
}
