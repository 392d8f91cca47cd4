import { Type } from '@sinclair/typebox'
import { rbacMatrix } from '../../domain/rbac.ts'
import { defineOp } from '../registry.ts'
import { Out } from '../schemas.ts'
import { TAG } from './shared.ts'

export const rbacOp = defineOp({
  id: 'rbac.get',
  method: 'GET',
  path: '/rbac',
  summary: 'The role/permission matrix the server enforces',
  tag: TAG,
  auth: ['NONE'],
  response: Out({
    roles: Type.Array(Out({ role: Type.String(), permissions: Type.Array(Type.String()) })),
    permissions: Type.Array(Out({ id: Type.String(), description: Type.String() })),
    agent_scopes: Type.Array(
      Out({ id: Type.String(), description: Type.String(), permission: Type.String({ description: 'What the approving credential\'s role must hold' }) }),
      { description: 'Scopes a person can grant a delegated agent on the consent screen' },
    ),
    rules: Type.Array(Type.String()),
  }),
  errors: [],
  kind: 'read',
  internal: true,
  handler: async () => rbacMatrix(),
})
