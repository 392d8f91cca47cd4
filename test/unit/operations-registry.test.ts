// The registry's list (src/ops/operations.ts) is generated from the operation files by `npm run
// generate` (scripts/operations-registry.ts): adding an operation is adding its file, and the served
// order (OpenAPI paths, tools/list) does not move when one is added or removed.
import { describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { operationFiles, operationsModule, servedOrder } from '../../scripts/operations-registry.ts'
import { OPERATIONS } from '../../src/ops/index.ts'

const ROOT = join(import.meta.dir, '../..')

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'ops-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, 'src/ops', path, '..'), { recursive: true })
    writeFileSync(join(root, 'src/ops', path), text)
  }
  return root
}

const op = (name: string) => `export const ${name} = defineOp({})\n`

describe('the registry list', () => {
  test('lists every operation file of the real tree, one operation a file, in the served order', () => {
    const found = operationFiles(ROOT)
    expect(found.length).toBe(OPERATIONS.length)
    expect(found.map((f) => f.file).every((f) => /^[a-z-]+\/[a-z-]+\.ts$/.test(f))).toBe(true)
  })

  test('a new file joins the end of its folder, a new folder the end, a deleted one leaves; the rest keep their places', () => {
    const root = tree({ 'b/one.ts': op('oneOp'), 'a/two.ts': op('twoOp'), 'a/three.ts': op('threeOp'), 'a/shared.ts': 'export const X = 1\n' })
    try {
      const first = operationsModule(root, null)
      expect([...first.matchAll(/^  (\w+),$/gm)].map((m) => m[1])).toEqual(['threeOp', 'twoOp', 'oneOp'])
      // Reordered by hand, then a file added to `a`, one to a new folder, and `b/one.ts` deleted.
      const reordered = "import { oneOp } from './b/one.ts'\nimport { twoOp } from './a/two.ts'\nimport { threeOp } from './a/three.ts'\n"
      writeFileSync(join(root, 'src/ops/a/four.ts'), op('fourOp'))
      mkdirSync(join(root, 'src/ops/c'))
      writeFileSync(join(root, 'src/ops/c/five.ts'), op('fiveOp'))
      expect(servedOrder(operationFiles(root), reordered).map((o) => o.name)).toEqual(['oneOp', 'twoOp', 'threeOp', 'fourOp', 'fiveOp'])
      rmSync(join(root, 'src/ops/b/one.ts'))
      expect(servedOrder(operationFiles(root), reordered).map((o) => o.name)).toEqual(['twoOp', 'threeOp', 'fourOp', 'fiveOp'])
    } finally {
      rmSync(root, { recursive: true })
    }
  })

  test('a file with two operations, or two files exporting one name, is refused', () => {
    const two = tree({ 'a/x.ts': op('xOp') + op('yOp') })
    const same = tree({ 'a/x.ts': op('xOp'), 'b/x.ts': op('xOp') })
    try {
      expect(() => operationFiles(two)).toThrow('src/ops/a/x.ts: one operation a file, found xOp, yOp')
      expect(() => operationFiles(same)).toThrow('two operation files export xOp: a/x.ts, b/x.ts')
    } finally {
      rmSync(two, { recursive: true })
      rmSync(same, { recursive: true })
    }
  })
})
