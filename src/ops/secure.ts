// Secure (CONTRACT.md section 4 "Templates, Secure, Monitor"): certificates of connected domains.
// `GET /ssl` and `GET /connections/{id}/ssl` are the contract's; issue, renew, import and deprovision
// are Portico's design (the contract names them only by group):
//   POST   /connections/{id}/ssl:issue   issue now through ACME (normally the edge sweep does it once the connection is live)
//   POST   /connections/{id}/ssl:renew   renew now (normally done after `renew_after`)
//   PUT    /connections/{id}/ssl         import the customer's certificate and key
//   DELETE /connections/{id}/ssl         deprovision: off the edge, marked removed
// Without an edge (EDGE_ADMIN_URL) every one answers 503; issue and renew also need ACME_DIRECTORY_URL.
import { Type } from '@sinclair/typebox'
import { ApiError, notFound } from '../errors.ts'
import { connectionFor } from '../domain/connections.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { certificateNames, certificateOut, deprovisionCertificate, importCertificate, issueCertificate, type SecureDeps } from '../domain/certificates.ts'
import { certificateOf, certificatesInScope } from '../db/certificates.ts'
import { checkDelegationBeforeRenewal, delegationOf } from '../domain/prevalidation.ts'
import { powerOf } from '../db/power.ts'
import { isTestDomain } from '../domain/test-mode.ts'
import type { Edge } from '../adapters/edge.ts'
import { defineOp, type Ctx } from './registry.ts'
import { APP_ONLY, END_USER } from './authority.ts'
import { IdParam, Input, Out, Timestamp } from './schemas.ts'

import { CertificateSchema } from '../domain/resource-schemas.ts'

const TAG = 'Secure'

export { CertificateSchema }

const CertificateOut = Out({ certificate: CertificateSchema })

function secure(ctx: Ctx, needCa = false): SecureDeps {
  const edge = ctx.services.edge
  if (!edge) throw new ApiError('service_unavailable', 'Secure is not available: no edge is configured on this deployment (EDGE_ADMIN_URL)')
  if (needCa && !ctx.services.issuer) throw new ApiError('service_unavailable', 'Secure issuance is not available: no ACME CA is configured (ACME_DIRECTORY_URL)')
  return { db: ctx.db, clock: ctx.clock, config: ctx.config, edge, issuer: ctx.services.issuer }
}

/** An edge that holds nothing: a test domain's certificate never reaches a real one. */
const TEST_EDGE: Edge = {
  sync: async () => false,
  present: async () => new Set(),
  putSite: async () => {},
  removeSite: async () => {},
  putCertificate: async () => {},
  removeCertificate: async () => {},
}

/** The connection when its domain is a reserved test domain; null otherwise (a foreign id: null, the usual 503 or 404 follows). */
async function testConnectionOf(ctx: Ctx, id: string): Promise<ConnectionRow | null> {
  const c = await connectionFor(ctx.db, ctx.principal, id).catch(() => null)
  return c && isTestDomain(c.domain) ? c : null
}

async function servedConnection(ctx: Ctx, id: string): Promise<ConnectionRow> {
  const c = await connectionFor(ctx.db, ctx.principal, id)
  if (c.status !== 'live') throw new ApiError('conflict', `${c.domain} is not live yet: a certificate is issued once its records are in place`, { status: c.status })
  return c
}

export const listCertificatesOp = defineOp({
  id: 'ssl.list',
  method: 'GET',
  path: '/ssl',
  summary: 'Certificates of the application',
  description: 'Every tracked certificate of the caller\'s application (a widget token), or of the workspace (an API key), newest first.',
  tag: TAG,
  auth: ['WIDGET', 'KEY'],
  widget: APP_ONLY,
  permission: 'connections:read',
  response: Out({ certificates: Type.Array(CertificateSchema) }),
  errors: ['unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'read',
  async handler(ctx) {
    secure(ctx)
    const p = ctx.principal
    const app = p.kind === 'WIDGET' ? p.applicationId : null
    const rows = await certificatesInScope(ctx.sql, p, app)
    return { certificates: rows.map(certificateOut) }
  },
})

export const getCertificateOp = defineOp({
  id: 'ssl.get',
  method: 'GET',
  path: '/connections/{id}/ssl',
  summary: 'The certificate of a connection',
  description: '404 `not_found` when no certificate is tracked yet.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:read',
  permission: 'connections:read',
  params: IdParam,
  response: CertificateOut,
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'read',
  zone: 'none',
  async handler(ctx, input) {
    secure(ctx)
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const cert = await certificateOf(ctx.sql, c.id)
    if (!cert) throw notFound('No certificate is tracked for this connection yet')
    return { certificate: certificateOut(cert) }
  },
})

const issueLike = (id: string, path: string, summary: string, description: string) =>
  defineOp({
    id,
    method: 'POST',
    path,
    summary,
    description,
    tag: TAG,
    auth: ['KEY'],
    permission: 'connections:write',
    params: IdParam,
    bodyOptional: true,
    body: Input({}),
    response: CertificateOut,
    errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'certificate_failed', 'service_unavailable'],
    kind: 'write',
    idempotent: true,
    transactions: 'steps',
    async handler(ctx, input) {
      // A test domain's order goes to the test CA and needs neither an edge nor a CA (src/domain/test-mode.ts).
      const test = !ctx.services.edge || !ctx.services.issuer ? await testConnectionOf(ctx, input.id) : null
      const deps = test ? { db: ctx.db, clock: ctx.clock, config: ctx.config, edge: ctx.services.edge ?? TEST_EDGE, issuer: ctx.services.issuer } : secure(ctx, true)
      const c = await servedConnection(ctx, input.id)
      const power = await powerOf(ctx.db, c.id)
      // A connection with a DCV delegation (pre-validation, a wildcard) validates through it, as its renewals do.
      const dcv = ctx.services.dcv
      const dns01 = c.dcv_label && dcv ? delegationOf(dcv, c) : undefined
      if (dns01) {
        // The delegation is looked at first, as the renewal job does: gone, no order is placed.
        const check = await checkDelegationBeforeRenewal({ ...deps, dns: ctx.services.dns }, c)
        if (check === 'inconclusive') throw new ApiError('service_unavailable', 'DNS lookups of the _acme-challenge delegation failed; try again shortly', { reason: 'dns_inconclusive' }, { headers: { 'retry-after': '5' } })
        if (check === 'missing') {
          const held = await certificateOf(ctx.db, c.id)
          if (held?.status === 'issued') return { certificate: certificateOut(held) }
          throw new ApiError('conflict', 'The _acme-challenge delegation does not resolve: put it back (GET /v1/connections/{id}/records lists it); no order was placed', { reason: 'dcv_delegation_missing' })
        }
      }
      const cert = await issueCertificate(deps, c, certificateNames(c, power?.redirect_to_www ?? false), { dns01 })
      ctx.audit.targetId = cert.id
      return { certificate: certificateOut(cert) }
    },
  })

export const issueCertificateOp = issueLike(
  'ssl.issue',
  '/connections/{id}/ssl:issue',
  'Issue the certificate now',
  'Orders the certificate from the ACME CA (HTTP-01 answered through the edge) and puts it on the edge. The edge sweep does this by ' +
    'itself within a minute of a connection pointed at the edge going live; this call does it at once. `secure_status` events follow ' +
    'the certificate (`pending`, then `issued` or `failed`). A live connection only (409 otherwise); a CA that does not issue is 422 ' +
    '`certificate_failed` with its reason, also kept as `last_error`. A test domain (docs/test-mode.md) other than ' +
    '`certificate-failed.sandbox.example` is ordered none: 400 `invalid_request` (`details.reason: test_mode_no_certificate`), nothing recorded.',
)

export const renewCertificateOp = issueLike(
  'ssl.renew',
  '/connections/{id}/ssl:renew',
  'Renew the certificate now',
  'Orders a new certificate before `renew_after` (the renewal job renews after it by itself). The current certificate keeps being ' +
    'served until the new one is issued; a failed renewal leaves it in place with `last_error`. A connection validated through ' +
    'the `_acme-challenge` delegation has it looked up first: gone, no order is placed and the certificate is answered with ' +
    '`renewal_warning` naming the record to put back (409 `conflict`, `dcv_delegation_missing`, when none is issued yet).',
)

export const importCertificateOp = defineOp({
  id: 'ssl.import',
  method: 'PUT',
  path: '/connections/{id}/ssl',
  summary: 'Import a certificate',
  description:
    'The customer\'s own certificate (PEM; intermediates after the leaf) and private key (PEM). Refused with 400 `invalid_request` when ' +
    'the key does not match (`key_mismatch`), the chain does not link up (`chain_broken`), the certificate has expired (`expired`) or ' +
    'is not yet valid, or it does not name the domain (`hostname_mismatch`); nothing is stored then. An imported certificate is not ' +
    'renewed by Portico (`managed: false`). Sending the same again answers the same certificate.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    certificate: Type.String({ minLength: 1, maxLength: 100_000, description: 'PEM: the leaf first, then intermediates' }),
    private_key: Type.String({ minLength: 1, maxLength: 20_000, description: 'PEM private key; stored sealed, never returned' }),
  }),
  response: CertificateOut,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'write',
  idempotent: true,
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = secure(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const cert = await importCertificate(deps, c, input.certificate, input.private_key)
    ctx.audit.targetId = cert.id
    return { certificate: certificateOut(cert) }
  },
})

export const deprovisionCertificateOp = defineOp({
  id: 'ssl.deprovision',
  method: 'DELETE',
  path: '/connections/{id}/ssl',
  summary: 'Deprovision the certificate',
  description:
    'Takes the certificate off the edge and marks it `removed` (`secure_status: removed`). While the connection is live and pointed at ' +
    'the edge, the edge sweep issues a new one; disconnect the connection to stop serving it. 404 when none is tracked.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: Out({ certificate: Out({ id: Type.String(), status: Type.Literal('removed'), updated_at: Timestamp() }) }),
  errors: ['unauthorized', 'forbidden', 'not_found', 'service_unavailable'],
  kind: 'destroy',
  transactions: 'steps',
  async handler(ctx, input) {
    const deps = secure(ctx)
    const c = await connectionFor(ctx.db, ctx.principal, input.id)
    const removed = await deprovisionCertificate(deps, c)
    if (!removed) throw notFound('No certificate is tracked for this connection')
    ctx.audit.targetId = removed.id
    return { certificate: { id: removed.id, status: 'removed' as const, updated_at: removed.updated_at } }
  },
})

export const SECURE_OPERATIONS = [listCertificatesOp, getCertificateOp, issueCertificateOp, renewCertificateOp, importCertificateOp, deprovisionCertificateOp]
