// Refusals as a table (src/ops/checks.ts): the first row that holds answers, in the table's order, with
// its code, title and reason; each operation's tables refuse only with codes it declares, and say what
// its description promises.
import { describe, expect, test } from 'bun:test'
import { ApiError, ERROR_REASONS } from '../../src/errors.ts'
import { refuseFirst, type Refusal } from '../../src/ops/checks.ts'
import { domainConnectStartOp, PLAN_REFUSALS, START_REFUSALS } from '../../src/ops/domain-connect/domain-connect-start.ts'
import { ASKED_REFUSALS, createConnectionOp, FOUND_REFUSALS } from '../../src/ops/connect/create-connection.ts'
import { ACCOUNT_REFUSALS, connectAccountOp } from '../../src/ops/provider-accounts/connect-account.ts'
import { INVITE_REFUSALS, inviteMemberOp } from '../../src/ops/members/invite-member.ts'
import { CURSOR_REFUSALS, listMonitorDomainsOp } from '../../src/ops/monitor/list-monitor-domains.ts'
import type { AnyOp } from '../../src/ops/registry.ts'

const caught = (fn: () => void) => {
  try {
    fn()
  } catch (e) {
    return e as ApiError
  }
  return null
}

describe('refuseFirst', () => {
  const table: Refusal<{ n: number }>[] = [
    { when: ({ n }) => n > 10, code: 'conflict', reason: 'custom_records', title: ({ n }) => `${n} is too many` },
    { when: ({ n }) => n > 5, code: 'invalid_request', title: 'over five', details: () => [{ in: 'body', field: 'n', message: 'at most 5' }] },
  ]

  test('answers the first row that holds, in order, with its code, title and reason', () => {
    const e = caught(() => refuseFirst(table, { n: 11 }))!
    expect(e).toBeInstanceOf(ApiError)
    expect(e.body()).toMatchObject({ code: 'conflict', title: '11 is too many', details: { reason: 'custom_records' } })
  })

  test('a row without a reason answers its details; no row holding refuses nothing', () => {
    expect(caught(() => refuseFirst(table, { n: 6 }))!.body()).toMatchObject({ code: 'invalid_request', title: 'over five', details: [{ field: 'n' }] })
    expect(caught(() => refuseFirst(table, { n: 1 }))).toBeNull()
  })

  test('a row with a reason and details answers the details with the reason after them', () => {
    const both: Refusal<{ id: string }>[] = [{ when: () => true, code: 'conflict', reason: 'end_user_mismatch', title: 'taken', details: ({ id }) => ({ connection_id: id }) }]
    expect(caught(() => refuseFirst(both, { id: 'con_1' }))!.body().details).toEqual({ connection_id: 'con_1', reason: 'end_user_mismatch' })
  })
})

describe('the operations\' refusal tables', () => {
  const tables: [AnyOp, readonly Refusal<any>[]][] = [
    [createConnectionOp as AnyOp, [...ASKED_REFUSALS, ...FOUND_REFUSALS]],
    [connectAccountOp as AnyOp, ACCOUNT_REFUSALS],
    [inviteMemberOp as AnyOp, INVITE_REFUSALS],
    [listMonitorDomainsOp as AnyOp, CURSOR_REFUSALS],
  ]
  test('every code a table refuses with is declared on its operation, every reason catalogued', () => {
    for (const [op, rows] of tables) {
      for (const r of rows) {
        expect([op.id, op.errors.includes(r.code)]).toEqual([op.id, true])
        if (r.reason) expect(r.reason in ERROR_REASONS).toBe(true)
      }
    }
  })

  test('an invitation: an owner invited by a non-owner is refused first, then an active member, then an owner\'s invitation', () => {
    const active = { status: 'active', role: 'owner' } as any
    expect(caught(() => refuseFirst(INVITE_REFUSALS, { role: 'owner', inviter: 'admin', existing: active }))!.body()).toMatchObject({ code: 'forbidden', title: 'Only an owner can invite an owner' })
    expect(caught(() => refuseFirst(INVITE_REFUSALS, { role: 'member', inviter: 'admin', existing: active }))!.body()).toMatchObject({ code: 'conflict', title: 'This person is already a member' })
    expect(caught(() => refuseFirst(INVITE_REFUSALS, { role: 'member', inviter: 'admin', existing: { status: 'invited', role: 'owner' } as any }))!.body()).toMatchObject({ code: 'forbidden', title: 'Only an owner can change an owner invitation' })
    expect(caught(() => refuseFirst(INVITE_REFUSALS, { role: 'owner', inviter: 'owner', existing: { status: 'invited', role: 'owner' } as any }))).toBeNull()
  })

  test('an open connection found for another end user is refused before one with another validation', () => {
    const row = { id: 'con_1', domain: 'shop.example', end_user_ref: 'a', validation: 'http' } as any
    expect(caught(() => refuseFirst(FOUND_REFUSALS, { row, created: false, endUserRef: 'b', validation: 'before_cutover' }))!.body().details).toEqual({ connection_id: 'con_1', reason: 'end_user_mismatch' })
    expect(caught(() => refuseFirst(FOUND_REFUSALS, { row, created: false, endUserRef: 'a', validation: 'before_cutover' }))!.body().details).toEqual({ connection_id: 'con_1', reason: 'validation_mismatch' })
    expect(caught(() => refuseFirst(FOUND_REFUSALS, { row, created: true, endUserRef: 'b', validation: 'before_cutover' }))).toBeNull()
  })
})

describe('domainconnect:start refusals', () => {
  const rows = [...START_REFUSALS, ...PLAN_REFUSALS]
  test('every conflict it refuses has a catalogued reason its description names', () => {
    const reasons = rows.filter((r) => r.code === 'conflict').map((r) => r.reason)
    expect(reasons).toEqual(['custom_records', 'not_discovered', 'settings_unreachable', 'sync_unsupported', 'provider_unsupported', 'template_unsupported'])
    for (const r of reasons) {
      expect(r! in ERROR_REASONS).toBe(true)
      expect(domainConnectStartOp.description).toContain(`\`${r}\``)
    }
  })

  test('every code it refuses with is declared on the operation', () => {
    for (const r of rows) expect(domainConnectStartOp.errors).toContain(r.code)
  })
})
