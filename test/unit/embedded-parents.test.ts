// Starting the embedded PostgreSQL makes the data directory's parents searchable by the postgres user,
// and nothing more: a shared parent such as /tmp keeps its sticky, world-writable mode (an earlier
// start set every parent to 0755, which took /tmp away from every other user on the machine).
import { describe, expect, test } from 'bun:test'
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeTraversable } from '../../src/db/embedded.ts'

const modeOf = (p: string) => statSync(p).mode & 0o7777

describe('the data directory’s parents', () => {
  test('a sticky world-writable parent keeps its mode; a private one gains only the search bit', () => {
    const root = mkdtempSync(join(tmpdir(), 'parents-'))
    try {
      const shared = join(root, 'shared')
      const home = join(shared, 'home')
      const data = join(home, 'data')
      mkdirSync(data, { recursive: true })
      chmodSync(shared, 0o1777)
      chmodSync(home, 0o700)
      makeTraversable(data)
      expect(modeOf(shared)).toBe(0o1777)
      expect(modeOf(home)).toBe(0o701)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
