// An in-process Portico on the test database, with a movable clock and small helpers that speak
// HTTP to it the way an integrator would (through the real request handler).
import { MovableClock } from '../../src/clock.ts'
import { loadConfig, type Config } from '../../src/config.ts'
import { createPortico, type Portico } from '../../src/server.ts'
import { dropTestDatabase, testDatabaseUrl } from './db.ts'

export const MGMT = 'mgmt_test_key_0123456789'
export const PROV = 'prov_test_secret_0123456789'
export const EDGE = 'edge_test_secret_0123456789'

export interface TestPortico extends Portico {
  clock: MovableClock
  api: (method: string, path: string, opts?: ApiOpts) => Promise<ApiResponse>
}

export interface ApiOpts {
  token?: string
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}

export interface ApiResponse {
  status: number
  body: any
  headers: Headers
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    APP_ENV: 'test',
    PUBLIC_URL: 'http://portico.test',
    MANAGEMENT_KEY: MGMT,
    PROVISION_SECRET: PROV,
    EDGE_AUTH_SECRET: EDGE,
    SECRETS_KEY: '11'.repeat(32),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL || 'silent',
    DATA_DIR: '/tmp/portico-test-data',
    PORTICO_VERSION: 'test',
    // Tests drive sweeps themselves with the movable clock; a dedicated test runs the workers.
    PORTICO_ROLE: 'api',
    // Every test file registers agents from 127.0.0.1 into one database; the budgets have their own tests.
    AGENT_REGISTRATION_BUDGET: '1000/1000/10000',
    // The same for a person's sign-in links; the throttle has its own test.
    SIGNIN_BUDGET: '10000/10000/10000',
    // Per-credential limits far above any test's traffic; they have their own test (rate-limits.test.ts).
    RATE_LIMITS: 'api_key=1000000,application=1000000,end_user=1000000,agent_grant=1000000',
    // Never the machine's resolv.conf: only loopback servers are test targets.
    DNS_RESOLVERS: '127.0.0.1:53',
    ...env,
  })
}

let shared: Promise<TestPortico> | null = null

/** A Portico handling requests in this process; `databaseUrl`: a database of its own (default: this run's); `poolSize`: its pool (default 10). */
export async function startPortico(env: Record<string, string> = {}, opts: { databaseUrl?: string; poolSize?: number } = {}): Promise<TestPortico> {
  const clock = new MovableClock()
  const portico = await createPortico(testConfig(env), { clock, databaseUrl: opts.databaseUrl ?? (await testDatabaseUrl()), poolSize: opts.poolSize })
  const api = async (method: string, path: string, opts: ApiOpts = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...opts.headers }
    if (opts.token) headers.authorization = `Bearer ${opts.token}`
    let body: string | undefined = opts.rawBody
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body)
      headers['content-type'] = 'application/json'
    }
    const res = await portico.handle(new Request(`http://portico.test${path}`, { method, headers, body }))
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text ? JSON.parse(text) : undefined
    } catch {
      // not JSON; the raw text is returned for the test to look at
    }
    return { status: res.status, body: parsed, headers: res.headers }
  }
  return { ...portico, clock, api }
}

/** One Portico per test process, shared by every test file; test/harness/setup.ts closes it. */
export function sharedPortico(): Promise<TestPortico> {
  // Every file using it sends its wrong credentials from 127.0.0.1 into this one instance; the
  // failure budget has its own tests (test/integration/throttle.test.ts) on porticos of their own.
  shared ??= startPortico({ AUTH_FAILURE_BUDGET: '100000/100000' })
  return shared
}

export async function closeShared(): Promise<void> {
  const p = await shared
  shared = null
  await p?.close()
  await dropTestDatabase()
}

export interface Workspace {
  tenantId: string
  appId: string
  apiKey: string
  clientSecret: string
}

let counter = 0

/** A fresh workspace through the provisioning route: each test gets its own tenant. */
export async function provision(p: TestPortico, over: Record<string, unknown> = {}): Promise<Workspace> {
  const r = await p.api('POST', '/v1/tenants:provision', {
    headers: { 'x-provision-secret': PROV },
    body: { tenant_name: `Tenant ${++counter}`, owner_email: `owner${counter}@example.com`, ...over },
  })
  if (r.status !== 201) throw new Error(`provision failed: ${r.status} ${JSON.stringify(r.body)}`)
  return { tenantId: r.body.tenant_id, appId: r.body.application_id, apiKey: r.body.api_key, clientSecret: r.body.client_secret }
}

export async function widgetToken(p: TestPortico, ws: Workspace, extra: Record<string, unknown> = {}): Promise<string> {
  const r = await p.api('POST', '/v1/tokens', { body: { application_id: ws.appId, client_secret: ws.clientSecret, ...extra } })
  if (r.status !== 200) throw new Error(`token failed: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.token
}

/** An answer as a client reads it: status, parsed body, headers. */
export interface Sent {
  status: number
  body: any
  headers: Headers
}

/** One request to `p` from `ip` (the socket's peer address), as a client on that address sends it. */
export async function fromAddress(p: TestPortico, ip: string, method: string, path: string, opts: { token?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Sent> {
  const headers: Record<string, string> = { ...opts.headers }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  const res = await p.handle(new Request(`http://portico.test${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) }), ip)
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers }
}

/** An API key of the right shape that no workspace holds: a guess, or a stale worker's old key. */
export const wrongKey = () => `ptc_live_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url')}`
