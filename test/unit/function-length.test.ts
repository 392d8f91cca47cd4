// No function over 80 lines outside tests and generated files (issue 49). Every TypeScript and JavaScript file git
// tracks is measured (test/harness/function-length.ts): declarations, expressions, arrows, methods,
// accessors and constructors, nested ones included. A long function is split into named ones that
// each do one thing; it is never waved through here.
import { describe, expect, test } from 'bun:test'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isMeasured, longFunctions, MAX_LINES } from '../harness/function-length.ts'

const ROOT = join(import.meta.dir, '../..')

/** Tracked files and new ones not ignored, as they are in the work tree. */
function measuredFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.tsx', '*.js', '*.mjs'], { cwd: ROOT, encoding: 'utf8' })
  return [...new Set(listed.split('\n'))].filter((path) => isMeasured(path) && existsSync(join(ROOT, path)))
}

/** An exported function of `lines` lines, first to last. */
function planted(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i}`)
  return ['export function planted(): number {', ...body, '}'].join('\n')
}

describe('function length', () => {
  const files = measuredFiles()
  const long = files.flatMap((path) => longFunctions(path, readFileSync(join(ROOT, path), 'utf8')))

  test(`no function over ${MAX_LINES} lines outside tests and generated files`, () => {
    expect(files.length).toBeGreaterThan(300)
    const offenders = long.map((f) => `${f.path}:${f.line} ${f.name} (${f.lines} lines)`)
    expect(offenders).toEqual([])
  })

  test('a planted function of 81 lines is caught, one of 80 is not', () => {
    expect(longFunctions('src/planted.ts', planted(81))).toEqual([{ path: 'src/planted.ts', name: 'planted', line: 1, lines: 81 }])
    expect(longFunctions('src/planted.ts', planted(80))).toEqual([])
    // The browser scripts served as they are (the docs page, the playground) are measured too.
    expect(files.some((f) => f.endsWith('.js'))).toBe(true)
    expect(longFunctions('src/http/planted.js', planted(81).replace('(): number', '()')).map((f) => f.lines)).toEqual([81])
  })

  test('every kind of function is measured and named: arrows, expressions, methods, accessors, constructors, nested ones', () => {
    const block = (n: number) => Array.from({ length: n }, (_, i) => `    x += ${i}`).join('\n')
    const source = [
      'let x = 0',
      `export const arrow = async (a: number): Promise<{ ok: true }> => {\n${block(85)}\n  return { ok: true }\n}`,
      `const expr = function (): void {\n${block(85)}\n}`,
      `const obj = {\n  method(): void {\n${block(85)}\n  },\n  get value(): number {\n${block(85)}\n    return x\n  },\n}`,
      `class Thing<T extends { a: string }> {\n  private readonly t: T | null = null\n  constructor() {\n${block(85)}\n  }\n  async run(): Promise<void> {\n${block(85)}\n  }\n  field = (): void => {\n${block(85)}\n  }\n}`,
      `export function outer(): () => void {\n  return () => {\n${block(85)}\n  }\n}`,
      'const shortOne = (a: string) => a.length satisfies number',
      'void [expr, obj, Thing, shortOne]',
    ].join('\n')
    const names = longFunctions('src/kinds.ts', source, MAX_LINES).map((f) => `${f.name} ${f.lines}`)
    expect(names).toEqual(['arrow 88', 'expr 87', 'method 87', 'value 88', 'constructor 87', 'run 87', 'field 87', 'outer 89', '(anonymous) 87'])
  })

  test('JSX is parsed in .tsx files', () => {
    const source = `export function View(): unknown {\n${Array.from({ length: 85 }, (_, i) => `  const e${i} = <p class="a">{${i}}</p>`).join('\n')}\n  return null\n}`
    expect(longFunctions('src/view.tsx', source).map((f) => f.name)).toEqual(['View'])
  })
})
