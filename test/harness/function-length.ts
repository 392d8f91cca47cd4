// Measures functions: every function of a TypeScript file with its first and last line, as
// test/unit/function-length.test.ts checks them. Parsed with acorn and its TypeScript plugin (the
// repository's TypeScript 7 has no JS API). A function is measured from its first token to its last,
// its signature and any nested function included; a method (an accessor, a constructor) from its name
// and modifiers, as TypeScript's own node is.
import { Parser } from 'acorn'
import { tsPlugin } from '@sveltejs/acorn-typescript'

export const MAX_LINES = 80

/** Not measured: tests (a provider folder's stand-in.ts is test support the service never loads: test/unit/layers.test.ts), type declarations and files a generator writes. */
export const isMeasured = (path: string) =>
  /\.(tsx?|m?js)$/.test(path) && !path.endsWith('.d.ts') && !path.startsWith('test/') && !path.includes('/test/') && !path.endsWith('/stand-in.ts') && !path.includes('/generated/') && !path.includes('__toolsnaps__') && path !== 'packages/react/src/widget-types.ts'

export interface LongFunction {
  path: string
  name: string
  line: number
  lines: number
}

interface Node {
  type: string
  start: number
  end: number
  loc: { start: { line: number }; end: { line: number } }
  [key: string]: unknown
}

const TsParser = Parser.extend(tsPlugin() as never)
const TsxParser = Parser.extend(tsPlugin({ jsx: true }) as never)

const FUNCTIONS = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'])

/** A property key or identifier as written: `foo`, `'foo'`, `[computed]`. */
function keyName(key: unknown): string {
  const k = key as { type?: string; name?: string; value?: unknown } | undefined
  if (k?.type === 'Identifier' || k?.type === 'PrivateIdentifier') return (k.type === 'PrivateIdentifier' ? '#' : '') + k.name
  if (k?.type === 'Literal') return String(k.value)
  return '[computed]'
}

/** What a reader searches for: the declaration's name, else the variable, property or method it is assigned to. */
function nameOf(fn: Node, parent: Node | null): string {
  const id = fn.id as { name?: string } | null | undefined
  if (id?.name) return id.name
  if (!parent) return '(anonymous)'
  if (parent.type === 'VariableDeclarator') return keyName(parent.id)
  if (parent.type === 'Property' || parent.type === 'PropertyDefinition' || parent.type === 'MethodDefinition') return keyName(parent.key)
  if (parent.type === 'AssignmentExpression') return keyName((parent.left as Node).type === 'MemberExpression' ? (parent.left as Node).property : parent.left)
  return '(anonymous)'
}

/** The functions of `source` over `max` lines, each named as a reader would look for it. */
export function longFunctions(path: string, source: string, max = MAX_LINES): LongFunction[] {
  const parser = path.endsWith('.tsx') ? TsxParser : TsParser
  const ast = parser.parse(source, { ecmaVersion: 'latest', sourceType: 'module', locations: true }) as unknown as Node
  const found: LongFunction[] = []
  const visit = (node: Node, parent: Node | null) => {
    if (FUNCTIONS.has(node.type) && node.body) {
      // A method's function node starts at its parameters; the method (name, modifiers) is what is measured.
      const whole = parent && (parent.type === 'MethodDefinition' || (parent.type === 'Property' && (parent.method || parent.kind !== 'init'))) ? parent : node
      const lines = whole.loc.end.line - whole.loc.start.line + 1
      if (lines > max) found.push({ path, name: nameOf(node, parent), line: whole.loc.start.line, lines })
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc') continue
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child && typeof child === 'object' && typeof (child as Node).type === 'string') visit(child as Node, node)
      }
    }
  }
  visit(ast, null)
  return found
}

