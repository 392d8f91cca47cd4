import { Type } from '@sinclair/typebox'
import { setupRequest } from '../../domain/billing.ts'
import { billingAccountOf, insertSetupSession, upsertBillingAccount } from '../../db/billing.ts'
import { defineOp } from '../registry.ts'
import { Input, Nullable, Out } from '../schemas.ts'
import { paymentsOf, TAG, tenantOf, Url } from './shared.ts'

export const setupOp = defineOp({
  id: 'billing.setup',
  method: 'POST',
  path: '/billing/setup',
  summary: 'Save a card without charging',
  description:
    'Send either `return_url` (embedded, or Elements with `ui_mode: elements`) or both `success_url` and `cancel_url` (hosted redirect); neither, ' +
    'both kinds, or only one of the pair is 400. `ui_mode` is `embedded` or `elements`; null or "" counts as omitted; `hosted` is never accepted ' +
    '(send the two URLs instead) and any other value is 400; `embedded` and `elements` need `return_url`. The answer\'s `ui_mode` says what was ' +
    'really created: an `elements` request answers `embedded` when an Elements session could not be created.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'billing:manage',
  body: Input({
    return_url: Type.Optional(Nullable(Url)),
    success_url: Type.Optional(Nullable(Url)),
    cancel_url: Type.Optional(Nullable(Url)),
    ui_mode: Type.Optional(Nullable(Type.String({ maxLength: 40, description: '`embedded` or `elements`' }))),
  }),
  response: Out({ id: Type.String(), url: Type.String(), client_secret: Type.String(), ui_mode: Type.Union([Type.Literal('embedded'), Type.Literal('elements'), Type.Literal('hosted')]) }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'service_unavailable'],
  kind: 'write',
  transactions: 'steps',
  async handler(ctx, input) {
    const req = setupRequest(input)
    const payments = paymentsOf(ctx)
    const tenantId = tenantOf(ctx)
    const account = await billingAccountOf(ctx.db, tenantId)
    const s = await payments.setupCard({ tenantId, customerRef: account?.customer_ref ?? null, ...req })
    const now = ctx.clock.now()
    await ctx.db.begin(async (tx) => {
      await insertSetupSession(tx, s, tenantId, now)
      await upsertBillingAccount(tx, tenantId, payments.name, now, { customerRef: s.customerRef })
    })
    ctx.audit.details = { requested: req.mode, created: s.ui_mode }
    return { id: s.id, url: s.url, client_secret: s.client_secret, ui_mode: s.ui_mode }
  },
})
