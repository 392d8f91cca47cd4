import { Type } from '@sinclair/typebox'
import { membersOf } from '../../db/members.ts'
import { defineOp } from '../registry.ts'
import { Member, Out } from '../schemas.ts'
import { keyPrincipal, memberOut } from './shared.ts'

export const listMembersOp = defineOp({
  id: 'members.list',
  method: 'GET',
  path: '/members',
  summary: 'List members',
  tag: 'Tokens and members',
  auth: ['KEY'],
  permission: 'members:read',
  response: Out({ members: Type.Array(Member), count: Type.Integer() }),
  errors: ['unauthorized', 'forbidden'],
  kind: 'read',
  async handler(ctx) {
    const p = keyPrincipal(ctx)
    const rows = await membersOf(ctx.sql, p)
    return { members: rows.map((m) => memberOut(m)), count: rows.length }
  },
})
