// Checks recorded HTTP exchanges against an AWS service model of the REST-XML protocol (botocore's
// `service-2.json`, trimmed to the operations an adapter uses: test/fixtures/provider-openapi/), as
// openapi-validate.ts does for OpenAPI documents: the operation exists (method and request URI), every
// query parameter sent is one of the input's and the required ones are there, the request's XML is the
// input shape (root element, members, lists, enums, lengths, ranges, required members), a success is
// the operation's status with the output shape, and an error is `<ErrorResponse><Error><Code>` naming
// one of the operation's error shapes with that shape's HTTP status.
import { XMLParser } from 'fast-xml-parser'
import { reached, type ConformanceReport, type DescriptionCheck, type Exchange } from './openapi-validate.ts'

type Json = any
interface Member {
  shape: string
  location?: string
  locationName?: string
  flattened?: boolean
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: () => true, parseTagValue: false, trimValues: false, processEntities: true })

/** The root element of an XML text: its name and content, or why it is not XML. */
function root(text: string): { name: string; node: Json } | { error: string } {
  let doc: Json
  try {
    doc = parser.parse(text, true)
  } catch (e) {
    return { error: `not XML (${(e as Error).message.split('\n')[0]})` }
  }
  const names = Object.keys(doc).filter((k) => !k.startsWith('?'))
  if (names.length !== 1 || doc[names[0]!].length !== 1) return { error: 'not one root element' }
  return { name: names[0]!, node: doc[names[0]!][0] }
}

/** Child elements of an element as parsed (attributes and the whitespace between elements left out). */
function children(node: Json): [string, Json[]][] {
  if (typeof node !== 'object' || node === null) return []
  return Object.entries<Json[]>(node).filter(([k, v]) => !k.startsWith('@_') && !(k === '#text' && v.every((t) => String(t).trim() === '')))
}

const text = (node: Json): string | null => (typeof node === 'string' ? node : node && typeof node === 'object' && Object.keys(node).every((k) => k.startsWith('@_') || k === '#text') ? String(node['#text']?.[0] ?? '') : null)

export class AwsRestXmlModel implements DescriptionCheck {
  private readonly templates: { name: string; method: string; uri: string; key: string; re: RegExp }[] = []

  constructor(
    private readonly model: Json,
    private readonly base = '',
  ) {
    if (model.metadata?.protocol !== 'rest-xml') throw new Error(`not a REST-XML model (${model.metadata?.protocol})`)
    for (const [name, op] of Object.entries<Json>(model.operations)) {
      const uri = String(op.http.requestUri).split('?')[0]!
      this.templates.push({ name, method: op.http.method, uri, key: `${op.http.method} ${uri}`, re: new RegExp('^' + uri.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$') })
    }
  }

  operations(): string[] {
    return this.templates.map((t) => t.key)
  }

  /** The problems of `node` as an element of shape `name`, at `at`. */
  private value(name: string, node: Json, at: string, out: string[]) {
    const shape = this.model.shapes[name]
    if (!shape) return void out.push(`${at}: shape ${name} is not in the model`)
    if (shape.type === 'structure') return this.structure(name, node, at, out)
    if (shape.type === 'list') {
      const m: Member = shape.member
      const items = typeof node === 'string' && node.trim() === '' ? [] : children(node).flatMap(([k, v]) => (k === (m.locationName ?? 'member') ? v : (out.push(`${at}: <${k}> is not an item of ${name} (<${m.locationName ?? 'member'}>)`), [])))
      return this.items(name, shape, items, at, out)
    }
    const t = text(node)
    if (t === null) return void out.push(`${at}: ${name} is a ${shape.type}, not elements`)
    if (shape.type === 'string') {
      if (shape.enum && !shape.enum.includes(t)) out.push(`${at}: "${t}" is not one of ${name} (${shape.enum.join(', ')})`)
      if (shape.min !== undefined && [...t].length < shape.min) out.push(`${at}: shorter than ${shape.min} (${name})`)
      if (shape.max !== undefined && [...t].length > shape.max) out.push(`${at}: longer than ${shape.max} (${name})`)
    } else if (shape.type === 'long' || shape.type === 'integer') {
      if (!/^-?\d+$/.test(t)) out.push(`${at}: "${t}" is not an integer (${name})`)
      else if ((shape.min !== undefined && Number(t) < shape.min) || (shape.max !== undefined && Number(t) > shape.max)) out.push(`${at}: ${t} is outside ${shape.min ?? ''}..${shape.max ?? ''} (${name})`)
    } else if (shape.type === 'boolean') {
      if (t !== 'true' && t !== 'false') out.push(`${at}: "${t}" is not a boolean (${name})`)
    } else if (shape.type === 'timestamp') {
      if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(t)) out.push(`${at}: "${t}" is not an ISO 8601 time (${name})`)
    }
  }

  private items(name: string, shape: Json, items: Json[], at: string, out: string[]) {
    if (shape.min !== undefined && items.length < shape.min) out.push(`${at}: fewer than ${shape.min} items (${name})`)
    if (shape.max !== undefined && items.length > shape.max) out.push(`${at}: more than ${shape.max} items (${name})`)
    items.forEach((item) => this.value(shape.member.shape, item, `${at}/*`, out))
  }

  /** A structure's body members (those not carried in the URI, query or headers) against the element's children. */
  private structure(name: string, node: Json, at: string, out: string[]) {
    const shape = this.model.shapes[name]
    if (typeof node === 'string' && node.trim() !== '') return void out.push(`${at}: ${name} is a structure, not text`)
    const members = Object.entries<Member>(shape.members ?? {}).filter(([, m]) => !m.location)
    const byElement = new Map(members.map(([k, m]) => [m.locationName ?? k, [k, m] as const]))
    const seen = new Set<string>()
    for (const [el, nodes] of children(node)) {
      const hit = byElement.get(el)
      if (!hit) {
        out.push(`${at}: <${el}> is not a member of ${name}`)
        continue
      }
      const [key, m] = hit
      seen.add(key)
      const target = this.model.shapes[m.shape]
      if (target?.type === 'list' && (m.flattened || target.flattened)) this.items(m.shape, target, nodes, `${at}/${el}`, out)
      else {
        if (nodes.length > 1) out.push(`${at}: <${el}> appears ${nodes.length} times`)
        this.value(m.shape, nodes[0], `${at}/${el}`, out)
      }
    }
    for (const r of shape.required ?? []) if (!seen.has(r) && !shape.members[r]?.location) out.push(`${at}: required member ${r} missing (${name})`)
  }

  check(exchanges: Exchange[]): ConformanceReport {
    const report: ConformanceReport = { violations: [], covered: new Set(), checked: 0 }
    for (const [ex, t] of reached(exchanges, this.base, this.templates, report, 'model')) {
      const where = `${t.key} (${ex.status})`
      const out: string[] = []
      const op = this.model.operations[t.name]
      const input = op.input ? this.model.shapes[op.input.shape] : { members: {} }
      const query = new Map(Object.entries<Member>(input.members ?? {}).filter(([, m]) => m.location === 'querystring').map(([k, m]) => [m.locationName ?? k, [k, m] as const]))
      for (const [k, v] of Object.entries(ex.query)) {
        const q = query.get(k)
        if (!q) out.push(`query parameter ${k} is not an input of ${t.name}`)
        else this.value(q[1].shape, v, `query ${k}`, out)
      }
      for (const r of input.required ?? []) if (input.members[r]?.location === 'querystring' && ex.query[input.members[r].locationName ?? r] === undefined) out.push(`required query parameter ${input.members[r].locationName ?? r} missing`)
      const bodyMembers = Object.values<Member>(input.members ?? {}).filter((m) => !m.location)
      if (bodyMembers.length === 0) {
        if (ex.requestBody) out.push('a request body where the operation takes none')
      } else if (!ex.requestBody) out.push('the request body is missing')
      else {
        const r = root(ex.requestBody)
        const element = op.input.locationName ?? op.input.shape
        if ('error' in r) out.push(`request ${r.error}`)
        else if (r.name !== element) out.push(`request root <${r.name}>, not <${element}>`)
        else {
          if (op.input.xmlNamespace?.uri && r.node['@_xmlns']?.[0] !== op.input.xmlNamespace.uri && r.node['@_xmlns'] !== op.input.xmlNamespace.uri) out.push(`request namespace is not ${op.input.xmlNamespace.uri}`)
          this.structure(op.input.shape, r.node, `request ${element}`, out)
        }
      }
      if (ex.status < 300) {
        const expected = op.http.responseCode ?? 200
        if (ex.status !== expected) out.push(`status ${ex.status} where the operation answers ${expected}`)
        if (op.output) {
          const r = root(ex.responseBody)
          if ('error' in r) out.push(`response ${r.error}`)
          else if (r.name !== op.output.shape) out.push(`response root <${r.name}>, not <${op.output.shape}>`)
          else this.structure(op.output.shape, r.node, `response ${r.name}`, out)
        }
      } else {
        const r = root(ex.responseBody)
        const error = 'error' in r ? null : r.name === 'ErrorResponse' ? children(r.node).find(([k]) => k === 'Error')?.[1][0] : null
        const code = error ? text(children(error).find(([k]) => k === 'Code')?.[1][0] ?? null) : null
        if (!code) out.push('the error is not <ErrorResponse><Error><Code>')
        else {
          const shape = (op.errors ?? []).map((e: { shape: string }) => [e.shape, this.model.shapes[e.shape]] as const).find(([n, s]: readonly [string, Json]) => (s?.error?.code ?? n) === code)
          if (!shape) out.push(`error ${code} is not documented for ${t.name}`)
          else if ((shape[1].error?.httpStatusCode ?? 400) !== ex.status) out.push(`error ${code} is documented with status ${shape[1].error?.httpStatusCode ?? 400}`)
        }
      }
      for (const o of out) report.violations.push(`${where}: ${o}`)
    }
    report.violations = [...new Set(report.violations)]
    return report
  }
}
