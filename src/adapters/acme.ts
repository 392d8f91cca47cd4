// Certificates from an ACME CA (ACME_DIRECTORY_URL) through `acme-client`, by HTTP-01. The answers
// live in the database (acme_challenges), so whichever Portico process the edge forwards
// `/.well-known/acme-challenge/<token>` to can serve them; the account key is created once and kept
// sealed with SECRETS_KEY. The CA checks the challenge itself: no self-check through public DNS first.
import * as acme from 'acme-client'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import type { Sql } from '../db/sql.ts'
import { accountUrlOf, keepAccountKey, keepAccountUrl, putChallenge, removeChallenge, sealedAccountKey } from '../db/acme.ts'
import { decrypt, encrypt } from '../crypto.ts'
import type { DcvZone } from './dcv.ts'

/** The challenge Portico answers (the domain check judges CAA `validationmethods` and `_acme-challenge` by it). */
export const ACME_CHALLENGE = 'http-01' as const

export interface Issued {
  certPem: string
  keyPem: string
  issuer: string
  notBefore: Date
  notAfter: Date
}

/**
 * DNS-01 through delegated DCV: the answer for a name is written at `labelOf(name)` in the DCV zone
 * (the name's `_acme-challenge` CNAME points there). Without it, orders validate by HTTP-01.
 */
export interface Dns01Delegation {
  zone: DcvZone
  /** The DCV label of a hostname (for a wildcard, of the name below the `*.`). */
  labelOf(name: string): string
}

export interface CertificateIssuer {
  issue(names: string[], opts?: { dns01?: Dns01Delegation }): Promise<Issued>
}

const SEAL = 'acme-account'

/**
 * The CA's Retry-After (RFC 8555 §6.6) on a rate-limited request: acme-client waits it out and retries
 * a few times itself, and when it gives up the error carries the wait, for the caller to pause on.
 */
acme.axios.interceptors.response.use(undefined, (err: { response?: { status?: number; headers?: Record<string, string> }; retryAfterMs?: number }) => {
  if (err?.response?.status === 429) err.retryAfterMs = parseRetryAfter(err.response.headers?.['retry-after'])
  return Promise.reject(err)
})

/** A Retry-After header (seconds or an HTTP date) in milliseconds; a minute when absent or unreadable. */
export function parseRetryAfter(header: string | undefined, now = Date.now()): number {
  if (header && /^\d+$/.test(header.trim())) return Number(header.trim()) * 1000
  const at = header ? Date.parse(header) : NaN
  return Number.isNaN(at) ? 60_000 : Math.max(0, at - now)
}

/** How long to wait before ordering again, when `err` is the CA's rate limit; null for any other failure. */
export function retryAfterMs(err: unknown): number | null {
  const e = err as { retryAfterMs?: unknown; message?: unknown } | null
  if (typeof e?.retryAfterMs === 'number') return e.retryAfterMs
  return typeof e?.message === 'string' && /ratelimited|rate limit/i.test(e.message) ? 60_000 : null
}
const CHALLENGE_TTL_MS = 15 * 60 * 1000

/** The issuer and validity of a PEM certificate (the first of a chain). */
export function certificateFacts(certPem: string): { issuer: string; notBefore: Date; notAfter: Date; names: string[] } {
  const info = acme.crypto.readCertificateInfo(certPem)
  return { issuer: info.issuer.commonName ?? 'unknown', notBefore: info.notBefore, notAfter: info.notAfter, names: info.domains.altNames }
}

/** The ACME CA (ACME_DIRECTORY_URL and its fellows, read by src/config.ts). */
export interface AcmeSettings {
  directoryUrl: string
  email: string | null
  /** A PEM file of the CA's roots (a private or test CA). */
  caRoots: string | null
  /** The issuer domain names CAA records must allow for this CA (RFC 8659). */
  caaIdentities: string[]
}

/** A CA's answer that the account an order was signed for does not exist, or is no longer valid (RFC 8555 accountDoesNotExist, unauthorized). */
const ACCOUNT_GONE = /account\b.*\b(not found|does not exist|is not valid|deactivated)|no existing account/i

export class AcmeIssuer implements CertificateIssuer {
  private client: Promise<acme.Client> | null = null

  constructor(
    private readonly settings: AcmeSettings,
    private readonly deps: { db: Sql; secretsKey: Buffer },
  ) {
    // acme-client talks through its own axios instance: trust the CA's roots there (a private or test CA).
    if (settings.caRoots) acme.axios.defaults.httpsAgent = new https.Agent({ ca: readFileSync(settings.caRoots, 'utf8') })
  }

  private async accountKey(): Promise<string> {
    const { db, secretsKey } = this.deps
    const read = async () => {
      const sealed = await sealedAccountKey(db, this.settings.directoryUrl)
      return sealed ? decrypt(secretsKey, sealed, SEAL) : null
    }
    const have = await read()
    if (have) return have
    const key = (await acme.crypto.createPrivateEcdsaKey()).toString()
    // Two processes at once: the first insert wins and both use it.
    await keepAccountKey(db, this.settings.directoryUrl, encrypt(secretsKey, key, SEAL))
    return (await read())!
  }

  private acmeClient(forget?: string): Promise<acme.Client> {
    this.client ??= Promise.all([this.accountKey(), accountUrlOf(this.deps.db, this.settings.directoryUrl)])
      .then(async ([accountKey, stored]) => {
        const accountUrl = stored === forget ? null : stored
        // Order and challenge status are polled from half a second on (the library's default waits 5 s first).
        // A known account URL: no request about the account at all (acme-client asks only while it has none).
        const client = new acme.Client({ directoryUrl: this.settings.directoryUrl, accountKey, backoffMin: 500, backoffMax: 10_000, ...(accountUrl ? { accountUrl } : {}) })
        if (!accountUrl) {
          await this.findOrMakeAccount(client)
          // Kept beside the key: every other process, and this one after a restart, orders under it.
          await keepAccountUrl(this.deps.db, this.settings.directoryUrl, client.getAccountUrl(), stored)
        }
        return client
      })
      .catch((err) => {
        this.client = null
        throw err
      })
    return this.client
  }

  /**
   * The account is found, or made, once per process before any order. Left to each order, every order
   * of a process whose key the CA already knew (another process made the account, or this one before a
   * restart) asked to make it, was told it existed, and followed with an update carrying nothing new,
   * which a CA may refuse (Pebble does): that process's first orders failed.
   */
  private async findOrMakeAccount(client: acme.Client): Promise<void> {
    const find = () => client.createAccount({ onlyReturnExisting: true }).then(() => true, () => false)
    if (await find()) return
    const made = { termsOfServiceAgreed: true, ...(this.settings.email ? { contact: [`mailto:${this.settings.email}`] } : {}) }
    // Another process may make it meanwhile: then it is there to be found.
    await client.createAccount(made).catch(async (err: unknown) => {
      if (!(await find())) throw err
    })
  }

  async issue(names: string[], opts: { dns01?: Dns01Delegation } = {}): Promise<Issued> {
    const client = await this.acmeClient()
    try {
      return await this.order(client, names, opts)
    } catch (err) {
      if (!ACCOUNT_GONE.test(err instanceof Error ? err.message : String(err))) throw err
      // The CA no longer knows the account the kept URL names (a CA that lost or deactivated it, a test
      // CA started again at the same address): the account is found or made again, once, and kept.
      const gone = client.getAccountUrl()
      if (this.client && (await this.client.catch(() => null)) === client) this.client = null
      return this.order(await this.acmeClient(gone), names, opts)
    }
  }

  private async order(client: acme.Client, names: string[], opts: { dns01?: Dns01Delegation }): Promise<Issued> {
    const [key, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names }, await acme.crypto.createPrivateEcdsaKey())
    const { db } = this.deps
    const dns01 = opts.dns01
    const certPem = await client.auto({
      csr,
      termsOfServiceAgreed: true,
      skipChallengeVerification: true,
      challengePriority: dns01 ? ['dns-01'] : ['http-01'],
      challengeCreateFn: async (authz, challenge, keyAuthorization) => {
        if (challenge.type === 'dns-01' && dns01) await dns01.zone.answer(dns01.labelOf(authz.identifier.value), keyAuthorization)
        else await putChallenge(db, challenge.token, keyAuthorization, new Date(Date.now() + CHALLENGE_TTL_MS))
      },
      challengeRemoveFn: async (authz, challenge, keyAuthorization) => {
        if (challenge.type === 'dns-01' && dns01) await dns01.zone.withdraw(dns01.labelOf(authz.identifier.value), keyAuthorization)
        else await removeChallenge(db, challenge.token)
      },
    })
    const facts = certificateFacts(certPem)
    return { certPem, keyPem: key.toString(), issuer: facts.issuer, notBefore: facts.notBefore, notAfter: facts.notAfter }
  }
}

