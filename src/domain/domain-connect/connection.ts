// Which template, groups and variables put a connection's desired records in place. Nothing here is
// specific to Portico's own templates: a template fits a connection when, with the variables Portico
// knows for the connection (`target`, `token`, `ip1`…`ipN`, plus the built-ins), its ungrouped records
// render and the records of the groups it selects are all desired records, and together they cover
// every desired record. A group that would write anything else (an `ip2` group for a one-address
// application, a `www` group without www_redirect) is left out of `groupId`.
import type { ConnectionRow } from '../../db/connections.ts'
import { isApexPointer, type DnsRecord } from '../records.ts'
import { applyTemplate, type DesiredRecord } from './apply.ts'
import { templateVariables, type Template } from './template.ts'

export interface ConnectionPlan {
  template: Template
  domain: string
  host: string
  params: Record<string, string>
  /** Undefined when the template has no groups (every record applies). */
  groupIds?: string[]
  records: DesiredRecord[]
}

export type PlanResult = { ok: true; plan: ConnectionPlan } | { ok: false; error: string }

const HOST_VALUED = new Set(['CNAME', 'ALIAS', 'ANAME', 'NS', 'MX', 'SRV', 'APEXCNAME'])

export function connectionParams(c: Pick<ConnectionRow, 'planned_target' | 'verification_token' | 'desired_records'>): Record<string, string> {
  const params: Record<string, string> = { target: c.planned_target.cname_target, token: c.verification_token }
  c.planned_target.apex_ipv4.forEach((ip, i) => (params[`ip${i + 1}`] = ip))
  return params
}

function desiredKey(r: DnsRecord, apex: string): string {
  const atApex = r.host === '@' || r.host === ''
  const name = atApex ? apex : `${r.host}.${apex}`.toLowerCase()
  const value = HOST_VALUED.has(r.type) ? r.value.toLowerCase().replace(/\.$/, '') : r.value
  // A "CNAME" at the apex is planned only for providers with an ALIAS-style record: Domain Connect's APEXCNAME.
  const type = isApexPointer(r) ? 'APEXCNAME' : r.type
  return `${type} ${name} ${value}`
}

function renderedKey(r: DesiredRecord): string {
  return `${r.type} ${r.name} ${r.data}`
}

function render(template: Template, records: Template['records'], domain: string, host: string, params: Record<string, string>) {
  return applyTemplate({ template: { ...template, records }, domain, host, params, zone: [] })
}

type PlannedConnection = Pick<ConnectionRow, 'domain' | 'apex_domain' | 'planned_target' | 'verification_token' | 'desired_records'>

/**
 * `cover` (default): the template alone must set every desired record. Without it (one template of several
 * under one consent) the template only has to render; `coverAll` checks the union.
 */
export function planForConnection(template: Template, c: PlannedConnection, opts: { cover?: boolean } = {}): PlanResult {
  const domain = c.apex_domain
  const host = c.domain === c.apex_domain ? '' : c.domain.slice(0, -(c.apex_domain.length + 1))
  const params = connectionParams(c)
  const desired = new Set(c.desired_records.map((r) => desiredKey(r, domain)))
  const ungrouped = template.records.filter((r) => r.groupId === undefined)
  const groups = [...new Set(template.records.flatMap((r) => (r.groupId === undefined ? [] : [r.groupId])))]
  const records: DesiredRecord[] = []
  if (ungrouped.length > 0) {
    const r = render(template, ungrouped, domain, host, params)
    if (!r.ok) return { ok: false, error: `${template.serviceId}: ${r.error}` }
    records.push(...r.records)
  }
  const chosen: string[] = []
  for (const g of groups) {
    const r = render(template, template.records.filter((x) => x.groupId === g), domain, host, params)
    if (r.ok && r.records.every((x) => desired.has(renderedKey(x)))) {
      chosen.push(g)
      records.push(...r.records)
    }
  }
  if (groups.length > 0 && chosen.length === 0) return { ok: false, error: `${template.serviceId}: no group of the template fits the connection` }
  if (opts.cover !== false) {
    const missing = uncovered([records], c)
    if (missing.length > 0) return { ok: false, error: `${template.serviceId} does not set ${missing.join(', ')}` }
  }
  // Only the variables the template uses travel in the apply URL or call.
  const used = Object.fromEntries(templateVariables(template).filter((v) => v in params).map((v) => [v, params[v]!]))
  return { ok: true, plan: { template, domain, host, params: used, ...(groups.length > 0 ? { groupIds: chosen } : {}), records } }
}

/** The desired records none of the plans' records set, as `TYPE name value`. */
export function uncovered(recordSets: DesiredRecord[][], c: Pick<ConnectionRow, 'apex_domain' | 'desired_records'>): string[] {
  const covered = new Set(recordSets.flat().map(renderedKey))
  return c.desired_records.map((r) => desiredKey(r, c.apex_domain)).filter((k) => !covered.has(k))
}
