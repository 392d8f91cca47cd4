// Refusals as a table (src/ops/checks.ts): the first row that holds answers, in the table's order, with
// its code, title and reason; domainconnect:start's tables say what its description promises.
import { describe, expect, test } from 'bun:test'
import { ApiError, ERROR_REASONS } from '../../src/errors.ts'
import { refuseFirst, type Refusal } from '../../src/ops/checks.ts'
import { domainConnectStartOp, PLAN_REFUSALS, START_REFUSALS } from '../../src/ops/domain-connect/domain-connect-start.ts'

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
