import { Type } from '@sinclair/typebox'
import { getApplicationInTenant } from '../../domain/tenancy.ts'
import { isPublicHostname, isPublicIPv4, parseDomain } from '../../domain/hostnames.ts'
import { invalid } from '../../errors.ts'
import { markRecordsOutdated, plannedConnectionsOffTarget, replanConnection, setConnectTarget } from '../../db/connections.ts'
import { effectiveTarget } from '../../domain/connections.ts'
import { providerById } from '../../domain/providers.ts'
import { planRecords } from '../../domain/records.ts'
import { emitForConnection } from '../../domain/events.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { edge, targetOut, TargetResponse } from './shared.ts'

export const putConnectTargetOp = defineOp({
  id: 'applications.connect_target.put',
  method: 'PUT',
  path: '/applications/{id}/connect-target',
  summary: 'Point an application\'s connections at your own target',
  description:
    '`cname_target` is a public hostname that is not the platform edge (empty string returns to the edge); `apex_ipv4` up to 4 ' +
    'public IPv4 addresses for apex domains. Available on every plan. Connections whose records are not yet in place pick up the ' +
    'new target; connections whose records were already put in place by hand keep them and get `connection.records_outdated` ' +
    '(with `connect_link`) so the end user can update them. Sending the current target again changes nothing.',
  tag: 'Tenancy and keys',
  auth: ['KEY'],
  permission: 'app:write',
  params: IdParam,
  body: Input({
    cname_target: Type.String({ maxLength: 253 }),
    apex_ipv4: Type.Optional(Type.Array(Type.String({ maxLength: 15 }), { maxItems: 4 })),
  }),
  response: TargetResponse,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const p = ctx.principal
    const app = await getApplicationInTenant(ctx.sql, p.tenantId, input.id)
    const problems: { in: string; field: string; message: string }[] = []
    let cname: string | null = null
    if (input.cname_target !== '') {
      cname = parseDomain(input.cname_target)?.domain ?? null
      const edgeHost = ctx.config.edge.cnameTarget
      if (!cname || !isPublicHostname(cname)) problems.push({ in: 'body', field: 'cname_target', message: 'must be a public hostname' })
      else if (cname === edgeHost || cname.endsWith('.' + edgeHost)) problems.push({ in: 'body', field: 'cname_target', message: 'is the platform edge; send an empty string to use the edge' })
    }
    const ips = [...new Set(input.apex_ipv4 ?? [])]
    ips.forEach((ip, i) => {
      if (!isPublicIPv4(ip)) problems.push({ in: 'body', field: `apex_ipv4.${i}`, message: 'must be a public IPv4 address' })
    })
    if (problems.length) throw invalid('The connect target is not valid', problems)
    const now = ctx.clock.now()
    const fresh = await setConnectTarget(ctx.sql, app, cname, ips, now)
    const target = effectiveTarget(fresh, edge(ctx))
    const targetJson = target
    const affected = await plannedConnectionsOffTarget(ctx.sql, app, targetJson)
    let replanned = 0
    let outdated = 0
    for (const c of affected) {
      const parsed = parseDomain(c.domain)!
      const apexCap = providerById(c.provider_id)?.capabilities.apex ?? null
      if (c.status === 'pending' && c.records_written_at === null) {
        // Nothing is in place yet: the records simply follow the new target.
        const records = planRecords(parsed, target, apexCap, c.www_redirect, c.verification_token)
        await replanConnection(ctx.sql, c, records, targetJson, now)
        replanned++
      } else if (c.records_outdated_at === null) {
        const row = await markRecordsOutdated(ctx.sql, c, now)
        const suggested = planRecords(parsed, target, apexCap, c.www_redirect, c.verification_token)
        await emitForConnection(ctx.sql, row, 'connection.records_outdated', now, { records: suggested.map(({ type, host, value }) => ({ type, host, value })) }, {
          connect_link: `${ctx.config.publicUrl}/v1/connections/${c.id}/records`,
        })
        outdated++
      }
    }
    ctx.audit.details = { cname_target: cname, apex_ipv4: ips, replanned, outdated }
    return targetOut(ctx, fresh)
  },
})
