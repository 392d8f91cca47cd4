// Start: configuration, database (embedded when DATABASE_URL is absent), migrations, HTTP and workers.
import './quiet-warnings.ts' // first: before any dependency prints at load
import { ConfigError, loadConfig, type Config } from './config.ts'
import { startEmbedded, type EmbeddedDb } from './db/embedded.ts'
import { createPortico, type Portico } from './server.ts'
import { Lifecycle } from './lifecycle.ts'
import { errorFields, flushLogs, log } from './logger.ts'

async function main(): Promise<void> {
  const config = configOrExit()
  // A signal during the start is kept and acted on once the start is done (the embedded database runs
  // in a group of its own: dying here would leave it running).
  let requested: string | null = null
  let onSignal = (signal: string) => void (requested ??= signal)
  process.on('SIGTERM', () => onSignal('SIGTERM'))
  process.on('SIGINT', () => onSignal('SIGINT'))
  const { databaseUrl, embedded } = await startDatabase(config)
  const lifecycle = new Lifecycle()
  let portico: Portico
  try {
    portico = await createPortico(config, { databaseUrl, lifecycle })
  } catch (err) {
    await embedded?.stop()
    throw err
  }
  const server = portico.app.listen({ port: config.port, hostname: process.env.HOST || '0.0.0.0' })
  log.info('portico listening', { port: server.server?.port, env: config.appEnv, version: config.version, role: config.role, pid: process.pid })
  printFirstSteps(config)
  const stop = gracefulStop({ config, server, lifecycle, portico, embedded })
  onSignal = (signal) => void stop(signal)
  if (requested) void stop(requested)
}

/** The configuration, or exit 2 saying what is wrong with it. */
function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`portico: configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }
}

/** DATABASE_URL, or an embedded database in the data directory when it is absent. */
async function startDatabase(config: Config): Promise<{ databaseUrl: string; embedded: EmbeddedDb | null }> {
  if (config.databaseUrl) return { databaseUrl: config.databaseUrl, embedded: null }
  const embedded = await startEmbedded(config.dataDir)
  log.info('embedded postgres started', { data_dir: config.dataDir, pid: embedded.pid() })
  return { databaseUrl: embedded.url, embedded }
}

interface Running {
  config: Config
  server: Portico['app']
  lifecycle: Lifecycle
  portico: Portico
  embedded: EmbeddedDb | null
}

/**
 * The graceful stop on the first signal: drain, finish requests, stop workers, then the embedded
 * database; exit 0, or 1 when a step failed. A second signal (a supervisor signalling the group and
 * npm passing it on) changes nothing.
 */
function gracefulStop({ config, server, lifecycle, portico, embedded }: Running): (signal: string) => Promise<void> {
  let stopping = false
  return async (signal) => {
    if (stopping) return
    stopping = true
    const started = performance.now()
    const ms = () => Math.round(performance.now() - started)
    // 1. Readiness fails and every long poll answers now with the current state; answers carry
    //    Connection: close. The process goes on serving for STOP_DRAIN_MS so a balancer sees /readyz fail.
    const longPolls = lifecycle.sleepers
    lifecycle.stop()
    log.info('stopping', { signal, long_polls_answered: longPolls, drain_ms: config.stop.drainMs, grace_ms: config.stop.graceMs })
    try {
      await Bun.sleep(config.stop.drainMs)
      // 2. No new connections; requests in flight finish within the grace.
      const graceEnds = performance.now() + config.stop.graceMs
      await finishRequests(server.server, config.stop.graceMs, ms)
      // 3. Workers: no new runs or claims; runs in flight finish within what is left of the grace, then
      //    their jobs are handed back (pg-boss fails them for another worker to retry). Pools close.
      await portico.close(Math.max(1_000, graceEnds - performance.now()))
      log.info('stop: workers stopped and database connections closed', { ms: ms() })
      // 4. The embedded database, last.
      if (embedded) {
        await embedded.stop()
        log.info('stop: embedded postgres stopped', { ms: ms() })
      }
      log.info('stopped', { signal, ms: ms(), exit_code: 0 })
      flushLogs()
      process.exit(0)
    } catch (err) {
      log.error('stop failed', { ms: ms(), ...errorFields(err) })
      await embedded?.stop().catch(() => {})
      flushLogs()
      process.exit(1)
    }
  }
}

/** Stops accepting connections and lets requests in flight finish within the grace; then closes theirs. */
async function finishRequests(bun: Portico['app']['server'], graceMs: number, ms: () => number): Promise<void> {
  const inFlight = bun?.pendingRequests ?? 0
  const closing = bun ? bun.stop(false) : Promise.resolve()
  log.info('stop: no longer accepting connections', { ms: ms(), requests_in_flight: inFlight })
  const finished = await Promise.race([closing.then(() => true), Bun.sleep(graceMs).then(() => false)])
  if (!finished) {
    log.warn('stop: requests still in flight after the grace; closing their connections', { ms: ms(), requests_in_flight: bun?.pendingRequests ?? 0 })
    await bun?.stop(true)
  }
  log.info('stop: requests finished', { ms: ms() })
}

/** Development with generated operator secrets: say where they are and how to make a first tenant. */
function printFirstSteps(config: Config): void {
  const { provisionSecret, managementKey } = config.generatedSecrets
  if (!provisionSecret && !managementKey) return
  const lines = ['', 'Development secrets (generated, kept across restarts):']
  if (provisionSecret) lines.push(`  PROVISION_SECRET in ${provisionSecret}`)
  if (managementKey) lines.push(`  MANAGEMENT_KEY   in ${managementKey}`)
  lines.push(
    'Provision a first tenant:',
    `  curl -X POST ${config.publicUrl}/v1/tenants:provision -H "X-Provision-Secret: ${provisionSecret ? `$(cat ${provisionSecret})` : '$PROVISION_SECRET'}" \\`,
    `    --json '{"tenant_name":"Acme","owner_email":"ops@acme.example"}'`,
    '',
  )
  flushLogs()
  console.log(lines.join('\n'))
}

main().catch((err) => {
  log.error('start failed', errorFields(err))
  process.exit(1)
})
