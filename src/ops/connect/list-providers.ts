import { Type } from '@sinclair/typebox'
import { parityCensus, PROVIDERS } from '../../domain/providers.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { CATALOG_MAX_AGE } from './shared.ts'

export const listProvidersOp = defineOp({
  id: 'providers.list',
  method: 'GET',
  path: '/providers',
  summary: 'DNS-provider capability catalog and parity census',
  description:
    'For each provider: nameserver patterns, dashboard, and capabilities per rail. `census` counts how many providers support each rail and capability. ' +
    '`fields=names` answers only `{providers: [{id, name}]}` (what a provider picker needs). The same for everyone: compressed as ' +
    'accepted, with an ETag (`304` when unchanged) and cacheable for an hour.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  query: Input({ fields: Type.Optional(Type.Literal('names', { description: '`names`: only each provider\'s id and name' })) }),
  response: Out({ providers: Type.Array(Type.Object({}, { additionalProperties: true })), census: Type.Optional(Type.Object({}, { additionalProperties: true })) }),
  errors: ['invalid_request'],
  kind: 'read',
  internal: true,
  cache: { maxAge: CATALOG_MAX_AGE },
  handler: async (_ctx, input) => (input.fields === 'names' ? { providers: PROVIDERS.map((p) => ({ id: p.id, name: p.name })) } : { providers: PROVIDERS, census: parityCensus() }),
})
