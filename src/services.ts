// The adapters and engines an operation may call, wired once at start (src/main.ts) and handed to
// every handler through its context. Optional engines are absent when not configured, and the
// operations that need them answer 503 service_unavailable.
import type { WidgetTokens } from './domain/widget-tokens.ts'
import type { KeyCache } from './adapters/key-cache.ts'
import type { KeyPrincipal, Presentation } from './domain/principal.ts'
import type { Dns } from './adapters/dns.ts'
import type { CheckAdapters } from './domain/domain-check.ts'
import type { Jobs } from './jobs/index.ts'
import type { Payments } from './adapters/payments/index.ts'
import type { Registrar } from './adapters/registrar/index.ts'
import type { RepairRail } from './domain/monitor.ts'
import type { TemplateCatalog } from './domain/templates.ts'
import type { Edge } from './adapters/edge.ts'
import type { DnsHealth } from './domain/dns-health.ts'
import type { DcvZone } from './adapters/dcv.ts'
import type { CertificateIssuer } from './adapters/acme.ts'
import type { FailureThrottle } from './domain/throttle.ts'
import type { RateLimits } from './domain/rate-limits.ts'
import type { DatabaseWatch } from './db/watch.ts'
import type { Lifecycle } from './lifecycle.ts'
import type { ConnectionViews } from './domain/connection-views.ts'

export interface Services {
  widgetTokens: WidgetTokens
  /** API-key lookups cached per process, evicted by NOTIFY on revocation. */
  keyCache?: KeyCache<KeyPrincipal>
  /** Verifies a delegated agent access token as presented (scheme, DPoP proof); absent until the agents area is wired. */
  /** Whether an agent access token carries Portico's signature and is unexpired (no query: the failure throttle's pre-check). */
  agentTokenSigned?: (token: string) => Promise<boolean>
  verifyAgentToken?: (token: string, presented: Presentation) => Promise<{ tenantId: string; clientId: string; subject: string; scopes: string[] } | null>
  /** Mails a person of a workspace (a sign-in link) through the workspace's email sender; absent until the agents area is wired. */
  mailPeople?: (m: { tenantId: string; to: string; subject: string; text: string }) => Promise<'sent' | 'logged' | 'unsent'>
  /** DNS lookups through DNS_RESOLVERS (recursive resolvers). */
  dns: Dns
  /** Verification lookups: asked of each zone's own nameservers (DNS_VERIFY), found through `dns`. */
  verifyDns: Dns
  /** Which providers Portico can write to per automatic rail. */
  connectAdapters: CheckAdapters
  /** Background work; absent only while starting up. */
  jobs?: Jobs
  /** Products this deployment has wired, for GET /v1/config. */
  products: string[]
  /** The payment processor (PAYMENTS) and the registrar (REGISTRAR) of Sell and billing. */
  payments?: Payments
  registrar?: Registrar
  /** Repairs drift on managed connections through their rail; absent until a managed rail is wired. */
  monitorRepair?: RepairRail
  /** Domain Connect templates loaded at start from DOMAIN_CONNECT_TEMPLATES_DIR (GET /templates). */
  templates?: TemplateCatalog
  /** The platform edge (EDGE_ADMIN_URL); absent: Power and Secure answer 503. */
  edge?: Edge
  /** The ACME CA certificates come from (ACME_DIRECTORY_URL); absent: no issuance. */
  issuer?: CertificateIssuer
  /** The delegated DCV zone (DCV_ZONE): pre-validation and DNS-01; absent: neither. */
  dcv?: DcvZone
  /** The configured resolvers: the /healthz probe, the 503 of a failed lookup, its once-a-minute warning. */
  dnsHealth?: DnsHealth
  /** Counts each credential's requests against its limits a minute (src/domain/rate-limits.ts); absent: no limits. */
  rateLimits?: RateLimits
  /** Counts failed credential checks per address and network; absent: no throttling (src/domain/throttle.ts). */
  throttle?: FailureThrottle
  /** Whether the database is reachable, answering, writable now (reconnects with backoff after a failure): src/db/watch.ts. */
  database?: DatabaseWatch
  /** Whether this process is stopping (readiness fails, long polls answer at once): src/lifecycle.ts. */
  lifecycle?: Lifecycle
  /** Connections as reads and list pages show them, per row version (src/domain/connection-views.ts). */
  connectionViews: ConnectionViews
}
