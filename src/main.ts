// Start: configuration, database (embedded when DATABASE_URL is absent), migrations, HTTP and workers.
import './quiet-warnings.ts' // first: before any dependency prints at load
import { ConfigError, loadConfig, type Config } from './config.ts'
import { startEmbedded, type EmbeddedDb } from './db/embedded.ts'
import { createPortico } from './server.ts'
import { errorFields, flushLogs, log } from './logger.ts'

async function main(): Promise<void> {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`portico: configuration error: ${err.message}`)
      process.exit(2)
    }
    throw err
  }
  let embedded: EmbeddedDb | null = null
  let databaseUrl = config.databaseUrl
  if (!databaseUrl) {
    embedded = await startEmbedded(config.dataDir)
    databaseUrl = embedded.url
    log.info('embedded postgres started', { data_dir: config.dataDir })
  }
  const portico = await createPortico(config, { databaseUrl })
  const server = portico.app.listen({ port: config.port, hostname: process.env.HOST || '0.0.0.0' })
  log.info('portico listening', { port: server.server?.port, env: config.appEnv, version: config.version, role: config.role })
  printFirstSteps(config)

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    log.info('stopping', { signal })
    await server.stop()
    await portico.close()
    await embedded?.stop()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
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
