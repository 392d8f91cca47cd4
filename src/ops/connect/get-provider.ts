import { Type } from '@sinclair/typebox'
import { providerById } from '../../domain/providers.ts'
import { notFound } from '../../errors.ts'
import { defineOp } from '../registry.ts'
import { Input, Out } from '../schemas.ts'
import { CATALOG_MAX_AGE } from './shared.ts'

export const getProviderOp = defineOp({
  id: 'providers.get',
  method: 'GET',
  path: '/providers/{id}',
  summary: 'One DNS provider of the catalog',
  description:
    'One entry of `GET /providers`: what the manual screen of one provider needs (its steps and dashboard) without the whole catalog. ' +
    'Compressed as accepted, with an ETag (`304` when unchanged) and cacheable for an hour. 404 for an id the catalog does not have.',
  tag: 'Discovery and catalogs',
  auth: ['NONE'],
  params: Input({ id: Type.String({ minLength: 1, maxLength: 100, description: 'Catalog id, e.g. `cloudflare`' }) }),
  response: Out({ provider: Type.Object({}, { additionalProperties: true }) }),
  errors: ['not_found'],
  kind: 'read',
  internal: true,
  cache: { maxAge: CATALOG_MAX_AGE },
  async handler(_ctx, input) {
    const provider = providerById(input.id)
    if (!provider) throw notFound('No such provider in the catalog')
    return { provider }
  },
})
