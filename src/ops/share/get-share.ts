import { sharedConnection } from '../../domain/share.ts'
import { defineOp } from '../registry.ts'
import { SharedFlow, sharedOut, TAG, TokenParam } from './shared.ts'

export const getShareOp = defineOp({
  id: 'share.get',
  method: 'GET',
  path: '/share/{token}',
  summary: 'Read a shared manual setup',
  description:
    'No credential: the share token is the capability. Answers the connection\'s domain, status, failure reason and the records to add, ' +
    'with provider-specific steps. An unknown or expired (older than 30 days) token, or a disconnected connection, is 404.',
  tag: TAG,
  auth: ['NONE'],
  guessable: true,
  params: TokenParam,
  response: SharedFlow,
  errors: ['not_found'],
  kind: 'read',
  internal: true,
  async handler(ctx, input) {
    const { row, expiresAt } = await sharedConnection(ctx.sql, input.token, ctx.clock.now())
    return sharedOut(ctx.sql, row, expiresAt)
  },
})
