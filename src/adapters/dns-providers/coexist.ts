// The order of a write that is several calls (issue 46): what the host lets stand beside the records it
// replaces is written first, so a name is never left without an answer while the rest goes through. A
// CNAME stands beside nothing at its name (RFC 1034 §3.6.2), an apex pointer (ALIAS, ANAME, bunny.net's
// FLATTEN) not beside the name's addresses or another pointer (refuseBesideFlattened), and a record
// cannot be created twice with the same value (a TTL change re-creates it): those deletions go first,
// each right before the write it makes room for, and the rest of the deletions last. A write refused
// midway is put back by restore.ts.

const POINTERS = new Set(['ALIAS', 'ANAME', 'FLATTEN'])
const ADDRESSES = new Set(['A', 'AAAA'])

export interface Placed {
  name: string
  type: string
  /** A record's value (per-record writes); absent for a whole set. */
  value?: string
}

/** Whether `a` must be gone before `b` is written at the same name. */
export function clashes(a: Placed, b: Placed): boolean {
  if (a.name !== b.name) return false
  if (a.type === 'CNAME' || b.type === 'CNAME') return true
  if (POINTERS.has(a.type) && (POINTERS.has(b.type) || ADDRESSES.has(b.type))) return true
  if (POINTERS.has(b.type) && ADDRESSES.has(a.type)) return true
  return a.type === b.type && a.value !== undefined && a.value === b.value
}

export type Step<D, C> = { del: D } | { put: C }

/** Writes that clash with no deletion first, then each clashing deletion right before its write, then the other deletions. */
export function coexistOrder<D extends Placed, C extends Placed>(deletes: D[], puts: C[]): Step<D, C>[] {
  const steps: Step<D, C>[] = []
  const pending = [...deletes]
  const blocked: C[] = []
  for (const p of puts) {
    if (deletes.some((d) => clashes(d, p))) blocked.push(p)
    else steps.push({ put: p })
  }
  for (const p of blocked) {
    for (let i = 0; i < pending.length; ) {
      if (clashes(pending[i]!, p)) steps.push({ del: pending.splice(i, 1)[0]! })
      else i++
    }
    steps.push({ put: p })
  }
  for (const d of pending) steps.push({ del: d })
  return steps
}
