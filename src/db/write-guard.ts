// A handle on the pool that refuses writes outside a transaction. Operations (src/ops/run.ts) hand it
// to mutation handlers as `ctx.db`, so a change can only be made inside a transaction that carries the
// operation's audit row: a direct `insert`/`update`/`delete` on it throws, and its `begin` is routed to
// the operation's own transaction opener (which appends the audit row before committing).
import type { Sql } from './sql.ts'

/** The first keyword of a statement that changes data (a CTE is looked into for one). */
const WRITE_START = /^\s*(insert|update|delete|merge|truncate)\b/i
const CTE_WRITE = /\b(insert\s+into|delete\s+from|update\s+[\w."]+\s+(as\s+\w+\s+)?set)\b/i

export function isWriteStatement(text: string): boolean {
  if (WRITE_START.test(text)) return true
  return /^\s*with\b/i.test(text) && CTE_WRITE.test(text)
}

export class WriteOutsideTransaction extends Error {
  constructor(readonly statement: string) {
    super(`a write outside a transaction: ${statement.trim().slice(0, 80)}; wrap it in ctx.tx(...) so it commits with its audit row`)
    this.name = 'WriteOutsideTransaction'
  }
}

const RAW = Symbol('unguarded pool')

/**
 * The pool behind a guarded handle, for the one kind of write that changes nothing anyone audits: a
 * lease that expires on its own (the rail lease, src/db/rail-writes.ts). Every use is named in
 * test/integration/transactions.test.ts.
 */
export function leaseHandle(sql: Sql): Sql {
  return ((sql as unknown as Record<symbol, Sql>)[RAW] ?? sql) as Sql
}

const isTemplate = (v: unknown): v is TemplateStringsArray => Array.isArray(v) && 'raw' in (v as object)

/**
 * `pool` as seen by a mutation: reads pass, writes throw, and `begin(fn)` runs `fn` in a transaction
 * opened by `begin` (the operation's, with its audit row).
 */
export function guardWrites(pool: Sql, begin: <T>(fn: (tx: Sql) => Promise<T>) => Promise<T>): Sql {
  return new Proxy(pool, {
    apply(target, self, args: unknown[]) {
      const first = args[0]
      if (isTemplate(first) && isWriteStatement(first.join('?'))) throw new WriteOutsideTransaction(first.join('?'))
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, self, args)
    },
    get(target, prop) {
      if (prop === RAW) return target
      if (prop === 'begin') {
        return (...args: unknown[]) => {
          const fn = args[args.length - 1] as (tx: Sql) => Promise<unknown>
          return begin(fn)
        }
      }
      if (prop === 'unsafe') {
        return (text: string, ...rest: unknown[]) => {
          if (isWriteStatement(text)) throw new WriteOutsideTransaction(text)
          return (target.unsafe as (t: string, ...r: unknown[]) => unknown)(text, ...rest)
        }
      }
      const v = Reflect.get(target, prop, target)
      return typeof v === 'function' ? v.bind(target) : v
    },
  }) as Sql
}
