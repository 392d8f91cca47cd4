// Typed environment. Every setting Portico reads is parsed here, once, at start; a bad value stops
// the process with a message naming the variable rather than failing later inside a request.
import { OAUTH_ENDPOINTS, oauthEnvPrefix } from './domain/provider-oauth-endpoints.ts'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { domainConnectSettings, type DomainConnectSettings } from './domain/domain-connect/settings.ts'
import { trustedProxies, type ProxyHeader } from './client-address.ts'
import type { AcmeSettings } from './adapters/acme.ts'
import type { DcvSettings } from './adapters/dcv.ts'
import { normalizeHostname } from './domain/hostnames.ts'
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from './domain/rate-limits.ts'
import type { EdgeNodeSettings, EdgeSettings } from './adapters/edge.ts'
import type { PaymentsSettings } from './adapters/payments/from-config.ts'

export type AppEnv = 'development' | 'test' | 'production'
export type Role = 'api' | 'worker' | 'all'

export interface Config {
  port: number
  publicUrl: string
  databaseUrl: string | null
  dataDir: string
  appEnv: AppEnv
  role: Role
  managementKey: string | null
  provisionSecret: string | null
  /** Development only: files under DATA_DIR holding the MANAGEMENT_KEY / PROVISION_SECRET generated because they were unset. */
  generatedSecrets: { managementKey?: string; provisionSecret?: string }
  edgeAuthSecret: string | null
  secretsKey: Buffer
  dnsResolvers: string[]
  /** Where dnsResolvers came from: the DNS_RESOLVERS setting, the system's resolv.conf, or the 127.0.0.1:53 fallback. */
  dnsResolversFrom: string
  dnsTimeoutMs: number
  /** Where verification asks: each zone's own nameservers (default), or the resolvers. */
  dnsVerify: 'authoritative' | 'recursive'
  /**
   * Deadlines (REQUEST_TIMEOUT_MS, STATEMENT_TIMEOUT_MS): every request answers within `requestMs`
   * (503 `service_unavailable` with Retry-After when it cannot, committing nothing afterwards); every
   * statement is cancelled by PostgreSQL after `statementMs`. `bulkMs` is the deadline of a bulk create.
   */
  deadlines: { requestMs: number; statementMs: number; bulkMs: number }
  /**
   * The graceful stop (src/main.ts): after SIGTERM/SIGINT the process goes on answering for `drainMs`
   * (STOP_DRAIN_MS) while /readyz fails, so a load balancer takes it out; then it stops accepting and
   * gives requests in flight and the workers' runs `graceMs` (STOP_GRACE_MS) to finish.
   */
  stop: { drainMs: number; graceMs: number }
  /** Portico's certificate orders running at once (CERT_CONCURRENCY). */
  certConcurrency: number
  /** The platform edge connections point at by default. */
  edge: { cnameTarget: string; apexIpv4: string[] }
  monitorAlertsEnabled: boolean
  /** How long events are kept for the events API (days, at least 30). */
  eventRetentionDays: number
  sellPurchaseEnabled: boolean
  billingEnforceQuota: boolean
  /** Sell and billing: the payment processor (PAYMENTS) and the registrar (REGISTRAR). */
  payments: PaymentsSettings
  registrar: 'sandbox' | 'namecom'
  /** Name.com's API (REGISTRAR=namecom): base URL (NAMECOM_API_URL), account user name and API token. */
  namecom: { apiUrl: string; username: string; token: string } | null
  webhookAllowLoopback: boolean
  /** METRICS_TOKEN: the bearer token GET /metrics requires (unset: open outside production, absent in production). */
  metricsToken: string | null
  /** Cache API-key lookups per process (evicted by NOTIFY on revocation); off: one lookup per request. */
  apiKeyCache: boolean
  /** Web push (VAPID); all three or none. */
  vapid: { publicKey: string; privateKey: string; subject: string } | null
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent'
  /** Domain Connect: template set, apply-URL signing key, async OAuth clients per DNS Provider. */
  domainConnect: DomainConnectSettings
  version: string
  /** DNS_PROVIDER_API_BASES: `id=url` pairs that replace a hosted DNS provider's public API base (local fakes, an egress proxy). */
  providerApiBases: Record<string, string>
  /** NAMECHEAP_CLIENT_IP: the IPv4 address Portico calls Namecheap's API from (whitelisted in each
   * account), used when a Namecheap credential does not name one itself; null: unset. */
  namecheapClientIp: string | null
  /**
   * The platform edge (Caddy, driven through its admin API) and the ACME CA for Secure. Absent admin
   * URL: no Power and no Secure (their operations answer 503). `upstream` is how the edge reaches
   * Portico (the ask gate and HTTP-01 answers). `nodes` is the fleet (EDGE_ADMIN_URLS, or the one
   * EDGE_ADMIN_URL); `adminUrl` is its first node. `bindHost`: the node's listeners bind this host
   * (EDGE_BIND_ADMIN_HOST, for nodes sharing a machine on their own addresses). `storage`: Caddy's
   * storage module (EDGE_STORAGE), shared by the nodes for the certificates they obtain on demand.
   */
  edgeServer: EdgeSettings | null
  acme: AcmeSettings | null
  /**
   * Delegated DCV (DCV_ZONE, DCV_PDNS_API_URL, DCV_PDNS_API_KEY): a zone Portico controls on a
   * PowerDNS server through its HTTP API, where it answers ACME DNS-01 challenges for hostnames whose
   * `_acme-challenge` name is delegated to it by CNAME. Null: no pre-validation, no DNS-01.
   */
  dcv: DcvSettings | null
  /** Provider OAuth clients (DIGITALOCEAN_OAUTH_CLIENT_ID / _SECRET, optional _BASE for the authorization server). */
  providerOAuth: Record<string, { clientId: string; clientSecret: string; base: string | null }>
  /** TRUST_PROXY_HEADER: the one header those proxies set (`x-forwarded-for`, default, or `forwarded`); the other is never read. */
  trustProxyHeader: ProxyHeader
  /** TRUST_PROXY: CIDRs of the proxies whose X-Forwarded-For / Forwarded headers are believed. */
  trustProxy: string[]
  /** AGENT_REGISTRATION_BUDGET: agent registrations per hour, per address / per /24 or /64 / overall. */
  agentRegistrationBudget: { perAddressPerHour: number; perPrefixPerHour: number; globalPerHour: number }
  /** SIGNIN_BUDGET: a person's sign-in attempts per 15 minutes: links per email address / links per client address / failed attempts per client address. */
  signInBudget: { perEmail: number; perClient: number; failures: number }
  /** AUTH_FAILURE_BUDGET: failed credential checks a minute per address / per /24 or /64 (src/domain/throttle.ts). */
  authFailureBudget: { perAddress: number; perPrefix: number }
  /** RATE_LIMITS: requests a minute per API key, per application (widget tokens), per end user (widget token), per agent grant (src/domain/rate-limits.ts). */
  rateLimits: RateLimitSettings
  /** SMTP_URL and MAIL_FROM: the deployment's own mail to people (sign-in links) of a workspace that saved no sender (oauth/mail.ts). */
  deploymentMail: DeploymentMail | null
}


export class ConfigError extends Error {}

type Env = Record<string, string | undefined>

function flag(env: Env, name: string): boolean {
  const v = env[name]
  if (v === undefined || v === '') return false
  if (['1', 'true', 'yes', 'on'].includes(v.toLowerCase())) return true
  if (['0', 'false', 'no', 'off'].includes(v.toLowerCase())) return false
  throw new ConfigError(`${name} must be 1/0 (true/false), got ${JSON.stringify(v)}`)
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], dflt: T): T {
  const v = env[name]
  if (v === undefined || v === '') return dflt
  if (!(allowed as readonly string[]).includes(v)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`)
  }
  return v as T
}

function intIn(env: Env, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return dflt
  const n = Number(raw)
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return n
}

function metricsToken(env: Env): string | null {
  const t = env.METRICS_TOKEN
  if (t === undefined || t === '') return null
  if (t.length < 16 || /\s/.test(t)) throw new ConfigError('METRICS_TOKEN must be at least 16 characters without spaces')
  return t
}

function hostPort(entry: string, name: string): string {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:\s]+)(?::(\d{1,5}))?$/.exec(entry.trim())
  if (!m || (m[2] && Number(m[2]) > 65535)) throw new ConfigError(`${name}: ${JSON.stringify(entry)} is not host:port`)
  return `${m[1]}:${m[2] ?? '53'}`
}

/**
 * DNS_RESOLVERS when set; otherwise the `nameserver` lines of the system's resolv.conf (RESOLV_CONF
 * names another file, for tests), so a laptop's own resolver answers; otherwise 127.0.0.1:53, which
 * the server warns about at start (`from: 'fallback'`).
 */
export function dnsResolverSettings(env: Env): { resolvers: string[]; from: string } {
  const list = (env.DNS_RESOLVERS || '').split(',').filter((s) => s.trim() !== '')
  if (list.length > 0) return { resolvers: list.map((s) => hostPort(s, 'DNS_RESOLVERS')), from: 'DNS_RESOLVERS' }
  const file = env.RESOLV_CONF || '/etc/resolv.conf'
  let text = ''
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    if (env.RESOLV_CONF) throw new ConfigError(`RESOLV_CONF: cannot read ${file}`)
  }
  const resolvers = parseResolvConf(text)
  return resolvers.length > 0 ? { resolvers, from: file } : { resolvers: ['127.0.0.1:53'], from: 'fallback' }
}

/** `nameserver <address>` lines as host:port (port 53; IPv6 bracketed, any `%zone` dropped). */
export function parseResolvConf(text: string): string[] {
  const out: string[] = []
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+([0-9a-fA-F:.]+)(?:%\S+)?\s*(?:[#;].*)?$/.exec(line)
    if (m) out.push(m[1]!.includes(':') ? `[${m[1]}]:53` : `${m[1]}:53`)
  }
  return out
}

/** The file's secret, generated (random, mode 600) on first use. */
function secretFile(dataDir: string, name: string, prefix: string): { file: string; value: string } {
  const file = join(dataDir, name)
  if (existsSync(file)) return { file, value: readFileSync(file, 'utf8').trim() }
  mkdirSync(dataDir, { recursive: true })
  const value = prefix + randomBytes(24).toString('hex')
  writeFileSync(file, value + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return { file, value }
}

/**
 * MANAGEMENT_KEY and PROVISION_SECRET as set. In development an unset one is generated into
 * DATA_DIR (kept across restarts) so the API tour works at once; main.ts prints where. Never in
 * test or production, where unset means those routes answer 401.
 */
function operatorSecrets(env: Env, appEnv: AppEnv, dataDir: string): Pick<Config, 'managementKey' | 'provisionSecret' | 'generatedSecrets'> {
  const generatedSecrets: Config['generatedSecrets'] = {}
  let managementKey = env.MANAGEMENT_KEY || null
  let provisionSecret = env.PROVISION_SECRET || null
  if (appEnv === 'development' && !managementKey) {
    const s = secretFile(dataDir, 'management-key', 'mgmt_')
    ;[managementKey, generatedSecrets.managementKey] = [s.value, s.file]
  }
  if (appEnv === 'development' && !provisionSecret) {
    const s = secretFile(dataDir, 'provision-secret', 'prov_')
    ;[provisionSecret, generatedSecrets.provisionSecret] = [s.value, s.file]
  }
  return { managementKey, provisionSecret, generatedSecrets }
}

/** SECRETS_KEY is 32 bytes as hex or base64. Outside production it is generated into DATA_DIR once. */
function secretsKey(env: Env, appEnv: AppEnv, dataDir: string): Buffer {
  const raw = env.SECRETS_KEY
  if (raw) {
    const buf = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64')
    if (buf.length !== 32) throw new ConfigError('SECRETS_KEY must be 32 bytes, as 64 hex characters or base64')
    return buf
  }
  if (appEnv === 'production') throw new ConfigError('SECRETS_KEY is required in production')
  const file = join(dataDir, 'secrets.key')
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')
  mkdirSync(dataDir, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600 })
  chmodSync(file, 0o600)
  return key
}

export function loadConfig(env: Env = process.env): Config {
  const appEnv = oneOf(env, 'APP_ENV', ['development', 'test', 'production'] as const, 'development')
  const port = Number(env.PORT ?? 8080)
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number, got ${env.PORT}`)
  const dataDir = resolve(env.DATA_DIR || './.data')
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '')
  try {
    new URL(publicUrl)
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute URL, got ${JSON.stringify(env.PUBLIC_URL)}`)
  }
  const { resolvers: dnsResolvers, from: dnsResolversFrom } = dnsResolverSettings(env)
  const webhookAllowLoopback = flag(env, 'WEBHOOK_ALLOW_LOOPBACK')
  if (webhookAllowLoopback && appEnv === 'production') {
    throw new ConfigError('WEBHOOK_ALLOW_LOOPBACK is a test setting and cannot be on in production')
  }
  const dnsTimeoutMs = Number(env.DNS_TIMEOUT_MS || 2000)
  if (!Number.isInteger(dnsTimeoutMs) || dnsTimeoutMs < 50 || dnsTimeoutMs > 30_000) throw new ConfigError('DNS_TIMEOUT_MS must be 50 to 30000')
  const edgeCname = (env.EDGE_CNAME_TARGET || `edge.${new URL(publicUrl).hostname}`).toLowerCase().replace(/\.$/, '')
  const apexIpv4 = (env.EDGE_APEX_IPV4 || '').split(',').map((s) => s.trim()).filter(Boolean)
  for (const ip of apexIpv4) {
    if (!/^(\d{1,3})(\.\d{1,3}){3}$/.test(ip) || ip.split('.').some((o) => Number(o) > 255)) throw new ConfigError(`EDGE_APEX_IPV4: ${ip} is not an IPv4 address`)
  }
  if (apexIpv4.length > 4) throw new ConfigError('EDGE_APEX_IPV4 takes up to 4 addresses')
  const processor = oneOf(env, 'PAYMENTS', ['sandbox', 'stripe'] as const, 'sandbox')
  if (processor === 'stripe' && (!env.STRIPE_SECRET_KEY || !env.STRIPE_WEBHOOK_SECRET)) {
    throw new ConfigError('PAYMENTS=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET')
  }
  return {
    port,
    publicUrl,
    databaseUrl: env.DATABASE_URL || null,
    dataDir,
    appEnv,
    role: oneOf(env, 'PORTICO_ROLE', ['api', 'worker', 'all'] as const, 'all'),
    ...operatorSecrets(env, appEnv, dataDir),
    edgeAuthSecret: env.EDGE_AUTH_SECRET || null,
    secretsKey: secretsKey(env, appEnv, dataDir),
    dnsResolvers,
    dnsResolversFrom,
    dnsTimeoutMs,
    dnsVerify: oneOf(env, 'DNS_VERIFY', ['authoritative', 'recursive'] as const, 'authoritative'),
    deadlines: {
      requestMs: intIn(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
      statementMs: intIn(env, 'STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
      bulkMs: intIn(env, 'BULK_TIMEOUT_MS', 120_000, 100, 1_800_000),
    },
    stop: { drainMs: intIn(env, 'STOP_DRAIN_MS', 1_000, 0, 600_000), graceMs: intIn(env, 'STOP_GRACE_MS', 8_000, 0, 600_000) },
    certConcurrency: intIn(env, 'CERT_CONCURRENCY', 8, 1, 64),
    edge: { cnameTarget: edgeCname, apexIpv4 },
    monitorAlertsEnabled: flag(env, 'MONITOR_ALERTS_ENABLED'),
    eventRetentionDays: intIn(env, 'EVENT_RETENTION_DAYS', 30, 30, 3650),
    sellPurchaseEnabled: flag(env, 'SELL_PURCHASE_ENABLED'),
    billingEnforceQuota: flag(env, 'BILLING_ENFORCE_QUOTA'),
    payments: { processor, stripeSecretKey: env.STRIPE_SECRET_KEY || null, stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || null },
    ...registrarSettings(env),
    webhookAllowLoopback,
    vapid: vapidKeys(env),
    metricsToken: metricsToken(env),
    apiKeyCache: env.API_KEY_CACHE === undefined || env.API_KEY_CACHE === '' ? true : flag(env, 'API_KEY_CACHE'),
    logLevel: oneOf(env, 'LOG_LEVEL', ['debug', 'info', 'warn', 'error', 'silent'] as const, 'info'),
    version: env.PORTICO_VERSION || buildVersion(),
    providerApiBases: providerApiBases(env),
    namecheapClientIp: namecheapClientIp(env),
    providerOAuth: providerOAuth(env),
    domainConnect: domainConnectSettings(env, appEnv === 'production', dataDir, (m) => new ConfigError(m)),
    edgeServer: edgeServer(env, port),
    acme: acmeSettings(env),
    dcv: dcvSettings(env),
    ...agentRegistrationSettings(env),
    authFailureBudget: authFailureBudget(env),
    deploymentMail: deploymentMail(env),
    rateLimits: rateLimits(env),
  }
}

const RATE_LIMIT_NAMES: Record<string, keyof RateLimitSettings> = { api_key: 'apiKey', application: 'application', end_user: 'endUser', agent_grant: 'agentGrant' }

/** RATE_LIMITS: `api_key=1200,application=2400,end_user=120,agent_grant=300` (requests a minute); a name left out keeps its default. */
function rateLimits(env: Env): RateLimitSettings {
  const out = { ...DEFAULT_RATE_LIMITS }
  for (const part of (env.RATE_LIMITS ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\w+)\s*=\s*(\d+)$/.exec(part)
    const name = m ? RATE_LIMIT_NAMES[m[1]!] : undefined
    if (!m || !name || Number(m[2]) < 1) throw new ConfigError(`RATE_LIMITS must be name=requests-a-minute pairs among ${Object.keys(RATE_LIMIT_NAMES).join(', ')} (like api_key=1200,end_user=120), got ${JSON.stringify(part)}`)
    out[name] = Number(m[2])
  }
  return out
}

export interface DeploymentMail {
  host: string
  port: number
  username: string | null
  password: string | null
  tls: 'implicit' | 'starttls' | 'none'
  from: string
  fromName: string | null
}

/**
 * SMTP_URL: `smtps://user:password@host:465` (TLS from the start), `smtp://user:password@host:587`
 * (STARTTLS required), or `smtp://host:25?tls=none` (plain: a relay on the same host or network).
 * MAIL_FROM: `no-reply@example.com` or `Example <no-reply@example.com>`. Both or neither.
 */
function deploymentMail(env: Env): DeploymentMail | null {
  const raw = env.SMTP_URL ?? ''
  const from = (env.MAIL_FROM ?? '').trim()
  if (!raw && !from) return null
  if (!raw || !from) throw new ConfigError('SMTP_URL and MAIL_FROM go together: set both (the deployment\'s own mail to people) or neither')
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new ConfigError('SMTP_URL must be a URL like smtps://user:password@smtp.example.com:465')
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`SMTP_URL must start with smtp:// or smtps://, got ${u.protocol}//`)
  if (!u.hostname) throw new ConfigError('SMTP_URL names no host')
  const plain = u.searchParams.get('tls') === 'none'
  const tls = u.protocol === 'smtps:' ? 'implicit' : plain ? 'none' : 'starttls'
  const m = /^(?:(.*?)\s*<([^<>\s]+@[^<>\s]+)>|([^<>\s]+@[^<>\s]+))$/.exec(from)
  if (!m) throw new ConfigError(`MAIL_FROM must be an address or "Name <address>", got ${JSON.stringify(from)}`)
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : tls === 'implicit' ? 465 : 587,
    username: u.username ? decodeURIComponent(u.username) : null,
    password: u.password ? decodeURIComponent(u.password) : null,
    tls,
    from: m[2] ?? m[3]!,
    fromName: m[1]?.replace(/^"|"$/g, '') || null,
  }
}

function authFailureBudget(env: Env): Config['authFailureBudget'] {
  const budget = env.AUTH_FAILURE_BUDGET || '30/120'
  const m = /^(\d{1,7})\/(\d{1,7})$/.exec(budget)
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new ConfigError(`AUTH_FAILURE_BUDGET must be perAddress/perPrefix failed credential checks a minute (like 30/120), got ${JSON.stringify(budget)}`)
  return { perAddress: Number(m[1]), perPrefix: Number(m[2]) }
}

function agentRegistrationSettings(env: Env): Pick<Config, 'trustProxy' | 'trustProxyHeader' | 'agentRegistrationBudget' | 'signInBudget'> {
  const trustProxy = (env.TRUST_PROXY || '').split(',').map((s) => s.trim()).filter(Boolean)
  const trustProxyHeader = (env.TRUST_PROXY_HEADER || 'x-forwarded-for').trim().toLowerCase()
  if (trustProxyHeader !== 'x-forwarded-for' && trustProxyHeader !== 'forwarded') {
    throw new ConfigError(`TRUST_PROXY_HEADER must be x-forwarded-for or forwarded (the header the proxies in TRUST_PROXY set), got ${JSON.stringify(env.TRUST_PROXY_HEADER)}`)
  }
  try {
    trustedProxies(trustProxy)
  } catch {
    throw new ConfigError(`TRUST_PROXY must be a comma list of IP addresses or CIDRs, got ${JSON.stringify(env.TRUST_PROXY)}`)
  }
  const budget = env.AGENT_REGISTRATION_BUDGET || '20/60/1000'
  const m = /^(\d{1,7})\/(\d{1,7})\/(\d{1,7})$/.exec(budget)
  if (!m) throw new ConfigError(`AGENT_REGISTRATION_BUDGET must be perAddress/perPrefix/overall per hour (like 20/60/1000), got ${JSON.stringify(budget)}`)
  const signIn = env.SIGNIN_BUDGET || '5/30/20'
  const s = /^(\d{1,7})\/(\d{1,7})\/(\d{1,7})$/.exec(signIn)
  if (!s) throw new ConfigError(`SIGNIN_BUDGET must be perEmail/perClient/failures per 15 minutes (like 5/30/20), got ${JSON.stringify(signIn)}`)
  return {
    trustProxy,
    trustProxyHeader,
    agentRegistrationBudget: { perAddressPerHour: Number(m[1]), perPrefixPerHour: Number(m[2]), globalPerHour: Number(m[3]) },
    signInBudget: { perEmail: Number(s[1]), perClient: Number(s[2]), failures: Number(s[3]) },
  }
}

function listenAddress(env: Env, name: string, dflt: string): string {
  const v = env[name] || dflt
  if (!/^(\[[0-9a-fA-F:.]+\]|[^:\s]*):\d{1,5}$/.test(v)) throw new ConfigError(`${name} must be [host]:port, got ${JSON.stringify(v)}`)
  return v
}

function registrarSettings(env: Env): Pick<Config, 'registrar' | 'namecom'> {
  const registrar = oneOf(env, 'REGISTRAR', ['sandbox', 'namecom'] as const, 'sandbox')
  if (registrar === 'sandbox') return { registrar, namecom: null }
  if (!env.NAMECOM_USERNAME || !env.NAMECOM_API_TOKEN) throw new ConfigError('REGISTRAR=namecom needs NAMECOM_USERNAME and NAMECOM_API_TOKEN')
  const apiUrl = (env.NAMECOM_API_URL || 'https://api.name.com').replace(/\/+$/, '')
  if (!/^https?:\/\/\S+$/.test(apiUrl)) throw new ConfigError(`NAMECOM_API_URL must be an http(s) URL, got ${JSON.stringify(apiUrl)}`)
  return { registrar, namecom: { apiUrl, username: env.NAMECOM_USERNAME, token: env.NAMECOM_API_TOKEN } }
}

/** EDGE_ADMIN_URLS (`[name=]url`, comma-separated), or EDGE_ADMIN_URL as a fleet of one. */
function edgeNodes(env: Env): EdgeNodeSettings[] {
  const name = env.EDGE_ADMIN_URLS ? 'EDGE_ADMIN_URLS' : 'EDGE_ADMIN_URL'
  if (env.EDGE_ADMIN_URLS && env.EDGE_ADMIN_URL) throw new ConfigError('Set EDGE_ADMIN_URLS or EDGE_ADMIN_URL, not both')
  const bind = flag(env, 'EDGE_BIND_ADMIN_HOST')
  const nodes = (env[name] || '').split(',').map((s) => s.trim()).filter(Boolean).map((item) => {
    const eq = /^([a-z0-9][a-z0-9._-]*)=(.+)$/i.exec(item)
    const adminUrl = (eq ? eq[2]! : item).replace(/\/+$/, '')
    if (!/^https?:\/\/\S+$/.test(adminUrl)) throw new ConfigError(`${name}: ${JSON.stringify(adminUrl)} is not an http(s) URL`)
    const url = new URL(adminUrl)
    return { name: eq ? eq[1]! : url.host, adminUrl, bindHost: bind ? url.hostname : null }
  })
  if (new Set(nodes.map((n) => n.name)).size !== nodes.length) throw new ConfigError(`${name}: two nodes have one name`)
  return nodes
}

function edgeStorage(env: Env): Record<string, unknown> | null {
  if (!env.EDGE_STORAGE) return null
  let storage: unknown
  try {
    storage = JSON.parse(env.EDGE_STORAGE)
  } catch {
    throw new ConfigError('EDGE_STORAGE must be a JSON object (a Caddy storage module, e.g. {"module":"file_system","root":"/shared/caddy"})')
  }
  if (!storage || typeof storage !== 'object' || typeof (storage as { module?: unknown }).module !== 'string') {
    throw new ConfigError('EDGE_STORAGE must be a JSON object with a "module" (a Caddy storage module)')
  }
  return storage as Record<string, unknown>
}

function edgeServer(env: Env, port: number): Config['edgeServer'] {
  const nodes = edgeNodes(env)
  if (nodes.length === 0) return null
  if (!env.EDGE_AUTH_SECRET) throw new ConfigError('EDGE_ADMIN_URL(S) needs EDGE_AUTH_SECRET (the edge authenticates its ask calls with it)')
  return {
    adminUrl: nodes[0]!.adminUrl,
    nodes,
    storage: edgeStorage(env),
    httpListen: listenAddress(env, 'EDGE_HTTP_LISTEN', ':80'),
    httpsListen: listenAddress(env, 'EDGE_HTTPS_LISTEN', ':443'),
    askListen: listenAddress(env, 'EDGE_ASK_LISTEN', '127.0.0.1:5555'),
    upstream: listenAddress(env, 'EDGE_UPSTREAM', `127.0.0.1:${port}`),
  }
}

function dcvSettings(env: Env): Config['dcv'] {
  const given = [env.DCV_ZONE, env.DCV_PDNS_API_URL, env.DCV_PDNS_API_KEY].filter((v) => v)
  if (given.length === 0) return null
  if (given.length < 3) throw new ConfigError('Delegated DCV needs all three of DCV_ZONE, DCV_PDNS_API_URL and DCV_PDNS_API_KEY')
  const zone = normalizeHostname(env.DCV_ZONE!)
  if (!zone || !zone.includes('.')) throw new ConfigError(`DCV_ZONE must be a domain name, got ${JSON.stringify(env.DCV_ZONE)}`)
  const apiUrl = env.DCV_PDNS_API_URL!.replace(/\/+$/, '')
  if (!/^https?:\/\/\S+\/api\/v1\/servers\/[^/]+$/.test(apiUrl)) {
    throw new ConfigError(`DCV_PDNS_API_URL must be the PowerDNS server's API base, like http://127.0.0.1:8081/api/v1/servers/localhost, got ${JSON.stringify(env.DCV_PDNS_API_URL)}`)
  }
  return { zone, apiUrl, apiKey: env.DCV_PDNS_API_KEY! }
}

function acmeSettings(env: Env): Config['acme'] {
  const directoryUrl = env.ACME_DIRECTORY_URL
  if (!directoryUrl) return null
  if (!/^https:\/\/\S+$/.test(directoryUrl)) throw new ConfigError(`ACME_DIRECTORY_URL must be an https URL, got ${JSON.stringify(directoryUrl)}`)
  const caRoots = env.ACME_CA_ROOTS || null
  if (caRoots && !existsSync(caRoots)) throw new ConfigError(`ACME_CA_ROOTS: no file ${caRoots}`)
  return { directoryUrl, email: env.ACME_EMAIL || null, caRoots, caaIdentities: caaIdentities(env, directoryUrl) }
}

/** CAA issuer domain names of well-known ACME CAs (what their CAA `issue` records must name), by directory host. */
const KNOWN_CAA: [RegExp, string[]][] = [
  [/(^|\.)api\.letsencrypt\.org$/, ['letsencrypt.org']],
  [/(^|\.)zerossl\.com$/, ['sectigo.com']],
  [/(^|\.)pki\.goog$/, ['pki.goog']],
  [/(^|\.)buypass\.(com|no)$/, ['buypass.com']],
  [/(^|\.)ssl\.com$/, ['ssl.com']],
]

/**
 * ACME_CAA_IDENTITIES (comma list of issuer domain names, RFC 8659 §4.2), else the ones known for the
 * directory's host; empty when neither says (the domain check then does not judge CAA records).
 */
function caaIdentities(env: Env, directoryUrl: string): string[] {
  const given = env.ACME_CAA_IDENTITIES
  if (given !== undefined && given.trim() !== '') {
    const list = given.split(',').map((s) => s.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean)
    const bad = list.find((d) => !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(d))
    if (bad) throw new ConfigError(`ACME_CAA_IDENTITIES: ${JSON.stringify(bad)} is not a domain name`)
    return list
  }
  const host = new URL(directoryUrl).hostname.toLowerCase()
  return KNOWN_CAA.find(([re]) => re.test(host))?.[1] ?? []
}

function providerOAuth(env: Env): Config['providerOAuth'] {
  const out: Config['providerOAuth'] = {}
  for (const [id, prefix] of Object.keys(OAUTH_ENDPOINTS).map((id) => [id, oauthEnvPrefix(id)] as const)) {
    const clientId = env[`${prefix}_CLIENT_ID`]
    const clientSecret = env[`${prefix}_CLIENT_SECRET`]
    if (!clientId && !clientSecret) continue
    if (!clientId || !clientSecret) throw new ConfigError(`${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET go together`)
    const base = env[`${prefix}_BASE`] || null
    if (base && !/^https?:\/\/\S+$/.test(base)) throw new ConfigError(`${prefix}_BASE must be an http(s) URL`)
    out[id] = { clientId, clientSecret, base: base?.replace(/\/+$/, '') ?? null }
  }
  return out
}

function providerApiBases(env: Env): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of (env.DNS_PROVIDER_API_BASES || '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([a-z0-9-]+)=(https?:\/\/\S+)$/.exec(pair)
    if (!m) throw new ConfigError(`DNS_PROVIDER_API_BASES: ${JSON.stringify(pair)} is not provider=http(s)://base`)
    out[m[1]!] = m[2]!.replace(/\/+$/, '')
  }
  return out
}

/** Namecheap takes only IPv4 client addresses (its ClientIp parameter); a public one is what it whitelists. */
function namecheapClientIp(env: Env): string | null {
  const v = (env.NAMECHEAP_CLIENT_IP ?? '').trim()
  if (!v) return null
  if (!/^(\d{1,3})(\.\d{1,3}){3}$/.test(v) || v.split('.').some((o) => Number(o) > 255 || (o.length > 1 && o.startsWith('0')))) {
    throw new ConfigError(`NAMECHEAP_CLIENT_IP must be the IPv4 address Portico calls Namecheap from (Namecheap takes IPv4 only), got ${JSON.stringify(v)}`)
  }
  return v
}

function vapidKeys(env: Env): Config['vapid'] {
  const { VAPID_PUBLIC_KEY: publicKey, VAPID_PRIVATE_KEY: privateKey, VAPID_SUBJECT: subject } = env
  if (!publicKey && !privateKey && !subject) return null
  if (!publicKey || !privateKey || !subject) throw new ConfigError('VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT go together')
  if (!/^(mailto:|https:)/.test(subject)) throw new ConfigError('VAPID_SUBJECT must be a mailto: or https: URL')
  return { publicKey, privateKey, subject }
}

function buildVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
    const head = Bun.spawnSync(['git', 'rev-parse', '--short', 'HEAD'], { stderr: 'ignore' })
    const sha = head.success ? head.stdout.toString().trim() : ''
    return sha ? `${pkg.version}+${sha}` : pkg.version
  } catch {
    return '0.0.0'
  }
}
