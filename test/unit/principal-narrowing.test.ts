// The principal a handler sees is narrowed by the credentials its operation accepts. This is checked
// by the type checker (`npm run typecheck`, in CI): each `@ts-expect-error` below fails the check if
// the line it marks ever compiles, so a loosened type cannot pass unnoticed. The runtime part only
// confirms the declarations are ordinary operations.
import { expect, test } from 'bun:test'
import { Type } from '@sinclair/typebox'
import { defineOp, type TenantCtx } from '../../src/ops/registry.ts'

const base = { method: 'GET' as const, path: '/x', summary: 'x', tag: 'x', response: Type.Object({}), errors: [], kind: 'read' as const }

const keyOnly = defineOp({
  ...base,
  id: 'narrow.key',
  auth: ['KEY'],
  async handler(ctx) {
    // A key principal has its role and key id without a cast.
    return { role: ctx.principal.role, key: ctx.principal.keyId }
  },
})

const keyOrManagement = defineOp({
  ...base,
  id: 'narrow.mixed',
  auth: ['KEY', 'MGMT'],
  async handler(ctx) {
    // @ts-expect-error the management key has no tenant: the handler must check the kind first
    const unchecked = ctx.principal.tenantId
    const p = ctx.principal
    return { unchecked, tenant: p.kind === 'KEY' ? p.tenantId : null }
  },
})

const tenantOf = (ctx: TenantCtx) => ctx.principal.tenantId

const widgetOrKey = defineOp({
  ...base,
  id: 'narrow.tenant',
  auth: ['WIDGET', 'KEY'],
  widget: ['app'],
  async handler(ctx) {
    return { tenant: tenantOf(ctx) }
  },
})

defineOp({
  ...base,
  id: 'narrow.not_tenant',
  auth: ['KEY', 'EDGE'],
  async handler(ctx) {
    // @ts-expect-error a helper for tenant credentials does not take an operation the edge may call
    return { tenant: tenantOf(ctx) }
  },
})

test('narrowed declarations are ordinary operations', () => {
  expect([keyOnly, keyOrManagement, widgetOrKey].map((op) => op.auth)).toEqual([['KEY'], ['KEY', 'MGMT'], ['WIDGET', 'KEY']])
})
