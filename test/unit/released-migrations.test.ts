// A migration that has landed on main never changes (DESIGN.md): a database records each by name
// (and, from migration 0150's release on, by checksum), so an edited one is never run again where it
// already ran, and databases made before and after the edit differ for good. Released = on main.
// - Here (a branch, or main itself): every migration main has is in this checkout, byte for byte.
// - Main's own history: no migration changed after it landed, except the six edits made before this
//   rule was checked, which migration 0150 repairs (test/integration/upgrade.test.ts runs them).
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { git, migrationHistory, releasedRef } from '../harness/released.ts'
import { ROOT } from '../harness/processes.ts'

/**
 * Migrations edited after they landed on main, with every text (blob id) main had for each, oldest
 * first: git log --first-parent -p main -- migrations/. Nothing may be added here; fix forward.
 */
export const EDITED_BEFORE_0150: Record<string, string[]> = {
  '0002_connect.sql': ['cad0398e51a2ad43f5b902cbae18a8d80621c0da', 'd4c7aa97256821283fbf0b7bb203528e776924d9'],
  '0003_webhooks.sql': ['8ae499899cba4b54c1109d2fa60b6adabfed9c5f', 'b04c238a05ced728ce90eace76361ddbebcc38f0'],
  '0013_verify_queue.sql': ['151db40cc4bff4e290cc678bb3774acf738ab4c4', 'f6cbace7a33863a4afcc2f545a4322d1d59732c1'],
  '0014_monitor_watermark.sql': [
    '194e604c2c94a8dc2e38ef30c873f2c6e3f3bb26',
    'be86886063e0931dfa5e69adf19ed68564cc2f40',
    '07ef24585fba7cd048827b1d0423a6fbcc14adf6',
    '5326fcf33f2c3a883e16a8e1a82cd3b30dc907c6',
  ],
  '0017_due_wakeups.sql': ['edbd56128fc201d00e8ca0c3eba9c54f5255a7a1', '4f845a69d9c59729724f4361862124976f9f07e9'],
  '0100_webhook_hot_writes.sql': ['ceebf054484b8fa6d247c723aae5c70edd3a8ddd', 'e402c10251a848556ee1efd736c3ad14d18796aa'],
}

describe('released migrations never change', () => {
  const ref = releasedRef()

  test('every migration on main is in this checkout unchanged (no edit, no rename, no removal)', () => {
    const onMain = git(['ls-tree', ref, 'migrations/'])
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [meta, path] = l.split('\t') as [string, string]
        return { path, blob: meta.split(' ')[2]! }
      })
      .filter((f) => f.path.endsWith('.sql'))
    expect(onMain.length).toBeGreaterThan(20)
    const differs = onMain.filter((f) => {
      const here = join(ROOT, f.path)
      if (!existsSync(here)) return true
      // The blob id git would give this file's bytes (no filter: migrations are plain text as committed).
      return new Bun.CryptoHasher('sha1').update(`blob ${readFileSync(here).byteLength}\0`).update(readFileSync(here)).digest('hex') !== f.blob
    })
    expect(differs.map((f) => `${f.path} differs from ${ref} (released): add a new migration instead`)).toEqual([])
  })

  test('on main no migration changed after it landed, beyond the six edits migration 0150 repairs', () => {
    const texts = new Map<string, string[]>()
    for (const state of migrationHistory(ref)) {
      for (const [name, blob] of state.files) {
        const seen = texts.get(name) ?? []
        if (seen.at(-1) !== blob) seen.push(blob)
        texts.set(name, seen)
      }
    }
    const changed = [...texts].filter(([name, blobs]) => JSON.stringify(blobs) !== JSON.stringify(EDITED_BEFORE_0150[name] ?? blobs.slice(0, 1)))
    expect(changed.map(([name, blobs]) => `${name}: ${blobs.length} texts on main (${blobs.map((b) => b.slice(0, 7)).join(' -> ')})`)).toEqual([])
    // The list above is history: each of its files really had those texts on main.
    for (const [name, blobs] of Object.entries(EDITED_BEFORE_0150)) expect(texts.get(name)).toEqual(blobs)
  })
})
