// Secure (the API contract, sections 1, 2 and 6): one certificate per served connection, issued through
// ACME and renewed before `renew_after` (two thirds into its validity), or imported by the customer.
// Every status change writes a `secure_status` event; the certificate goes to the edge once issued
// and leaves it on deprovision or disconnect.
// Invariants:
// - The private key is stored sealed with SECRETS_KEY and never leaves Portico except to the edge.
// - An imported certificate is refused unless its key matches, its chain links up, it names the
//   domain and it has not expired; nothing is stored or sent to the edge before every check passed.
import { isUniqueViolation } from '../db/unavailable.ts'
import { X509Certificate, createPrivateKey } from 'node:crypto'
import type { Sql } from '../db/sql.ts'
import {
  certificateById,
  countAttempt,
  insertPendingCertificate,
  lockCertificateOf,
  markServed,
  setCertificateRemoved,
  setCertificateStatus,
  setIssued,
  setOrderFailed,
  setRenewalWarning,
  type CertificateRow,
} from '../db/certificates.ts'
import type { Clock } from '../clock.ts'
import { ApiError, invalid } from '../errors.ts'
import { newId } from '../ids.ts'
import { errorFields, log } from '../logger.ts'
import { retryAfterMs, type CertificateIssuer, type Dns01Delegation } from '../adapters/acme.ts'
import { DcvUnavailable } from '../adapters/dcv.ts'
import type { Edge } from '../adapters/edge.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { connectionEnvelope, emit } from './events.ts'
import { isTestDomain, ordersCertificate, testIssuer, TEST_DOMAIN_SUFFIX } from './test-mode.ts'
import { decrypt, encrypt } from '../crypto.ts'

const SEAL = 'certificate-key'


export interface SecureDeps {
  db: Sql
  clock: Clock
  /** Certificate keys are sealed with SECRETS_KEY. */
  config: { secretsKey: Buffer }
  edge: Edge
  issuer?: CertificateIssuer
}

export const certificateOut = (c: CertificateRow) => ({
  id: c.id,
  domain: c.domain,
  application_id: c.application_id,
  status: c.status,
  issuer: c.issuer,
  not_before: c.not_before,
  not_after: c.not_after,
  last_error: c.last_error,
  managed: c.managed,
  renew_after: c.renew_after,
  updated_at: c.updated_at,
  names: c.names,
  challenge: c.challenge ?? 'http-01',
  renewal_warning: c.renewal_warning ?? null,
})

/** Two thirds into the validity: 60 days before the end of a 90-day certificate. */
export const renewAfter = (notBefore: Date, notAfter: Date) => new Date(notBefore.getTime() + ((notAfter.getTime() - notBefore.getTime()) * 2) / 3)

async function secureStatus(sql: Sql, c: ConnectionRow, cert: CertificateRow, now: Date): Promise<void> {
  // The connection carries its certificate's status (a renewal in flight leaves `issued` in place).
  const status = cert.status === 'removed' ? null : cert.status
  await setCertificateStatus(sql, c, status)
  const env = connectionEnvelope(c, 'secure_status', now, { certificate: certificateOut(cert) }, { secure_status: cert.status })
  await emit(sql, c.tenant_id, c.application_id, c.id, env)
}

/** Names a certificate for this connection covers: the domain, and www when the apex redirects there. */
export function certificateNames(c: ConnectionRow, redirectToWww: boolean): string[] {
  return redirectToWww && c.domain === c.apex_domain ? [c.domain, `www.${c.domain}`] : [c.domain]
}

async function saveIssued(deps: SecureDeps, c: ConnectionRow, id: string, names: string[], managed: boolean, certPem: string, keyPem: string, facts: { issuer: string; notBefore: Date; notAfter: Date }, challenge: 'http-01' | 'dns-01' = 'http-01'): Promise<CertificateRow> {
  const now = deps.clock.now()
  const renew = managed ? renewAfter(facts.notBefore, facts.notAfter) : null
  const cert = await deps.db.begin(async (tx) => {
    const row = await setIssued(tx, id, {
      managed,
      names,
      issuer: facts.issuer,
      not_before: facts.notBefore,
      not_after: facts.notAfter,
      renew_after: renew,
      cert_pem: certPem,
      key_sealed: encrypt(deps.config.secretsKey, keyPem, SEAL),
      challenge,
    }, now)
    await secureStatus(tx, c, row, now)
    return row
  })
  try {
    await deps.edge.putCertificate(c.id, certPem, keyPem)
  } catch (err) {
    // The CA issued it: only the push failed. The edge sweep puts it on the node when it answers again.
    log.warn('issued certificate not put on the edge', { connection_id: c.id, ...errorFields(err) })
    throw new EdgePushFailed(`The certificate is issued; an edge node does not hold it yet (${(err as Error).message ?? String(err)}). It is put there when the node answers again`)
  }
  // Its own transaction: an operation's pool refuses a write outside one (every write commits with its audit row).
  await deps.db.begin((tx) => markServed(tx, c.id, deps.clock.now()))
  return cert
}

/** The certificate was issued and saved, but an edge node did not take it. */
class EdgePushFailed extends Error {}

/**
 * A failed order is tried again soon at first (a CA or network hiccup), then hourly, unless the CA
 * said when (Retry-After): by the number of tries before this one.
 */
const RETRY_BACKOFF_MS = [10_000, 60_000, 10 * 60_000]
export const RETRY_FAILED_MS = 60 * 60 * 1000
/** An order `pending` for less than this is in flight in some process: another caller waits for it. */
const ORDER_IN_FLIGHT_MS = 10 * 60 * 1000

/**
 * A pending row for this connection (the existing one when there is one): the start of an issuance.
 * `inFlight` when another caller's order for it started moments ago: the CA is not asked twice.
 */
async function pendingRow(deps: SecureDeps, c: ConnectionRow, names: string[], managed: boolean, challenge: 'http-01' | 'dns-01', again = true): Promise<CertificateRow & { inFlight?: boolean }> {
  const now = deps.clock.now()
  // Orders asked together for a connection without a certificate row: one inserts it, the others
  // meet its unique key and look again, finding the order in flight (never a 500).
  const retry = (err: unknown) => {
    if (again && isUniqueViolation(err)) return pendingRow(deps, c, names, managed, challenge, false)
    throw err
  }
  return deps.db.begin(async (tx) => {
    const existing = await lockCertificateOf(tx, c.id)
    // Pending with a retry time: an order waiting for the DCV zone's server, not one in flight.
    if (existing?.status === 'pending' && !existing.retry_at) return { ...existing, inFlight: now.getTime() - existing.updated_at.getTime() < ORDER_IN_FLIGHT_MS }
    const row = existing
      ? await countAttempt(tx, existing, now, challenge)
      : await insertPendingCertificate(tx, { id: newId('crt', now.getTime()), tenant_id: c.tenant_id, application_id: c.application_id, connection_id: c.id, domain: c.domain, names, managed, challenge }, now)
    if (!existing) await secureStatus(tx, c, row, now)
    return row
  }).catch(retry)
}

/**
 * A DCV zone server that does not answer: the order waits for it, tried again this soon, then twice
 * as long each time up to DCV_RETRY_MAX_MS (each wait is a `secure_status` event, so not every 10 s).
 */
export const DCV_RETRY_MS = 10_000
const DCV_RETRY_MAX_MS = 10 * 60_000

/**
 * Issues (or renews) the connection's certificate through ACME and puts it on the edge: by HTTP-01
 * through the edge, or with `dns01` by DNS-01 through delegated DCV (src/domain/prevalidation.ts). A
 * failure is recorded on the certificate (`failed`, `last_error`) and answered as `certificate_failed`;
 * a DCV zone server that does not answer is recorded the same way, answered `service_unavailable`
 * (`dcv_unavailable`) and tried again within seconds; an issued certificate being renewed stays
 * served until its replacement arrives.
 */
export async function issueCertificate(deps: SecureDeps, c: ConnectionRow, names: string[], opts: { dns01?: Dns01Delegation } = {}): Promise<CertificateRow> {
  // A test domain's order goes to the test CA, which reaches no one (src/domain/test-mode.ts); only the
  // one that plays a certificate failure is ordered one: any other is refused before anything is recorded.
  if (isTestDomain(c.domain)) {
    if (!ordersCertificate(c.domain)) {
      throw new ApiError('invalid_request', `${c.domain} is a test domain: test mode orders a certificate for certificate-failed.${TEST_DOMAIN_SUFFIX} only (docs/test-mode.md)`, { reason: 'test_mode_no_certificate' })
    }
    deps = { ...deps, issuer: testIssuer(c.domain) }
  }
  if (!deps.issuer) throw new ApiError('service_unavailable', 'No ACME CA is configured on this deployment (ACME_DIRECTORY_URL)')
  // The CA checks HTTP-01 through the edge: while a node cannot serve the challenge, no order is
  // placed (it could only fail, and push the retry out). Nothing is recorded: the order is placed as
  // soon as the edge answers again (the edge watch wakes the issuer).
  // DNS-01 does not go through the edge: the order is placed, and a node that lacks the certificate
  // gets it from the edge sweep (pre-validation waits for every node before asking for routing).
  if (!isTestDomain(c.domain) && !opts.dns01 && deps.edge.canServe && !(await deps.edge.canServe())) throw edgeUnavailable()
  const row = await pendingRow(deps, c, names, true, opts.dns01 ? 'dns-01' : 'http-01')
  if (row.inFlight) return awaitOrder(deps, row.id)
  try {
    // DNS-01: the DCV zone's server answers first, or the CA is not asked (an order it could only fail).
    if (opts.dns01) await opts.dns01.zone.ping()
    const issued = await deps.issuer.issue(names, opts)
    return await saveIssued(deps, c, row.id, names, true, issued.certPem, issued.keyPem, issued, opts.dns01 ? 'dns-01' : 'http-01')
  } catch (err) {
    if (err instanceof EdgePushFailed) throw new ApiError('service_unavailable', err.message.slice(0, 300), { reason: 'edge_unavailable' }, { headers: { 'retry-after': '10' } })
    const dcvDown = err instanceof DcvUnavailable
    const message = dcvDown ? `The DCV zone's DNS server does not answer; the order waits for it (${(err as Error).message})` : ((err as Error).message ?? String(err))
    log.warn('certificate issuance failed', { connection_id: c.id, domain: c.domain, ...errorFields(err) })
    const now = deps.clock.now()
    const wait = dcvDown ? Math.min(DCV_RETRY_MS * 2 ** row.attempts, DCV_RETRY_MAX_MS) : retryAfterMs(err)
    const retryAt = new Date(now.getTime() + (wait ?? RETRY_BACKOFF_MS[row.attempts] ?? RETRY_FAILED_MS))
    await deps.db.begin(async (tx) => {
      const cur = await certificateById(tx, row.id)
      // A renewal that fails leaves the served certificate in place, with the error noted. A first order
      // waiting for the DCV zone's server is still pending (it waits; the CA refused nothing).
      const status = cur?.status === 'issued' ? 'issued' : dcvDown ? 'pending' : 'failed'
      const failed = await setOrderFailed(tx, row, status, message.slice(0, 500), retryAt, now)
      await secureStatus(tx, c, failed, now)
    })
    if (dcvDown) throw new ApiError('service_unavailable', message.slice(0, 300), { reason: 'dcv_unavailable' }, { headers: { 'retry-after': String(Math.ceil(wait! / 1000)) } })
    const refused = new ApiError('certificate_failed', `The CA did not issue a certificate for ${names.join(', ')}`, { reason: 'ca_refused', provider_message: message.slice(0, 300) })
    throw wait === null ? refused : Object.assign(refused, { retryAfterMs: wait })
  }
}

export const edgeUnavailable = () =>
  new ApiError('service_unavailable', 'The edge cannot answer the certificate authority\'s challenge right now; the certificate is ordered as soon as it is back', { reason: 'edge_unavailable' }, { headers: { 'retry-after': '10' } })

/** Waits for another caller's order to end (issued or failed), and answers as if it were this one's. */
async function awaitOrder(deps: SecureDeps, id: string): Promise<CertificateRow> {
  for (let waited = 0; waited < ORDER_IN_FLIGHT_MS; waited += 250) {
    const row = await certificateById(deps.db, id)
    if (!row || row.status === 'issued') return row!
    if (row.status !== 'pending') throw new ApiError('certificate_failed', `The CA did not issue a certificate for ${row.names.join(', ')}`, { reason: 'ca_refused', provider_message: (row.last_error ?? '').slice(0, 300) })
    await Bun.sleep(250)
  }
  throw new ApiError('service_unavailable', 'A certificate order for this connection is still running; try again shortly')
}

function pemBlocks(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []
}

/** The checks of an imported certificate, each refused with its own reason. */
export function validateImport(c: ConnectionRow, certificate: string, privateKey: string, now: Date): { leaf: X509Certificate; names: string[] } {
  const blocks = pemBlocks(certificate)
  if (blocks.length === 0) throw invalid('certificate is not a PEM certificate', [{ in: 'body', field: 'certificate', message: 'expected -----BEGIN CERTIFICATE-----' }])
  let chain: X509Certificate[]
  try {
    chain = blocks.map((b) => new X509Certificate(b))
  } catch (err) {
    throw invalid(`certificate cannot be read: ${(err as Error).message}`, [{ in: 'body', field: 'certificate', message: 'unreadable' }])
  }
  let key
  try {
    key = createPrivateKey(privateKey)
  } catch {
    throw invalid('private_key is not a PEM private key', [{ in: 'body', field: 'private_key', message: 'unreadable' }])
  }
  const leaf = chain[0]!
  if (!leaf.checkPrivateKey(key)) throw invalid('The private key does not match the certificate', [{ in: 'body', field: 'private_key', message: 'key_mismatch' }])
  for (let i = 0; i + 1 < chain.length; i++) {
    if (!chain[i]!.verify(chain[i + 1]!.publicKey)) {
      throw invalid(`The chain is broken: certificate ${i + 1} is not signed by certificate ${i + 2}`, [{ in: 'body', field: 'certificate', message: 'chain_broken' }])
    }
  }
  if (new Date(leaf.validTo).getTime() <= now.getTime()) {
    throw invalid(`The certificate expired on ${new Date(leaf.validTo).toISOString()}`, [{ in: 'body', field: 'certificate', message: 'expired' }])
  }
  if (new Date(leaf.validFrom).getTime() > now.getTime()) {
    throw invalid(`The certificate is not valid before ${new Date(leaf.validFrom).toISOString()}`, [{ in: 'body', field: 'certificate', message: 'not_yet_valid' }])
  }
  if (!leaf.checkHost(c.domain)) {
    throw invalid(`The certificate does not name ${c.domain} (it names ${leaf.subjectAltName ?? leaf.subject})`, [{ in: 'body', field: 'certificate', message: 'hostname_mismatch' }])
  }
  const names = (leaf.subjectAltName ?? '').split(/,\s*/).filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4))
  return { leaf, names: names.length ? names : [c.domain] }
}

/** Imports a customer's certificate and key (not renewed by Portico: `managed: false`). */
export async function importCertificate(deps: SecureDeps, c: ConnectionRow, certificate: string, privateKey: string): Promise<CertificateRow> {
  const { leaf, names } = validateImport(c, certificate, privateKey, deps.clock.now())
  const row = await pendingRow(deps, c, names, false, 'http-01')
  const issuerCn = /CN=([^\n,]+)/.exec(leaf.issuer)?.[1] ?? leaf.issuer
  const keyPem = createPrivateKey(privateKey).export({ type: 'pkcs8', format: 'pem' }).toString()
  return saveIssued(deps, c, row.id, names, false, certificate, keyPem, { issuer: issuerCn, notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo) })
}

/**
 * Says ahead of expiry that the next renewal cannot validate (`warning`; null clears it), with a
 * `secure_status` event when that changes; the certificate stays served meanwhile.
 */
export async function warnRenewal(deps: Pick<SecureDeps, 'db' | 'clock'>, c: ConnectionRow, warning: string | null): Promise<CertificateRow | undefined> {
  const now = deps.clock.now()
  return deps.db.begin(async (tx) => {
    const row = await setRenewalWarning(tx, c.id, warning, now)
    if (row) await secureStatus(tx, c, row, now)
    return row
  })
}

/** Marks the connection's certificate removed (`secure_status: removed`) in the caller's transaction. */
export async function markCertificateRemoved(sql: Sql, c: ConnectionRow, now: Date): Promise<CertificateRow | null> {
  const row = await setCertificateRemoved(sql, c, now)
  if (row) await secureStatus(sql, c, row, now)
  return row ?? null
}

/** Takes the certificate off the edge and marks it removed. */
export async function deprovisionCertificate(deps: Pick<SecureDeps, 'db' | 'clock' | 'edge'>, c: ConnectionRow): Promise<CertificateRow | null> {
  const removed = await deps.db.begin((tx) => markCertificateRemoved(tx, c, deps.clock.now()))
  if (removed) await deps.edge.removeCertificate(c.id)
  return removed
}

/** The stored key of an issued certificate (to put it back on an edge that restarted). */
export const certificateKey = (config: { secretsKey: Buffer }, cert: CertificateRow) => decrypt(config.secretsKey, cert.key_sealed!, SEAL)
