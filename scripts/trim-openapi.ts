// Trims a provider's published OpenAPI (3.x) or Swagger (2.0) document, AWS service model (botocore's
// service-2.json) or Google discovery document to the operations a Portico adapter uses, for the
// stand-in conformance check (test/harness/openapi-validate.ts, aws-model-validate.ts, discovery.ts).
// Run once per provider when its document changes:
//
//   bun scripts/trim-openapi.ts <provider id> <the document, YAML or JSON, as published> [more parts]
//
// A document split into one file per service (as a copy may be) is given as all of its parts.
// The operations kept are the ones `test/fixtures/provider-openapi/sources.json` lists for the id.
// References into other files of a multi-file document are inlined; references inside the document
// (`#/components/…`, `#/definitions/…`) are kept, with every component they reach, transitively.
// The output, `test/fixtures/provider-openapi/<id>.json`, is the published text of those parts,
// unchanged apart from the inlining.
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const FIXTURES = join(import.meta.dir, '../test/fixtures/provider-openapi')

type Json = any

function load(file: string): Json {
  const text = readFileSync(file, 'utf8')
  return /\.ya?ml$/.test(file) ? Bun.YAML.parse(text) : JSON.parse(text)
}

/** A JSON pointer (`/a/b~1c`) into `doc`. */
function at(doc: Json, pointer: string): Json {
  return pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => o?.[decodeURIComponent(k.replace(/~1/g, '/').replace(/~0/g, '~'))], doc)
}

/**
 * Inlines `$ref`s that point into other files (resolved from `file`'s folder). Local references stay
 * when `file` is the main document; inside another file they mean that file's own root, so they are
 * inlined as well.
 */
function inlineFiles(node: Json, file: string, doc: Json, main: boolean, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => inlineFiles(n, file, doc, main, seen))
  if (!node || typeof node !== 'object') return node
  const ref = node.$ref
  if (typeof ref === 'string' && (!ref.startsWith('#') || !main)) {
    const [path, pointer = ''] = ref.split('#')
    const target = path ? resolve(dirname(file), path) : file
    const key = `${target}#${pointer}`
    if (seen.includes(key)) throw new Error(`reference cycle through ${key}`)
    const targetDoc = path ? load(target) : doc
    return inlineFiles(pointer ? at(targetDoc, pointer) : targetDoc, target, targetDoc, false, [...seen, key])
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inlineFiles(v, file, doc, main, seen)]))
}

/** Every local `$ref` reachable from `node`, collected into `into` (transitively through `doc`). */
function reach(node: Json, doc: Json, into: Set<string>) {
  if (Array.isArray(node)) return node.forEach((n) => reach(n, doc, into))
  if (!node || typeof node !== 'object') return
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#') && !into.has(node.$ref)) {
    into.add(node.$ref)
    reach(at(doc, node.$ref.slice(1)), doc, into)
  }
  for (const v of Object.values(node)) reach(v, doc, into)
}

function setAt(doc: Json, pointer: string, value: Json) {
  const keys = pointer.split('/').slice(1).map((k) => decodeURIComponent(k.replace(/~1/g, '/').replace(/~0/g, '~')))
  let o = doc
  for (const k of keys.slice(0, -1)) o = o[k] ??= {}
  o[keys.at(-1)!] = value
}

/** Every key `documentation` (the model's prose, as HTML) left out, everywhere. */
const withoutDocs = (node: Json): Json =>
  Array.isArray(node) ? node.map(withoutDocs) : node && typeof node === 'object' ? Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'documentation').map(([k, v]) => [k, withoutDocs(v)])) : node

/**
 * An AWS service model (botocore's `service-2.json`, Smithy's JSON AST as botocore carries it):
 * `operations` are the model's operation names (`ListHostedZones`); the operations and every shape
 * they reach (input, output, errors, members, list members) are kept, their `documentation` prose
 * left out.
 */
export function trimAwsModel(model: Json, operations: string[]): Json {
  const out: Json = { version: model.version, metadata: model.metadata, operations: {}, shapes: {} }
  const shapes = new Set<string>()
  const visit = (name: string) => {
    if (shapes.has(name)) return
    const shape = model.shapes[name]
    if (!shape) throw new Error(`shape ${name} is not in the model`)
    shapes.add(name)
    for (const m of Object.values<Json>(shape.members ?? {})) visit(m.shape)
    for (const k of ['member', 'key', 'value']) if (shape[k]) visit(shape[k].shape)
  }
  for (const name of operations) {
    const op = model.operations[name]
    if (!op) throw new Error(`${name} is not an operation of the model`)
    out.operations[name] = withoutDocs(op)
    for (const ref of [op.input, op.output, ...(op.errors ?? [])]) if (ref) visit(ref.shape)
  }
  for (const name of [...shapes].sort()) out.shapes[name] = withoutDocs(model.shapes[name])
  return out
}

/** A discovery schema or method without its prose (`description`, `enumDescriptions`); property names stay, whatever they are called. */
const withoutProse = (node: Json): Json =>
  Array.isArray(node)
    ? node.map(withoutProse)
    : node && typeof node === 'object'
      ? Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'description' && k !== 'enumDescriptions').map(([k, v]) => [k, k === 'properties' || k === 'parameters' ? Object.fromEntries(Object.entries<Json>(v as Json).map(([p, s]) => [p, withoutProse(s)])) : withoutProse(v)]))
      : node

/**
 * A Google API discovery document: `operations` are method ids (`dns.changes.create`); the methods
 * (under their resources), the schemas they reach (by name, transitively) and the document's
 * identity (name, version, revision, URLs) are kept, their prose left out, as are the API-wide query
 * parameters (alt, fields, key…), which Portico does not send.
 */
export function trimDiscovery(doc: Json, operations: string[]): Json {
  const out: Json = {}
  for (const k of ['kind', 'discoveryVersion', 'id', 'name', 'version', 'revision', 'title', 'protocol', 'rootUrl', 'servicePath', 'basePath', 'baseUrl']) if (doc[k] !== undefined) out[k] = doc[k]
  out.resources = {}
  const names = new Set<string>()
  const reachNames = (node: Json) => {
    if (Array.isArray(node)) return node.forEach(reachNames)
    if (!node || typeof node !== 'object') return
    if (typeof node.$ref === 'string' && !names.has(node.$ref)) {
      names.add(node.$ref)
      if (!doc.schemas?.[node.$ref]) throw new Error(`schema ${node.$ref} is not in the document`)
      reachNames(doc.schemas[node.$ref])
    }
    for (const v of Object.values(node)) reachNames(v)
  }
  const walk = (resources: Json, into: Json) => {
    for (const [name, r] of Object.entries<Json>(resources ?? {})) {
      for (const [m, method] of Object.entries<Json>(r.methods ?? {})) {
        if (!operations.includes(method.id)) continue
        ;((into[name] ??= {}).methods ??= {})[m] = withoutProse(method)
        reachNames(method)
      }
      if (r.resources) {
        const nested: Json = {}
        walk(r.resources, nested)
        if (Object.keys(nested).length) (into[name] ??= {}).resources = nested
      }
    }
  }
  walk(doc.resources, out.resources)
  const found = JSON.stringify(out.resources)
  for (const id of operations) if (!found.includes(`"id":"${id}"`)) throw new Error(`${id} is not a method of the document`)
  out.schemas = Object.fromEntries([...names].sort().map((n) => [n, withoutProse(doc.schemas[n])]))
  return out
}

/**
 * Parts of one OpenAPI document published (or copied) as several files, one per service: their
 * paths and components together. A component two parts define differently is an error.
 */
export function mergeParts(parts: Json[]): Json {
  const main: Json = { ...parts[0], paths: {}, components: {} }
  for (const part of parts) {
    for (const [path, item] of Object.entries<Json>(part.paths ?? {})) {
      if (main.paths[path]) throw new Error(`${path} is in two parts`)
      main.paths[path] = item
    }
    for (const [kind, entries] of Object.entries<Json>(part.components ?? {})) {
      for (const [name, value] of Object.entries<Json>(entries)) {
        const have = main.components[kind]?.[name]
        if (have !== undefined && JSON.stringify(have) !== JSON.stringify(value)) throw new Error(`components.${kind}.${name} differs between parts`)
        ;(main.components[kind] ??= {})[name] = value
      }
    }
  }
  return main
}

export function trim(source: string | string[], operations: string[]): Json {
  const files = Array.isArray(source) ? source : [source]
  const main = files.length === 1 ? load(files[0]!) : mergeParts(files.map(load))
  source = files[0]!
  if (main.metadata?.protocol && main.shapes) return trimAwsModel(main, operations)
  if (main.kind === 'discovery#restDescription') return trimDiscovery(main, operations)
  const out: Json = {}
  for (const k of ['openapi', 'swagger', 'info', 'servers', 'host', 'basePath', 'schemes', 'consumes', 'produces', 'security', 'securityDefinitions']) if (main[k] !== undefined) out[k] = main[k]
  out.info = { title: main.info?.title, version: main.info?.version }
  out.paths = {}
  for (const op of operations) {
    const [method, path] = op.split(' ') as [string, string]
    const item = main.paths?.[path]
    if (!item) throw new Error(`${path} is not in the document`)
    const resolved = inlineFiles(item, source, main, true)
    const operation = resolved[method.toLowerCase()]
    if (!operation) throw new Error(`${op} is not in the document`)
    out.paths[path] ??= resolved.parameters ? { parameters: resolved.parameters } : {}
    out.paths[path][method.toLowerCase()] = operation
  }
  const refs = new Set<string>()
  reach(out.paths, main, refs)
  for (const ref of [...refs].sort()) setAt(out, ref.slice(1), inlineFiles(at(main, ref.slice(1)), source, main, true))
  // Components brought in by inlining may reach further local components.
  const more = new Set<string>()
  reach(out, main, more)
  for (const ref of more) if (!refs.has(ref)) setAt(out, ref.slice(1), inlineFiles(at(main, ref.slice(1)), source, main, true))
  if (out.components?.securitySchemes === undefined && main.components?.securitySchemes) (out.components ??= {}).securitySchemes = main.components.securitySchemes
  return out
}

if (import.meta.main) {
  const [id, ...source] = process.argv.slice(2)
  if (!id || !source.length) {
    console.error('usage: bun scripts/trim-openapi.ts <provider id> <document> [more parts of the same document]')
    process.exit(2)
  }
  const sources = JSON.parse(readFileSync(join(FIXTURES, 'sources.json'), 'utf8')) as Record<string, { operations: string[] }>
  const entry = sources[id]
  if (!entry) throw new Error(`${id} is not in sources.json`)
  const doc = trim(source, entry.operations)
  writeFileSync(join(FIXTURES, `${id}.json`), JSON.stringify(doc, null, 1) + '\n')
  console.log(`${id}: ${entry.operations.length} operations, ${JSON.stringify(doc).length} bytes`)
}
