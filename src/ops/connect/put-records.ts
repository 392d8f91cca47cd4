import { Type } from '@sinclair/typebox'
import { canonicalRecords, DnsRecordSchema } from '../../domain/records.ts'
import { connectionFor } from '../../domain/connections.ts'
import { setHeldRecords } from '../../db/prevalidation.ts'
import { replaceRecords } from '../../domain/connect.ts'
import { defineOp } from '../registry.ts'
import { IdParam, Input } from '../schemas.ts'
import { checkRecordSet, parseOrThrow, recordsOut, RecordsResponse, TAG } from './shared.ts'

export const putRecordsOp = defineOp({
  id: 'connections.records.put',
  method: 'PUT',
  path: '/connections/{id}/records',
  summary: 'Replace the desired records with an integrator-authored set',
  description:
    'Server to server only. Hosts must be the connected hostname or below it. Sending the set the connection already has answers 200 ' +
    'and changes nothing. A new set puts the connection back to `pending` until it resolves; the one-click template rail refuses a ' +
    'connection with a custom set. Before cutover, while the routing records are held back (`validation_stage` `awaiting_records` ' +
    'or `issuing`), the set replaces them instead: it is asked for once the certificate is on every edge node.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  body: Input({ records: Type.Array(DnsRecordSchema, { minItems: 1, maxItems: 50 }) }),
  response: RecordsResponse,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  idempotent: true,
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id, { lock: true })
    const parsed = parseOrThrow(c.domain)
    checkRecordSet(input.records, parsed)
    if (canonicalRecords(input.records) === canonicalRecords(c.desired_records)) {
      ctx.audit.details = { changed: false }
      return recordsOut(c)
    }
    const now = ctx.clock.now()
    // Before cutover, until the certificate is on the edge: the set replaces the held routing records
    // (the first step's stay what the connection asks for now).
    const held = c.validation_stage === 'awaiting_records' || c.validation_stage === 'issuing' ? await setHeldRecords(ctx.sql, c.id, input.records, now) : undefined
    if (held) {
      ctx.audit.details = { changed: true, held: true }
      return recordsOut(held)
    }
    const row = await replaceRecords(ctx.sql, c, input.records, now)
    ctx.audit.details = { changed: true }
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    return recordsOut(row)
  },
})
