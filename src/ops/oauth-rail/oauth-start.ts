// The OAuth rail (the API contract, sections 1 and 4): the end user signs in at the DNS provider, Portico
// keeps the grant (src/domain/provider-oauth.ts) and writes the records with it.
import { Type } from '@sinclair/typebox'
import { connectionFor } from '../../domain/connections.ts'
import { assertApiRailOnly } from '../../domain/test-mode.ts'
import { invalid } from '../../errors.ts'
import { startOAuth } from '../../domain/provider-oauth.ts'
import { defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { IdParam, Input, Out, Timestamp } from '../schemas.ts'

const TAG = 'Domains and connections'

export const oauthStartOp = defineOp({
  id: 'connections.oauth_start',
  method: 'POST',
  path: '/connections/{id}/oauth:start',
  summary: 'Start the OAuth rail: sign in at the DNS provider',
  description:
    'Answers the provider\'s authorization URL for the end user to open. It carries a signed `state` that is single-use and expires ' +
    'after ten minutes, and a PKCE challenge. The provider sends the user back to `/connect/oauth/callback`, where Portico exchanges ' +
    'the code, keeps the grant encrypted (the connection becomes managed) and writes the records (`connection.applied` with ' +
    '`data.via: automatic`). Refused with 400 `invalid_request` (`details.reason: oauth_not_available`) when the domain check did not ' +
    'advertise the OAuth rail.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  bodyOptional: true,
  body: Input({ return_url: Type.Optional(Type.String({ maxLength: 2000, description: 'Where the callback sends the browser afterwards (http or https URL)' })) }),
  response: Out({ authorize_url: Type.String(), expires_at: Timestamp(), provider: Type.String() }),
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found'],
  kind: 'write',
  zone: 'none',
  agent: {
    description: 'Starts signing in at the domain\'s DNS provider so Portico can write the records: returns a link for the person to open (valid ten minutes). Once they approve at the provider, the records are written and the connection moves on by itself; follow it with connections_get. Use when domains_check says the oauth rail is available.',
    toolset: 'connect',
    inputs: ['id'],
    output: ['authorize_url', 'expires_at', 'provider'],
  },
  async handler(ctx, input) {
    const c = await connectionFor(ctx.sql, ctx.principal, input.id)
    assertApiRailOnly(c.domain)
    if (input.return_url !== undefined) {
      let ok = false
      try {
        ok = ['https:', 'http:'].includes(new URL(input.return_url).protocol)
      } catch {
        ok = false
      }
      if (!ok) throw invalid('return_url must be an absolute http(s) URL', [{ in: 'body', field: 'return_url', message: 'not an http(s) URL' }])
    }
    const out = await startOAuth(ctx.sql, ctx.config, ctx.clock.now(), c, input.return_url ?? null)
    ctx.audit.details = { provider: c.provider_id }
    return { ...out, provider: c.provider_id! }
  },
})
