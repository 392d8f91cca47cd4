// Checks recorded HTTP exchanges against a provider's published OpenAPI 3.x or Swagger 2.0 document
// (trimmed to the operations an adapter uses, test/fixtures/provider-openapi/): the operation exists,
// its required query parameters are sent, the request body matches the documented schema, the status
// is documented and the response body matches that status's schema. Used by the adapter contract test
// on what the adapter sent and the stand-in answered, so neither side can drift from the document.
import Ajv, { type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'

export interface Exchange {
  method: string
  /** The request path as sent (the document's base path included). */
  path: string
  query: Record<string, string>
  requestBody: string
  status: number
  responseBody: string
}

type Json = any

export interface ConformanceReport {
  /** One line per problem: `METHOD /path (status): what is wrong`. */
  violations: string[]
  /** The document's operations the exchanges reached (`METHOD /template`). */
  covered: Set<string>
  checked: number
}

/** A published machine-readable description that recorded exchanges are checked against. */
export interface DescriptionCheck {
  /** The operations kept (`METHOD /template`), each of which the exchanges should reach. */
  operations(): string[]
  check(exchanges: Exchange[]): ConformanceReport
}

/**
 * Each exchange with the operation it reaches (its path under `base` matching a template of its
 * method), counted as checked and covered in `report`; one that reaches none is a violation, `not an
 * operation of the <what>`.
 */
export function* reached<T extends { method: string; re: RegExp; key: string }>(exchanges: Exchange[], base: string, templates: T[], report: ConformanceReport, what: string): Generator<[Exchange, T]> {
  for (const ex of exchanges) {
    const path = ex.path.startsWith(base) ? ex.path.slice(base.length) || '/' : ex.path
    const t = templates.find((x) => x.method === ex.method && x.re.test(path))
    if (!t) {
      report.violations.push(`${ex.method} ${ex.path} (${ex.status}): not an operation of the ${what}`)
      continue
    }
    report.checked++
    report.covered.add(t.key)
    yield [ex, t]
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

/** Swagger 2's `x-nullable`, OpenAPI 3.0's `nullable` and boolean exclusive bounds as JSON Schema, everywhere in a schema tree. */
function jsonSchema(node: Json, oneOfAsAnyOf = false): Json {
  if (Array.isArray(node)) return node.map((n) => jsonSchema(n, oneOfAsAnyOf))
  if (!node || typeof node !== 'object') return node
  const out: Json = Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'example' && k !== 'examples' && k !== 'discriminator' && k !== 'xml')
      .map(([k, v]) => [k === 'oneOf' && oneOfAsAnyOf ? 'anyOf' : k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, jsonSchema(s, oneOfAsAnyOf)])) : jsonSchema(v, oneOfAsAnyOf)]),
  )
  // OpenAPI 3.0 (JSON Schema draft 4) spells exclusive bounds as booleans beside minimum/maximum.
  for (const [ex, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[ex] !== 'boolean') continue
    if (out[ex] && typeof out[bound] === 'number') [out[ex], out[bound]] = [out[bound], undefined]
    else delete out[ex]
    if (out[bound] === undefined) delete out[bound]
  }
  if (out['x-nullable'] === true) out.nullable = true
  // OpenAPI 3.0.3: `nullable: true` adds null to the allowed values, an enum's included.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  if (out.nullable === true && out.type === undefined && out.$ref === undefined && !out.allOf && !out.oneOf && !out.anyOf) delete out.nullable
  if (out.nullable === true && out.$ref !== undefined) return { anyOf: [{ $ref: out.$ref }, { type: 'null' }] }
  return out
}

export class OpenApiDocument implements DescriptionCheck {
  private readonly ajv = new Ajv({ strict: false, allErrors: true, logger: false })
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly templates: { method: string; template: string; key: string; re: RegExp; literal: number }[] = []
  private readonly oneOfAsAnyOf: boolean

  constructor(
    private readonly doc: Json,
    /** The path prefix the document's own paths sit under on the wire (`/v2`, `/api/v1`). */
    private readonly base: string,
    options: {
      /** Paths match whatever their case (Azure Resource Manager's resource paths are case-insensitive: `dnszones` is `dnsZones`). */
      ignoreCase?: boolean
      /** `oneOf` read as `anyOf`, for a document whose alternatives overlap (Vercel's: a page with `pagination` also matches the alternative without it), so a valid answer matches more than one. */
      oneOfAsAnyOf?: boolean
    } = {},
  ) {
    this.oneOfAsAnyOf = !!options.oneOfAsAnyOf
    addFormats(this.ajv)
    this.ajv.addSchema(jsonSchema({ components: doc.components ?? {}, definitions: doc.definitions ?? {} }, this.oneOfAsAnyOf), 'doc')
    for (const [template, item] of Object.entries<Json>(doc.paths ?? {})) {
      const re = new RegExp('^' + template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$', options.ignoreCase ? 'i' : '')
      for (const m of METHODS) if (item[m]) this.templates.push({ method: m.toUpperCase(), template, key: `${m.toUpperCase()} ${template}`, re, literal: template.replace(/\{[^}]+\}/g, '').length })
    }
    this.templates.sort((a, b) => b.literal - a.literal)
  }

  operations(): string[] {
    return this.templates.map((t) => t.key)
  }

  private ref(node: Json): Json {
    let n = node
    for (let i = 0; n?.$ref && i < 20; i++) n = n.$ref.slice(2).split('/').reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc)
    return n
  }

  private validate(schema: Json, value: unknown): string[] {
    const key = JSON.stringify(schema)
    let v = this.compiled.get(key)
    if (!v) {
      // Local references resolve against the document's components (added as `doc`).
      const rebased = JSON.parse(key.replace(/"\$ref":"#\//g, '"$ref":"doc#/'))
      v = this.ajv.compile(jsonSchema(rebased, this.oneOfAsAnyOf))
      this.compiled.set(key, v)
    }
    return v(value) ? [] : (v.errors ?? []).slice(0, 5).map((e) => `${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*') || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`)
  }

  /** The JSON schema of a request body, Swagger 2 (`in: body`) or OpenAPI 3 (`requestBody`). */
  private requestSchema(op: Json, params: Json[]): { schema: Json; required: boolean } | null {
    const body = params.find((p) => p.in === 'body')
    if (body) return { schema: body.schema, required: !!body.required }
    const rb = this.ref(op.requestBody)
    const media = rb?.content && (rb.content['application/json'] ?? Object.entries<Json>(rb.content).find(([t]) => t.includes('json'))?.[1])
    return media?.schema ? { schema: media.schema, required: !!rb.required } : null
  }

  private responseSchema(op: Json, status: number): { documented: boolean; schema: Json | null } {
    // A range is `4XX` in OpenAPI 3; some documents (Hetzner's) write it `4xx`, meaning the same.
    const r = this.ref(op.responses?.[String(status)] ?? op.responses?.[`${String(status)[0]}XX`] ?? op.responses?.[`${String(status)[0]}xx`] ?? op.responses?.default)
    if (!r) return { documented: false, schema: null }
    if (r.schema) return { documented: true, schema: r.schema }
    const media = r.content && (r.content['application/json'] ?? Object.entries<Json>(r.content).find(([t]) => t.includes('json'))?.[1])
    return { documented: true, schema: media?.schema ?? null }
  }

  check(exchanges: Exchange[]): ConformanceReport {
    const report: ConformanceReport = { violations: [], covered: new Set(), checked: 0 }
    for (const [ex, t] of reached(exchanges, this.base, this.templates, report, 'document')) {
      const where = `${t.key} (${ex.status})`
      const item = this.doc.paths[t.template]
      const op = item[t.method.toLowerCase()]
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => this.ref(p))
      for (const p of params) if (p.in === 'query' && p.required && ex.query[p.name] === undefined) report.violations.push(`${where}: required query parameter ${p.name} missing`)
      const req = this.requestSchema(op, params)
      if (req) {
        if (!ex.requestBody) {
          if (req.required) report.violations.push(`${where}: the request body is required`)
        } else {
          let body: unknown
          try {
            body = JSON.parse(ex.requestBody)
          } catch {
            report.violations.push(`${where}: the request body is not JSON`)
          }
          if (body !== undefined) for (const e of this.validate(req.schema, body)) report.violations.push(`${where}: request ${e}`)
        }
      }
      const res = this.responseSchema(op, ex.status)
      if (!res.documented) {
        report.violations.push(`${where}: status ${ex.status} is not documented`)
        continue
      }
      if (res.schema && ex.responseBody) {
        let body: unknown
        try {
          body = JSON.parse(ex.responseBody)
        } catch {
          report.violations.push(`${where}: the response body is not JSON`)
          continue
        }
        for (const e of this.validate(res.schema, body)) report.violations.push(`${where}: response ${e}`)
      }
    }
    report.violations = [...new Set(report.violations)]
    return report
  }
}
