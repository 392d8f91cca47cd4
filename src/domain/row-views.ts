// Answers made from a row, remembered per row version (`xmin`): PostgreSQL gives every new version of a
// row a new `xmin` (any UPDATE, HOT or not), so a view is found only for the very row version it was
// made from and there is nothing to invalidate. A read asks for the version (a narrow index read) and
// makes the answer only when this process has not made it for that version: parsing and serialising
// the whole row is most of what a read of it costs. Each entry also expires after TTL_MS: `xmin` is a
// 32-bit transaction id that comes round after four billion transactions, and an entry never lives
// that long. Views are made by reads only (operations of kind `read` run on the pool, outside any
// transaction): two updates of a row in one transaction give both versions its one `xmin`, so a view
// made inside a writing transaction could stand for a version it replaced before committing. Per process; nothing
// is shared or written. Used for connections (src/domain/connection-views.ts): an application's row is
// small enough that reading it whole costs no more than reading its version (measured with bench/auth-read).

export const TTL_MS = 10 * 60_000

/**
 * A bounded map whose entries expire after TTL_MS. Over its budget (the sum of its entries' costs), the
 * oldest entry not read since it was last passed over goes first; a read one is given another round
 * (second chance: a read only sets a flag, so a page of fifty hits costs fifty flags).
 */
export class SecondChance<V> {
  private readonly entries = new Map<string, { value: V; cost: number; until: number; used: boolean }>()
  private spent = 0

  constructor(private readonly budget: number) {}

  get(key: string, nowMs: number): V | undefined {
    const e = this.entries.get(key)
    if (!e || e.until <= nowMs) return undefined
    e.used = true
    return e.value
  }

  set(key: string, value: V, cost: number, nowMs: number): void {
    const old = this.entries.get(key)
    if (old) {
      this.entries.delete(key)
      this.spent -= old.cost
    }
    this.entries.set(key, { value, cost, until: nowMs + TTL_MS, used: false })
    this.spent += cost
    while (this.spent > this.budget) {
      const [oldest, e] = this.entries.entries().next().value!
      this.entries.delete(oldest)
      if (e.used) {
        e.used = false
        this.entries.set(oldest, e)
      } else this.spent -= e.cost
    }
  }

  get size(): number {
    return this.entries.size
  }
}

/** Views of rows by id, each for one row version; bounded to `max` views (`SecondChance`). */
export class RowViews<V> {
  private readonly views: SecondChance<{ v: string; view: V }>

  constructor(max = 20_000) {
    this.views = new SecondChance(max)
  }

  /** The view made of row `id` at `version`, if this process made one. */
  get(id: string, version: string, nowMs: number): V | undefined {
    const e = this.views.get(id, nowMs)
    return e && e.v === version ? e.view : undefined
  }

  set(id: string, version: string, view: V, nowMs: number): void {
    this.views.set(id, { v: version, view }, 1, nowMs)
  }

  get size(): number {
    return this.views.size
  }
}
