// Domain Connect settings (read once at start by src/config.ts):
// - DOMAIN_CONNECT_TEMPLATES_DIR: the template set served by GET /templates (default: the project's
//   own set in `templates/`).
// - DOMAIN_CONNECT_PRIVATE_KEY: the RSA private key (PEM, or base64 of the PEM) that signs synchronous
//   apply URLs. Outside production it is generated once into DATA_DIR/domain-connect.pem, like
//   SECRETS_KEY; in production without it, templates that ask for signing (syncPubKeyDomain) cannot
//   give apply URLs (503). The public key must be published as TXT at `<key host>.<syncPubKeyDomain>`.
// - DOMAIN_CONNECT_KEY_HOST: the `key` apply parameter, the label under syncPubKeyDomain (default `_dck1`).
// - DOMAIN_CONNECT_ASYNC_CLIENTS: JSON object, DNS Provider id (its settings `providerId`) to
//   `{client_id, client_secret, url_api}` issued by that provider for the asynchronous (OAuth) rail.
//   `url_api` is the provider's API prefix registered at onboarding: the token exchange and API calls
//   go there, never to the `urlAPI` a `_domainconnect` record points at (async draft, "DNS Provider
//   Discovery Spoofing of the API Endpoint": a forged record would otherwise receive the secret).
import { generateKeyPairSync, createPrivateKey } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export interface AsyncClient {
  client_id: string
  client_secret: string
  /** The provider's API prefix as registered at onboarding (https). */
  url_api: string
}

export interface DomainConnectSettings {
  templatesDir: string
  privateKeyPem: string | null
  keyHost: string
  asyncClients: Record<string, AsyncClient>
}

type Env = Record<string, string | undefined>
type Fail = (message: string) => Error

const DEFAULT_DIR = resolve(import.meta.dir, '../../../templates')

function privateKey(env: Env, production: boolean, dataDir: string, fail: Fail): string | null {
  const raw = env.DOMAIN_CONNECT_PRIVATE_KEY
  if (raw) {
    const pem = raw.includes('-----BEGIN') ? raw.replace(/\\n/g, '\n') : Buffer.from(raw, 'base64').toString('utf8')
    try {
      const key = createPrivateKey(pem)
      if (key.asymmetricKeyType !== 'rsa') throw new Error('not an RSA key')
    } catch (err) {
      throw fail(`DOMAIN_CONNECT_PRIVATE_KEY must be an RSA private key in PEM (or base64 of the PEM): ${(err as Error).message}`)
    }
    return pem
  }
  if (production) return null
  const file = join(dataDir, 'domain-connect.pem')
  if (existsSync(file)) return readFileSync(file, 'utf8')
  mkdirSync(dataDir, { recursive: true })
  const { privateKey: pem } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } })
  // Written aside and renamed, so a process starting at the same moment never reads half a key.
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, pem, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  if (existsSync(file)) return readFileSync(file, 'utf8')
  renameSync(tmp, file)
  return pem
}

function asyncClients(env: Env, fail: Fail, allowPlainHttp: boolean): Record<string, AsyncClient> {
  const raw = env.DOMAIN_CONNECT_ASYNC_CLIENTS
  if (!raw) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw fail('DOMAIN_CONNECT_ASYNC_CLIENTS must be a JSON object')
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw fail('DOMAIN_CONNECT_ASYNC_CLIENTS must be a JSON object')
  const out: Record<string, AsyncClient> = {}
  for (const [provider, v] of Object.entries(parsed)) {
    const c = v as Partial<AsyncClient>
    if (typeof c?.client_id !== 'string' || !c.client_id || typeof c.client_secret !== 'string' || !c.client_secret || typeof c.url_api !== 'string') {
      throw fail(`DOMAIN_CONNECT_ASYNC_CLIENTS.${provider} needs client_id, client_secret and url_api strings`)
    }
    let url: URL
    try {
      url = new URL(c.url_api)
    } catch {
      throw fail(`DOMAIN_CONNECT_ASYNC_CLIENTS.${provider}.url_api must be an absolute URL`)
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowPlainHttp) || url.search || url.hash) {
      throw fail(`DOMAIN_CONNECT_ASYNC_CLIENTS.${provider}.url_api must be an https URL without query or fragment`)
    }
    out[provider.toLowerCase()] = { client_id: c.client_id, client_secret: c.client_secret, url_api: c.url_api.replace(/\/+$/, '') }
  }
  return out
}

export function domainConnectSettings(env: Env, production: boolean, dataDir: string, fail: Fail): DomainConnectSettings {
  const templatesDir = resolve(env.DOMAIN_CONNECT_TEMPLATES_DIR || DEFAULT_DIR)
  if (!existsSync(templatesDir) || !statSync(templatesDir).isDirectory()) throw fail(`DOMAIN_CONNECT_TEMPLATES_DIR: ${templatesDir} is not a directory`)
  const keyHost = (env.DOMAIN_CONNECT_KEY_HOST || '_dck1').toLowerCase()
  // The spec's dc-key-label: one DNS label, plain or underscore-prefixed (RFC 8552).
  if (!/^_?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/.test(keyHost)) throw fail('DOMAIN_CONNECT_KEY_HOST must be one DNS label such as _dck1')
  return { templatesDir, privateKeyPem: privateKey(env, production, dataDir, fail), keyHost, asyncClients: asyncClients(env, fail, !production && /^(1|true|yes|on)$/i.test(env.WEBHOOK_ALLOW_LOOPBACK ?? '')) }
}
