import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { createShareLink } from '../../domain/share.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam, Input, Out, Timestamp } from '../schemas.ts'
import { publishValid } from '../tenancy/shared.ts'
import { TAG } from './shared.ts'

function creator(ctx: Ctx): string {
  const p = ctx.principal
  return p.kind === 'KEY' ? `key:${p.keyId}` : p.kind === 'WIDGET' ? `widget:${p.tokenId}` : p.kind
}

export const createShareOp = defineOp({
  id: 'share.create',
  method: 'POST',
  path: '/connections/{id}/share',
  summary: 'Create a share link for a connection\'s manual setup',
  description:
    'Answers `{url, token, expires_at}`. The `url` opens the manual setup of this connection for whoever controls the DNS (the widget\'s ' +
    '`loadSharedFlow`); the link needs no credential and expires after 30 days, then answers 404. Each call mints a new link. ' +
    'A domain-bound widget token may share only its own hostname.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({}),
  response: Out({
    id: Type.String({ description: 'The link\'s id: GET /connections/{id}/share-links lists it, DELETE ends it' }),
    url: Type.String(),
    token: Type.String({ description: 'Shown once; the capability behind the link' }),
    expires_at: Timestamp(),
  }),
  status: 201,
  errors: ['unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'none',
  agent: {
    description: 'Makes a link to the manual setup of a connection (the records to add, step by step) for whoever controls the domain\'s DNS, when that is not the person in the conversation. The link needs no sign-in and lasts 30 days; each call makes a new one.',
    toolset: 'connect',
    output: ['url', 'expires_at'],
  },
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    const link = await createShareLink(ctx.sql, c, creator(ctx), ctx.config.publicUrl, ctx.clock.now())
    ctx.audit.details = { domain: c.domain, expires_at: link.expires_at.toISOString() }
    // A link just made works for whoever opens it, on any process, whatever guessers near them did (src/domain/throttle.ts).
    await publishValid(ctx, link.token)
    return link
  },
})
