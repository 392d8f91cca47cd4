// Secure (the API contract, section 4 "Templates, Secure, Monitor"): certificates of connected domains.
// `GET /ssl` and `GET /connections/{id}/ssl` are the contract's; issue, renew, import and deprovision
// are Portico's design (the contract names them only by group):
//   POST   /connections/{id}/ssl:issue   issue now through ACME (normally the edge sweep does it once the connection is live)
//   POST   /connections/{id}/ssl:renew   renew now (normally done after `renew_after`)
//   PUT    /connections/{id}/ssl         import the customer's certificate and key
//   DELETE /connections/{id}/ssl         deprovision: off the edge, marked removed
// Without an edge (EDGE_ADMIN_URL) every one answers 503; issue and renew also need ACME_DIRECTORY_URL.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { CertificateSchema } from '../../domain/resource-schemas.ts'
import { certificateNames, certificateOut, issueCertificate, type SecureDeps } from '../../domain/certificates.ts'
import { ApiError } from '../../errors.ts'
import type { Edge } from '../../adapters/edge.ts'
import type { ConnectionRow } from '../../db/connections.ts'
import { connectionFor } from '../../domain/connections.ts'
import { isTestDomain } from '../../domain/test-mode.ts'
import { powerOf } from '../../db/power.ts'
import { checkDelegationBeforeRenewal, delegationOf } from '../../domain/prevalidation.ts'
import { certificateOf } from '../../db/certificates.ts'
import { IdParam, Input, Out } from '../schemas.ts'
import { type Ctx, defineOp } from '../registry.ts'

export const TAG = 'Secure'

export { CertificateSchema }

export const CertificateOut = Out({ certificate: CertificateSchema })

export function secure(ctx: Ctx, needCa = false): SecureDeps {
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

export const issueLike = (id: string, path: string, summary: string, description: string) =>
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
