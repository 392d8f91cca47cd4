import { Type } from '@sinclair/typebox'
import { DnsRecordSchema } from '../../domain/records.ts'
import { absoluteHost, parseDomain } from '../../domain/hostnames.ts'
import { invalid } from '../../errors.ts'
import { assertHostAllowed } from '../../domain/connections.ts'
import { compareBaseline } from '../../domain/monitor.ts'
import { isTestDomain, testZoneDns } from '../../domain/test-mode.ts'
import { Input, Out, outside, Timestamp } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { TAG } from './shared.ts'

const RecordCheckSchema = Out({
  type: Type.String(),
  host: Type.String(),
  value: Type.String(),
  observed: Type.Array(Type.String(), { description: 'What DNS answers now', ...outside('dns') }),
  status: Type.Union(['ok', 'record_missing', 'record_changed', 'extra_value', 'inconclusive'].map((s) => Type.Literal(s))),
})

export const monitorCheckOp = defineOp({
  id: 'monitor.check',
  method: 'POST',
  path: '/monitor:check',
  summary: 'Check a baseline against live DNS',
  description:
    'Read-only: resolves each supplied record against live public DNS (through the configured resolvers) and says whether it is in ' +
    'place. `status` per record: `ok`, `record_missing`, `record_changed` (the name points elsewhere), `extra_value` (ours is there ' +
    'beside other addresses), `inconclusive` (the resolver failed). `in_sync` is true only when every record is `ok`. Hosts are ' +
    'relative to the zone apex and must be the domain or below it. The widget SDK presents this as `{inSync, records}`.',
  tag: TAG,
  auth: ['WIDGET'],
  widget: END_USER,
  body: Input({
    domain: Type.String({ minLength: 1, maxLength: 300 }),
    baseline: Type.Array(DnsRecordSchema, { minItems: 1, maxItems: 50 }),
  }),
  response: Out({ domain: Type.String(), in_sync: Type.Boolean(), checked_at: Timestamp(), records: Type.Array(RecordCheckSchema) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx, input) {
    const parsed = parseDomain(input.domain)
    if (!parsed) throw invalid(`${JSON.stringify(input.domain)} is not a domain name`, [{ in: 'body', field: 'domain', message: 'not a valid domain name' }])
    assertHostAllowed(ctx.principal, parsed.domain)
    const outside = input.baseline.findIndex((r) => {
      const name = absoluteHost(r.host, parsed.apex)
      return name !== parsed.domain && !name.endsWith('.' + parsed.domain)
    })
    if (outside >= 0) throw invalid('The baseline names a host outside the domain', [{ in: 'body', field: `baseline.${outside}.host`, message: `must be ${parsed.domain} or below it` }])
    const cmp = await compareBaseline(isTestDomain(parsed.domain) ? testZoneDns(parsed.apex, input.baseline) : ctx.services.dns, parsed.apex, input.baseline)
    return { domain: parsed.domain, in_sync: cmp.records.every((r) => r.status === 'ok'), checked_at: ctx.clock.now(), records: cmp.records }
  },
})
