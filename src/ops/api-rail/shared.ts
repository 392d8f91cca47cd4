// The API-key rail (the API contract, section 4): apply a connection's records with a DNS-provider API
// credential, given once or saved as a provider account. The record rules live in
// src/domain/record-plan.ts (written through the provider by src/domain/apply.ts). Provider calls happen
// outside any transaction (`transaction: false`): a slow provider never holds a database connection, and
// what was written is recorded on the connection before the write (priors) and after it (rail, status, events).
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import { UpdatedRecordSchema } from '../../domain/events.ts'
import { Nullable, Out } from '../schemas.ts'
import { ConnectionSchema } from '../connect/shared.ts'
import { AccountSchema } from '../provider-accounts/shared.ts'

export const ApplyResult = named('ApplyResult', Out({
  connection: ConnectionSchema,
  changed: Type.Boolean({ description: 'false when the zone already held every record: nothing was written' }),
  zone: Type.String(),
  updated_objects: Type.Array(UpdatedRecordSchema, { description: 'The desired records actually created or changed at the provider' }),
  replaced: Type.Array(Out({ name: Type.String(), type: Type.String(), values: Type.Array(Type.String()) }), {
    description:
      'Values the write took out of the zone that Portico had not written: the customer\'s own records, including any set at the provider since Portico last wrote ' +
      '(a re-apply over them). Each is recorded as the set\'s prior, so disconnect restores it. Empty when the write only added',
  }),
  account: Nullable(AccountSchema),
}))
