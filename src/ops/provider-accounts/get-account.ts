import { accountOut, getAccount } from '../../domain/provider-accounts.ts'
import { defineOp } from '../registry.ts'
import { IdParam } from '../schemas.ts'
import { ACCOUNTS, AccountSchema } from './shared.ts'

export const getAccountOp = defineOp({
  id: 'provider_accounts.get',
  method: 'GET',
  path: '/provider-accounts/{id}',
  summary: 'Read a provider account',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:read',
  params: IdParam,
  response: AccountSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  handler: async (ctx, input) => accountOut(ctx.sql, ctx.principal, await getAccount(ctx.sql, ctx.principal.tenantId, input.id)),
})
