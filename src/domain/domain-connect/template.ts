// Domain Connect templates: the published JSON format (Domain-Connect/Templates `template.schema`,
// spec "Template Definition" and "Template Record"). This module owns parsing, validation and the
// on-disk template set. Invariants:
// - `parseTemplate` accepts exactly what the public schema accepts (no stricter, or a public template
//   would be refused at start), plus the spec's two must-refuse rules (`crit`, `templateSpecVersion`).
// - A parsed template is normalised: booleans default to false, `essential` is 'Always' | 'OnApply',
//   `txtConflictMatchingMode` is 'None' | 'All' | 'Prefix'. Numeric fields stay as written (number or
//   string with variables); they are resolved when the template is applied (apply.ts).
// - `loadTemplatesFromDir` never drops a file silently: every unreadable, invalid or duplicate file is
//   returned in `failures` with its name.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export type Essential = 'Always' | 'OnApply'
export type TxtConflictMode = 'None' | 'All' | 'Prefix'
/** A TTL, priority, weight or port as written: an integer, a numeric string, or a string with `%var%`. */
export type NumberField = number | string

export interface TemplateRecord {
  type: string
  groupId?: string
  essential: Essential
  host?: string
  /** SRV owner, relative to the applied host and domain like `host`. */
  name?: string
  pointsTo?: string
  target?: string
  data?: string
  ttl?: NumberField
  priority?: NumberField
  weight?: NumberField
  port?: NumberField
  service?: string
  protocol?: string
  spfRules?: string
  txtConflictMatchingMode: TxtConflictMode
  txtConflictMatchingPrefix?: string
}

export interface Template {
  providerId: string
  providerName: string
  serviceId: string
  serviceName: string
  version?: number
  logoUrl?: string
  description?: string
  variableDescription?: string
  syncBlock: boolean
  shared: boolean
  sharedProviderName: boolean
  sharedServiceName: boolean
  syncPubKeyDomain?: string
  syncRedirectDomain?: string
  multiInstance: boolean
  warnPhishing: boolean
  hostRequired: boolean
  records: TemplateRecord[]
  /** File the template was read from, for messages. */
  fileName?: string
}

export type ParseResult = { ok: true; template: Template } | { ok: false; errors: string[] }

type FieldKind = 'string' | 'number'
interface TypeRule {
  fields: Record<string, FieldKind>
  required: string[]
}
const POINTS_TO: TypeRule = { fields: { host: 'string', pointsTo: 'string', ttl: 'number' }, required: ['host', 'pointsTo', 'ttl'] }
const REDIRECT: TypeRule = { fields: { host: 'string', target: 'string' }, required: ['target'] }
const TYPE_RULES: Record<string, TypeRule> = {
  A: POINTS_TO,
  AAAA: POINTS_TO,
  CNAME: POINTS_TO,
  NS: POINTS_TO,
  TXT: {
    fields: { host: 'string', ttl: 'number', data: 'string', txtConflictMatchingMode: 'string', txtConflictMatchingPrefix: 'string' },
    required: ['host', 'data', 'ttl'],
  },
  MX: { fields: { host: 'string', pointsTo: 'string', ttl: 'number', priority: 'number' }, required: ['host', 'pointsTo', 'priority', 'ttl'] },
  SPFM: { fields: { host: 'string', spfRules: 'string' }, required: ['host', 'spfRules'] },
  SRV: {
    fields: { name: 'string', target: 'string', ttl: 'number', priority: 'number', protocol: 'string', service: 'string', weight: 'number', port: 'number' },
    required: ['name', 'target', 'priority', 'protocol', 'service', 'weight', 'port', 'ttl'],
  },
  REDIR301: REDIRECT,
  REDIR302: REDIRECT,
  APEXCNAME: { fields: { pointsTo: 'string', ttl: 'number' }, required: ['pointsTo', 'ttl'] },
}
const GENERIC_RULE: TypeRule = { fields: { host: 'string', ttl: 'number', data: 'string' }, required: ['host', 'data', 'ttl'] }

/** Types with a dedicated schema variant get its rule; any other string type is a generic record (`Record-ANY`). */
function ruleFor(type: string): TypeRule {
  return Object.hasOwn(TYPE_RULES, type) ? TYPE_RULES[type]! : GENERIC_RULE
}

const REQUIRED_STRINGS = ['providerId', 'providerName', 'serviceId', 'serviceName'] as const
const OPTIONAL_STRINGS = ['logoUrl', 'description', 'variableDescription', 'syncRedirectDomain', 'syncPubKeyDomain'] as const
const BOOLEANS = ['syncBlock', 'shared', 'sharedProviderName', 'sharedServiceName', 'multiInstance', 'warnPhishing', 'hostRequired'] as const

/** Template properties this engine processes; a `crit` entry outside this set refuses the template (spec "Template Property Extensibility"). */
const UNDERSTOOD_PROPERTIES = new Set<string>([...REQUIRED_STRINGS, ...OPTIONAL_STRINGS, ...BOOLEANS, 'version', 'records', 'crit', 'templateSpecVersion'])
const UNDERSTOOD_RECORD_FIELDS = new Set<string>([
  'type',
  'groupId',
  'essential',
  'crit',
  ...Object.keys(GENERIC_RULE.fields),
  ...Object.values(TYPE_RULES).flatMap((r) => Object.keys(r.fields)),
])

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The schema's `Number_or_NumberInString_or_Variable` is a oneOf: an integer, a string containing a digit,
 * or a string containing `%…%` — exactly one of them, so "%ttl1%" (both a digit and a variable) is refused.
 */
function isNumberField(v: unknown): v is NumberField {
  if (typeof v === 'number') return Number.isInteger(v)
  if (typeof v !== 'string') return false
  return /\d/.test(v) !== /%[^%]+%/.test(v)
}

function checkField(value: unknown, kind: FieldKind): boolean {
  return kind === 'string' ? typeof value === 'string' : isNumberField(value)
}

function recordErrors(rec: unknown, where: string): string[] {
  if (!isObject(rec)) return [`${where}: must be an object`]
  const errors: string[] = []
  if (rec.groupId !== undefined && typeof rec.groupId !== 'string') errors.push(`${where}.groupId: must be a string`)
  if (rec.essential !== undefined && typeof rec.essential !== 'string') errors.push(`${where}.essential: must be a string`)
  if (typeof rec.type !== 'string') return [...errors, `${where}.type: required string`]
  const rule = ruleFor(rec.type)
  for (const f of rule.required) if (rec[f] === undefined) errors.push(`${where} (${rec.type}): missing required field "${f}"`)
  for (const [f, kind] of Object.entries(rule.fields)) {
    if (rec[f] !== undefined && !checkField(rec[f], kind)) {
      errors.push(`${where}.${f}: ${kind === 'string' ? 'must be a string' : 'must be an integer, a numeric string or a %variable%'}`)
    }
  }
  if (Array.isArray(rec.crit)) {
    for (const f of rec.crit) if (typeof f !== 'string' || !UNDERSTOOD_RECORD_FIELDS.has(f)) errors.push(`${where}.crit: field "${String(f)}" is not understood`)
  }
  return errors
}

/**
 * The schema's anyOf on `DomainConnectTemplateWithHostRequired`: a CNAME or NS at the applied root
 * ("@" or "") only makes sense below a host, so such a template must say `hostRequired: true`.
 */
function needsHostRequired(records: unknown[]): boolean {
  return records.some(
    (r) => isObject(r) && (r.type === undefined || r.type === 'NS' || r.type === 'CNAME') && (r.host === undefined || r.host === '@' || r.host === ''),
  )
}

function templateErrors(json: Record<string, unknown>): string[] {
  const errors: string[] = []
  for (const k of REQUIRED_STRINGS) if (typeof json[k] !== 'string') errors.push(`${k}: required string`)
  for (const k of OPTIONAL_STRINGS) if (json[k] !== undefined && typeof json[k] !== 'string') errors.push(`${k}: must be a string`)
  for (const k of BOOLEANS) if (json[k] !== undefined && typeof json[k] !== 'boolean') errors.push(`${k}: must be a boolean`)
  if (json.version !== undefined && !(typeof json.version === 'number' && Number.isInteger(json.version))) errors.push('version: must be an integer')
  if (json.templateSpecVersion !== undefined && json.templateSpecVersion !== 1) errors.push('templateSpecVersion: only version 1 is supported')
  if (Array.isArray(json.crit)) {
    for (const p of json.crit) if (typeof p !== 'string' || !UNDERSTOOD_PROPERTIES.has(p)) errors.push(`crit: property "${String(p)}" is not understood`)
  }
  if (!Array.isArray(json.records)) return [...errors, 'records: required array']
  json.records.forEach((r, i) => errors.push(...recordErrors(r, `records[${i}]`)))
  if (json.hostRequired !== true && needsHostRequired(json.records)) errors.push('hostRequired: must be true when a CNAME or NS record is at "@" or ""')
  return errors
}

function normaliseEssential(v: unknown): Essential {
  return typeof v === 'string' && v.toLowerCase() === 'onapply' ? 'OnApply' : 'Always'
}

/** Unknown modes fall back to the spec default "None" (ignore-unknown rule). */
function normaliseTxtMode(v: unknown): TxtConflictMode {
  const mode = typeof v === 'string' ? v.toLowerCase() : ''
  return mode === 'all' ? 'All' : mode === 'prefix' ? 'Prefix' : 'None'
}

function normaliseRecord(rec: Record<string, unknown>): TemplateRecord {
  const type = rec.type as string
  const out: TemplateRecord = { type, essential: normaliseEssential(rec.essential), txtConflictMatchingMode: 'None' }
  if (typeof rec.groupId === 'string') out.groupId = rec.groupId
  const fields = ruleFor(type).fields
  const target = out as unknown as Record<string, unknown>
  for (const f of Object.keys(fields)) if (rec[f] !== undefined) target[f] = rec[f]
  out.txtConflictMatchingMode = type === 'TXT' ? normaliseTxtMode(rec.txtConflictMatchingMode) : 'None'
  return out
}

export function parseTemplate(json: unknown, fileName?: string): ParseResult {
  const prefix = fileName ? `${fileName}: ` : ''
  if (!isObject(json)) return { ok: false, errors: [`${prefix}template must be a JSON object`] }
  const errors = templateErrors(json)
  if (errors.length > 0) return { ok: false, errors: errors.map((e) => prefix + e) }
  const template: Template = {
    providerId: json.providerId as string,
    providerName: json.providerName as string,
    serviceId: json.serviceId as string,
    serviceName: json.serviceName as string,
    syncBlock: json.syncBlock === true,
    shared: json.shared === true,
    sharedProviderName: json.sharedProviderName === true,
    sharedServiceName: json.sharedServiceName === true,
    multiInstance: json.multiInstance === true,
    warnPhishing: json.warnPhishing === true,
    hostRequired: json.hostRequired === true,
    records: (json.records as Record<string, unknown>[]).map(normaliseRecord),
  }
  if (typeof json.version === 'number') template.version = json.version
  for (const k of OPTIONAL_STRINGS) if (typeof json[k] === 'string') template[k] = json[k] as string
  if (fileName) template.fileName = fileName
  return { ok: true, template }
}

export interface LoadResult {
  templates: Template[]
  failures: { file: string; errors: string[] }[]
  /** Files that are not `*.json` (dotfiles aside): not read as templates, but named. */
  ignored: string[]
}

/** Reads every `*.json` file of `dir` (sorted by name, so the outcome is deterministic). */
export function loadTemplatesFromDir(dir: string): LoadResult {
  const templates: Template[] = []
  const failures: LoadResult['failures'] = []
  const seen = new Map<string, string>()
  const all = readdirSync(dir).sort()
  const isJson = (f: string) => f.toLowerCase().endsWith('.json')
  const files = all.filter(isJson)
  const ignored = all.filter((f) => !isJson(f) && !f.startsWith('.'))
  for (const file of files) {
    let json: unknown
    try {
      json = JSON.parse(readFileSync(join(dir, file), 'utf8'))
    } catch (err) {
      failures.push({ file, errors: [`not readable JSON: ${(err as Error).message}`] })
      continue
    }
    const parsed = parseTemplate(json, file)
    if (!parsed.ok) {
      failures.push({ file, errors: parsed.errors })
      continue
    }
    // providerId/serviceId appear in URLs, where DNS Providers compare them case-insensitively.
    const key = `${parsed.template.providerId}/${parsed.template.serviceId}`.toLowerCase()
    const first = seen.get(key)
    if (first) {
      failures.push({ file, errors: [`duplicate template ${key}: already loaded from ${first}`] })
      continue
    }
    seen.set(key, file)
    templates.push(parsed.template)
  }
  return { templates, failures, ignored }
}

/** Built-in variables (spec "Special and Built-In Variables"); matched case-insensitively. */
export const BUILT_IN_VARIABLES = ['host', 'domain', 'fqdn'] as const

/**
 * A variable expression: `%name%`. The name excludes braces and whitespace so SPF macros such as
 * `%{d}` (RFC 7208 section 7) are never mistaken for template variables.
 */
export const VARIABLE_PATTERN = /%([A-Za-z0-9_.-]+)%/g

/** Record fields that may carry variables; `type`, `groupId`, `essential` and the TXT mode may not. */
export const SUBSTITUTED_FIELDS = [
  'host',
  'name',
  'pointsTo',
  'target',
  'data',
  'ttl',
  'priority',
  'weight',
  'port',
  'service',
  'protocol',
  'spfRules',
  'txtConflictMatchingPrefix',
] as const

export function isBuiltInVariable(name: string): boolean {
  return (BUILT_IN_VARIABLES as readonly string[]).includes(name.toLowerCase())
}

/** The `%name%` variables a caller must supply, in order of first appearance, without the built-ins. */
export function templateVariables(template: Template): string[] {
  const names = new Set<string>()
  for (const rec of template.records) {
    for (const field of SUBSTITUTED_FIELDS) {
      const value = rec[field]
      if (typeof value !== 'string') continue
      for (const m of value.matchAll(VARIABLE_PATTERN)) if (!isBuiltInVariable(m[1]!)) names.add(m[1]!)
    }
  }
  return [...names]
}
