import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { liveShareLinks } from '../../db/share-links.ts'
import { IdParam, Out, Timestamp } from '../schemas.ts'
import { defineOp } from '../registry.ts'
import { TAG } from './shared.ts'

const ShareLinkOut = Out({ id: Type.String(), connection_id: Type.String(), created_by: Type.String(), created_at: Timestamp(), expires_at: Timestamp() })

export const listShareLinksOp = defineOp({
  id: 'share.list',
  method: 'GET',
  path: '/connections/{id}/share-links',
  summary: 'List a connection\'s open share links',
  description: 'The links still open for this connection, newest first: ids, who made them and until when; never the tokens.',
  tag: TAG,
  auth: ['KEY'],
  permission: 'connections:read',
  params: IdParam,
  response: Out({ share_links: Type.Array(ShareLinkOut), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'read',
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const rows = await liveShareLinks(ctx.sql, c.id, ctx.clock.now())
    return { share_links: rows, count: rows.length }
  },
})
