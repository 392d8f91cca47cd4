// Prometheus metrics (prom-client), one registry per process. Counters and histograms are moved by a
// few hooks: the REST handler (src/http/app.ts), the job runner (src/jobs/index.ts), the DNS-provider
// factory (src/adapters/dns-providers/metered.ts), the verification and monitor sweeps (DNS checks
// by outcome) and webhook delivery. Gauges that describe the database (verification lag, queue
// depths, connections and certificates by status) are read when scraped, by the collector that the
// /metrics route installs (src/http/metrics.ts with src/db/metrics.ts), so they cost nothing between
// scrapes and every process reports the same figures for the shared database.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

export const registry = new Registry()
collectDefaultMetrics({ register: registry })

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/**
 * The request histogram, kept by hand: prom-client's `observe` builds and hashes a label set on every
 * call, which on a cached read costs as much as the rest of the bookkeeping together. Here a request
 * is two map lookups and three additions; the exposition (same name, labels and buckets as a
 * prom-client histogram) is built when scraped.
 */
class RequestHistogram {
  readonly name = 'portico_http_request_duration_seconds'
  readonly help = 'REST requests by operation id and HTTP status, with their latency (the _count series counts requests)'
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private series = new Map<string, Map<number, { buckets: Float64Array; sum: number; count: number }>>()

  observe(operation: string, status: number, seconds: number): void {
    let byStatus = this.series.get(operation)
    if (!byStatus) this.series.set(operation, (byStatus = new Map()))
    let s = byStatus.get(status)
    if (!s) byStatus.set(status, (s = { buckets: new Float64Array(SECONDS.length), sum: 0, count: 0 }))
    s.sum += seconds
    s.count++
    for (let i = 0; i < SECONDS.length; i++) {
      if (seconds <= SECONDS[i]!) {
        s.buckets[i]!++
        break
      }
    }
  }

  get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = []
    for (const [operation, byStatus] of this.series) {
      for (const [code, s] of byStatus) {
        const labels = { operation, status: String(code) }
        let acc = 0
        SECONDS.forEach((le, i) => {
          acc += s.buckets[i]!
          values.push({ labels: { ...labels, le }, value: acc, metricName: `${this.name}_bucket` })
        })
        values.push({ labels: { ...labels, le: '+Inf' }, value: s.count, metricName: `${this.name}_bucket` })
        values.push({ labels, value: s.sum, metricName: `${this.name}_sum` })
        values.push({ labels, value: s.count, metricName: `${this.name}_count` })
      }
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator }
  }

  reset(): void {
    this.series = new Map()
  }
}

const requests = new RequestHistogram()
registry.registerMetric(requests as never)

/** One answered REST request; `operation` is the registry's operation id, `none` for an unknown route. */
export function observeRequest(operation: string, status: number, seconds: number): void {
  requests.observe(operation, status, seconds)
}

const jobRuns = new Histogram({
  name: 'portico_job_duration_seconds',
  help: 'Job runs (sweeps) by queue and outcome (ok, failed), with their duration',
  labelNames: ['queue', 'outcome'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 30, 60],
  registers: [registry],
})
const jobItems = new Counter({ name: 'portico_job_items_total', help: 'Items the job runs handled, by queue', labelNames: ['queue'], registers: [registry] })
const jobFailures = new Counter({ name: 'portico_job_failures_total', help: 'Job runs that threw, by queue', labelNames: ['queue'], registers: [registry] })

/** One job run: how many items it handled, or that it failed. */
export function observeJob(queue: string, seconds: number, outcome: { handled: number } | { failed: true }): void {
  if ('failed' in outcome) {
    jobRuns.observe({ queue, outcome: 'failed' }, seconds)
    jobFailures.inc({ queue })
    return
  }
  jobRuns.observe({ queue, outcome: 'ok' }, seconds)
  if (outcome.handled > 0) jobItems.inc({ queue }, outcome.handled)
}

const providerCalls = new Counter({
  name: 'portico_provider_calls_total',
  help: 'DNS-provider API operations by provider and operation (list_zones, read_records, write_changes)',
  labelNames: ['provider', 'operation'],
  registers: [registry],
})
const providerErrors = new Counter({
  name: 'portico_provider_errors_total',
  help: 'DNS-provider API operations that failed, by provider, operation and reason (auth, permission, rate_limited, zone_not_found, conflict, zone_changed, write_failed, unreachable, plan_restricted, error)',
  labelNames: ['provider', 'operation', 'reason'],
  registers: [registry],
})

export function observeProviderCall(provider: string, operation: string, failure: string | null): void {
  providerCalls.inc({ provider, operation })
  if (failure) providerErrors.inc({ provider, operation, reason: failure })
}

const dnsChecks = new Counter({
  name: 'portico_dns_checks_total',
  help: 'DNS checks by kind (verify: a connection in verification; monitor: a live domain) and outcome',
  labelNames: ['check', 'outcome'],
  registers: [registry],
})

/** Counts a batch of DNS checks of one kind by outcome. */
export function observeDnsChecks(check: 'verify' | 'monitor', outcomes: string[]): void {
  const by = new Map<string, number>()
  for (const o of outcomes) by.set(o, (by.get(o) ?? 0) + 1)
  for (const [outcome, n] of by) dnsChecks.inc({ check, outcome }, n)
}

const webhookAttempts = new Counter({
  name: 'portico_webhook_attempts_total',
  help: 'Webhook delivery attempts by result: delivered, retry (failed, tried again later), failed (failed, attempts exhausted or endpoint gone)',
  labelNames: ['result'],
  registers: [registry],
})

/** Delivery attempts by what became of their delivery (`delivered`, `pending`: to be retried, `failed`). */
export function observeWebhookAttempts(statuses: string[]): void {
  const by = new Map<string, number>()
  for (const s of statuses) {
    const result = s === 'pending' ? 'retry' : s
    by.set(result, (by.get(result) ?? 0) + 1)
  }
  for (const [result, n] of by) webhookAttempts.inc({ result }, n)
}

/** Gauges read from the database at scrape time; the collector is installed by the /metrics route. */
export const dbGauges = {
  verificationLag: new Gauge({ name: 'portico_verification_lag_seconds', help: 'Now minus the oldest due verification check (0 when none is due)', registers: [registry] }),
  queueDepth: new Gauge({
    name: 'portico_queue_depth',
    help: 'Work waiting, by queue: verify_due (checks due now), webhook_pending (deliveries not yet done), webhook_due (of those, due now), certificate_orders (pending orders), and each job queue (job:<name>) as pg-boss counts it',
    labelNames: ['queue'],
    registers: [registry],
  }),
  connections: new Gauge({ name: 'portico_connections', help: 'Open connections by status', labelNames: ['status'], registers: [registry] }),
  certificates: new Gauge({ name: 'portico_certificates', help: 'Certificates by status (removed ones are not counted)', labelNames: ['status'], registers: [registry] }),
  certificatesExpiring: new Gauge({ name: 'portico_certificates_expiring_14d', help: 'Issued certificates whose not_after is within 14 days', registers: [registry] }),
  scrapeSeconds: new Gauge({ name: 'portico_metrics_db_seconds', help: 'Time the last scrape spent reading the database gauges', registers: [registry] }),
}
