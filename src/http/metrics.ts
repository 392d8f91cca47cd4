// GET /metrics: the Prometheus exposition of src/metrics.ts. With METRICS_TOKEN set, a scrape must
// send it as a bearer token (compared in constant time); without it the route is open in development
// and test and absent (404) in production, so a production deployment exposes nothing by default.
// The database gauges are read at most once per second however many scrapers ask, and a scrape that
// cannot reach the database, or waits SCRAPE_WAIT_MS on one that does not answer, still answers the
// process's own series.
import { timingSafeEqual } from 'node:crypto'
import type { Clock } from '../clock.ts'
import type { Config } from '../config.ts'
import { readDbFigures, type DbFigures } from '../db/metrics.ts'
import type { Sql } from '../db/sql.ts'
import { errorFields, log } from '../logger.ts'
import { dbGauges, registry } from '../metrics.ts'
import { ApiError } from '../errors.ts'
import type { Mount } from './app.ts'
import { lateBody } from './encoded.ts'

const FRESH_MS = 1000
/** How long a scrape waits for the database gauges before it answers with the ones it last read. */
export const SCRAPE_WAIT_MS = 2000

function authorized(config: Config, header: string | null): boolean {
  const token = config.metricsToken
  if (!token) return config.appEnv !== 'production'
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '')
  if (!m) return false
  const a = Buffer.from(m[1]!.trim())
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

function setAll(gauge: { reset(): void; set(labels: Record<string, string>, v: number): void }, label: string, values: Record<string, number>): void {
  gauge.reset()
  for (const [k, v] of Object.entries(values)) gauge.set({ [label]: k }, v)
}

export function metricsMount(deps: { config: Config; db: Sql; clock: Clock }): Mount {
  let last = -Infinity
  let inFlight: Promise<void> | null = null
  const refresh = async () => {
    const started = performance.now()
    let f: DbFigures
    try {
      f = await readDbFigures(deps.db, deps.clock.now())
    } catch (err) {
      log.warn('metrics: could not read the database gauges', errorFields(err))
      return
    }
    dbGauges.verificationLag.set(f.verificationLagSeconds)
    setAll(dbGauges.queueDepth, 'queue', f.queues)
    // The four statuses are always present, so a status that empties shows 0 rather than vanishing.
    setAll(dbGauges.connections, 'status', { pending: 0, propagating: 0, live: 0, failed: 0, ...f.connections })
    setAll(dbGauges.certificates, 'status', { pending: 0, issued: 0, failed: 0, ...f.certificates })
    dbGauges.certificatesExpiring.set(f.certificatesExpiring)
    dbGauges.scrapeSeconds.set((performance.now() - started) / 1000)
    last = performance.now()
  }
  return (app) => {
    app.get('/metrics', async ({ request }) => {
      if (!authorized(deps.config, request.headers.get('authorization'))) {
        const e = deps.config.metricsToken
          ? new ApiError('unauthorized', 'Send METRICS_TOKEN as a bearer token', undefined, { headers: { 'www-authenticate': 'Bearer realm="metrics"' } })
          : new ApiError('not_found', 'No such route')
        return new Response(JSON.stringify(e.body()), { status: e.status, headers: { 'content-type': 'application/json; charset=utf-8', ...e.headers } })
      }
      if (performance.now() - last >= FRESH_MS) {
        inFlight ??= refresh().finally(() => (inFlight = null))
        // A database that does not answer must not hang the scrape (a scraper would see the process
        // down, not the database): past the wait the process's own series go out with the last gauges.
        let timer: ReturnType<typeof setTimeout> | undefined
        await Promise.race([inFlight, new Promise<void>((resolve) => (timer = setTimeout(resolve, SCRAPE_WAIT_MS)))])
        clearTimeout(timer)
      }
      return new Response(lateBody(await registry.metrics()), { headers: { 'content-type': registry.contentType } })
    })
    return app
  }
}
