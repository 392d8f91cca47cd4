// Ad-hoc: serve Portico either through Elysia (as main.ts) or a bare Bun.serve calling the REST handler.
import { loadConfig } from '../../src/config.ts'
import { createPortico } from '../../src/server.ts'
const config = loadConfig()
const portico = await createPortico(config, { databaseUrl: process.env.DATABASE_URL! })
if (process.env.SERVE === 'bare') {
  Bun.serve({ port: config.port, hostname: '127.0.0.1', fetch: (req, server) => portico.handle(req, server.requestIP(req)?.address ?? null) })
} else {
  portico.app.listen({ port: config.port, hostname: '127.0.0.1' })
}
