import { Type } from '@sinclair/typebox'
import { accountsOfTenant } from '../../db/provider-accounts.ts'
import { accountOut } from '../../domain/provider-accounts.ts'
import { defineOp } from '../registry.ts'
import { Out } from '../schemas.ts'
import { ACCOUNTS, AccountSchema } from './shared.ts'

export const listAccountsOp = defineOp({
  id: 'provider_accounts.list',
  method: 'GET',
  path: '/provider-accounts',
  summary: 'List provider accounts',
  tag: ACCOUNTS,
  auth: ['KEY', 'AGENT'],
  scope: 'domains:read',
  permission: 'connections:read',
  response: Out({ accounts: Type.Array(AccountSchema) }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  zone: 'none',
  agent: {
    description: 'Lists the DNS provider accounts people saved in this workspace (provider, label, whether it needs reconnecting) and the domains each manages. Use an account\'s id with connections_apply.',
    toolset: 'connect',
    output: ['accounts'],
  },
  async handler(ctx) {
    const rows = await accountsOfTenant(ctx.sql, ctx.principal.tenantId)
    return { accounts: await Promise.all(rows.map((a) => accountOut(ctx.sql, ctx.principal, a))) }
  },
})
