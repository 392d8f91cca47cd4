// Plausible values for a template's variables, chosen from where each variable is used (an A record's
// pointsTo gets an IPv4 address, a whole REDIR target a URL, a host a label, ...), so any published
// template can be applied with its variables filled.
import { applyTemplate } from '../../src/domain/domain-connect/apply.ts'
import { templateVariables, type Template, type TemplateRecord } from '../../src/domain/domain-connect/template.ts'

type Kind = 'ipv4' | 'ipv6' | 'caaFlags' | 'caaTag' | 'number' | 'url' | 'spf' | 'hostname' | 'label' | 'text'
const KIND_ORDER: Kind[] = ['ipv4', 'ipv6', 'caaFlags', 'caaTag', 'number', 'url', 'spf', 'hostname', 'label', 'text']

/** CAA data is "flags tag value" (RFC 8659): a variable standing for the first or second word is that part. */
function caaKind(value: string, index: number): Kind | null {
  const before = value.slice(0, index).trim()
  const words = before === '' ? 0 : before.split(/\s+/).length
  return words === 0 ? 'caaFlags' : words === 1 ? 'caaTag' : null
}

function kindOf(rec: TemplateRecord, field: string, whole: boolean, value = '', index = 0): Kind {
  if (field === 'data' && rec.type === 'CAA') return caaKind(value, index) ?? 'hostname'
  if (field === 'pointsTo' && rec.type === 'A') return 'ipv4'
  if (field === 'pointsTo' && rec.type === 'AAAA') return 'ipv6'
  if (['ttl', 'priority', 'weight', 'port'].includes(field)) return 'number'
  if (field === 'target' && rec.type.startsWith('REDIR')) return whole ? 'url' : 'label'
  if (field === 'spfRules') return whole ? 'spf' : 'label'
  if (field === 'host' || field === 'name' || field === 'service' || field === 'protocol') return 'label'
  if (field === 'pointsTo' || field === 'target') return whole ? 'hostname' : 'label'
  return 'text'
}

const VALUE: Record<Kind, (name: string) => string> = {
  ipv4: () => '198.51.100.7',
  ipv6: () => '2001:db8::7',
  caaFlags: () => '0',
  caaTag: () => 'issue',
  number: () => '10',
  url: () => 'https://www.target.test/',
  spf: () => 'include:spf.sender.test',
  hostname: () => 'target.sender.test',
  label: (name) => `v-${name.toLowerCase().replace(/[^a-z0-9]/g, '')}`.slice(0, 40),
  text: (name) => `value-for-${name}`,
}

export function fillVariables(template: Template): Record<string, string> {
  const kinds = new Map<string, Kind>()
  for (const rec of template.records) {
    for (const [field, value] of Object.entries(rec)) {
      if (typeof value !== 'string') continue
      for (const m of value.matchAll(/%([A-Za-z0-9_.-]+)%/g)) {
        const kind = kindOf(rec, field, m[0] === value.trim(), value, m.index ?? 0)
        const prior = kinds.get(m[1]!)
        if (prior === undefined || KIND_ORDER.indexOf(kind) < KIND_ORDER.indexOf(prior)) kinds.set(m[1]!, kind)
      }
    }
  }
  return Object.fromEntries(templateVariables(template).map((name) => [name, VALUE[kinds.get(name) ?? 'text'](name)]))
}


/**
 * Groups that can be applied together, in template order: a Service Provider never asks for two groups
 * that contradict each other (two redirects for one name). Undefined when the whole template applies.
 */
export function compatibleGroups(template: Template, domain: string, host: string | undefined, params: Record<string, string>): string[] | undefined {
  const whole = applyTemplate({ template, domain, host, params, zone: [] })
  if (whole.ok || whole.code !== 'not_applicable') return undefined
  const groups = [...new Set(template.records.flatMap((r) => (r.groupId === undefined ? [] : [r.groupId])))]
  const chosen: string[] = []
  for (const g of groups) {
    const r = applyTemplate({ template, domain, host, params, groupIds: [...chosen, g], zone: [] })
    if (r.ok) chosen.push(g)
  }
  return chosen
}
