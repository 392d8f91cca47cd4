import { accountOut, canManage, getAccount } from '../../domain/provider-accounts.ts'
import { ApiError } from '../../errors.ts'
import { deleteAccount } from '../../db/provider-accounts.ts'
import { defineOp } from '../registry.ts'
import { IdParam } from '../schemas.ts'
import { ACCOUNTS, AccountSchema } from './shared.ts'

export const deleteAccountOp = defineOp({
  id: 'provider_accounts.delete',
  method: 'DELETE',
  path: '/provider-accounts/{id}',
  summary: 'Delete a provider account and its credential',
  description: 'The credential is erased. Connections it managed stay connected but are no longer managed (re-apply and automatic revert need a new grant).',
  tag: ACCOUNTS,
  auth: ['KEY'],
  permission: 'connections:write',
  params: IdParam,
  response: AccountSchema,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'destroy',
  idempotent: true,
  async handler(ctx, input) {
    const a = await getAccount(ctx.sql, ctx.principal.tenantId, input.id, true)
    if (!canManage(ctx.principal, a)) throw new ApiError('forbidden', 'Only an owner, an admin or the member who saved this account can remove it')
    const out = await accountOut(ctx.sql, ctx.principal, a)
    const now = ctx.clock.now()
    await deleteAccount(ctx.sql, a, now)
    return { ...out, credential_held: false, connections: [], domains: [] }
  },
})
