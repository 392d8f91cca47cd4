// Request and response examples of every operation, for the API reference (/v1/docs) and the
// OpenAPI document. Declared here once, keyed by operation id, beside the registry: the operations
// people meet first (the README's tour) have hand-written examples; every other example is built from
// the operation's own TypeBox schemas (enum members, formats, field names), and a hand-written
// object is laid over the built one, so an example always carries every field the schema requires.
// test/unit/examples.test.ts checks that each example of each operation validates against its schema.
import type { TSchema } from '@sinclair/typebox'
import type { AnyOp } from './registry.ts'

const AT = '2026-05-04T09:30:00.000Z'
const ID: Record<string, string> = {
  tenant: 'ten_01jtd7q2m9x4kz6v8w3b5n1c0f',
  application: 'app_01jtd7q2ma3p8s2k6d9f4h7j1m',
  connection: 'con_01jtd7q4c8v2n5b7x1z3k6m9p0',
  key: 'key_01jtd7q2mb6r4t1y8u3i5o7p2a',
  webhook: 'whk_01jtd7q5d2f4g6h8j1k3l5z7x9',
  member: 'mem_01jtd7q2mc9v5b3n1m7q2w4e6r',
  event: 'evt_01jtd7q6e1r3t5y7u9i2o4p6a8',
}

type Example = { request?: Record<string, unknown>; response?: Record<string, unknown> }

/** Hand-written examples (or the parts of them worth writing by hand) of the tour's operations. */
const WRITTEN: Record<string, Example> = {
  'tenants.provision': {
    request: { tenant_name: 'Acme', owner_email: 'ops@acme.example' },
    response: { tenant_id: ID.tenant, application_id: ID.application, api_key: 'ptc_live_3kq9v8x2m4n6b1z7c5d0f2g4h6j8k1l3', client_secret: 'pcs_9f4k2m7q1x8v3n6b5z0c2d4g' },
  },
  'tenants.create': { request: { name: 'Acme' } },
  'applications.create': { request: { name: 'Acme Sites' } },
  'keys.create': { request: { role: 'member' } },
  'members.invite': { request: { email: 'dev@acme.example', role: 'admin' } },
  'tokens.create': {
    request: { application_id: ID.application, client_secret: 'pcs_9f4k2m7q1x8v3n6b5z0c2d4g', domain: 'shop.example.com' },
  },
  'domains.check': {
    request: { domain: 'shop.example.com' },
    response: {
      domain: 'shop.example.com',
      apex_domain: 'example.com',
      subdomain: 'shop',
      registered: true,
      provider: 'cloudflare',
      nameservers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
      apex_strategy: 'not_apex',
      blocked_reason: null,
      rails: { oauth: { available: false, reason: 'not_configured' }, domainConnect: { available: false, reason: 'not_discovered' }, apiKey: { available: true }, manual: { available: true } },
      recommended_rail: 'apiKey',
      desired_records: [{ type: 'CNAME', host: 'shop', value: 'edge.portico.example', ttl: 300, purpose: 'routing' }],
      conflicts: [],
    },
  },
  'connections.create': {
    request: { domain: 'shop.example.com', end_user_ref: 'cust_42' },
    response: { id: ID.connection, domain: 'shop.example.com', apex_domain: 'example.com', status: 'pending' },
  },
  'connections.bulk': { request: { domains: ['a.example.com', 'b.example.com'] } },
  'connections.get': { response: { id: ID.connection, domain: 'shop.example.com', apex_domain: 'example.com', status: 'live' } },
  'connections.recheck': { response: { id: ID.connection, domain: 'shop.example.com', apex_domain: 'example.com', status: 'live' } },
  'webhooks.create': { request: { url: 'https://hooks.example.com/portico', events: [] } },
  'monitor.check': {
    request: { domain: 'shop.example.com', baseline: [{ type: 'CNAME', host: 'shop', value: 'edge.example.net' }] },
  },
  'power.put': { request: { origin_url: 'https://app.example.net', redirect_to_www: true, root_path: '/sites/acme' } },
}

/** What a field's name says about a plausible value, for strings the schema leaves open. */
function stringFor(key: string, schema: Record<string, any>): string {
  const prefix = /`([a-z]+)_…`/.exec(schema.description ?? '')?.[1]
  if (prefix) return Object.values(ID).find((v) => v.startsWith(prefix + '_')) ?? `${prefix}_01jtd7q2m9x4kz6v8w3b5n1c0f`
  if (schema.format === 'date-time' || /_at$|^since$/.test(key)) return AT
  if (schema.format === 'email' || /email/.test(key)) return 'ops@acme.example'
  if (schema.format === 'uri' || /url|uri/.test(key)) return 'https://app.example.com/portico'
  if (/^(domain|hostname|fqdn)$|_domain$/.test(key)) return key === 'apex_domain' ? 'example.com' : 'shop.example.com'
  if (key === 'host') return 'shop'
  const owner = /^(tenant|application|connection|key|webhook|member|event)_id$/.exec(key)?.[1]
  if (owner) return ID[owner]!
  if (key === 'id') return ID.connection!
  if (/secret|token|password|credential/.test(key)) return 'example-secret-3kq9v8x2m4n6b1z7'
  if (/name/.test(key)) return 'Acme'
  if (key === 'value') return 'edge.portico.example'
  return 'example'
}

/** A value the schema accepts; objects get their required fields (and every field, in responses). */
export function exampleOf(schema: TSchema, key = '', all = true): unknown {
  const s = schema as Record<string, any>
  if ('const' in s) return s.const
  if (s.default !== undefined) return s.default
  if (s.anyOf) {
    const members = (s.anyOf as TSchema[]).filter((m) => (m as any).type !== 'null')
    return exampleOf(members[0] ?? s.anyOf[0], key, all)
  }
  switch (s.type) {
    case 'string': {
      const v = stringFor(key, s)
      return s.maxLength && v.length > s.maxLength ? v.slice(0, s.maxLength) : v.padEnd(s.minLength ?? 0, 'x')
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => exampleOf(s.items, key.replace(/s$/, ''), all))
    case 'object': {
      const required = new Set<string>(s.required ?? [])
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) {
        // An `id` inside `webhooks: [...]` is a webhook's.
        if (all || required.has(k)) out[k] = exampleOf(v, k === 'id' && ID[key] ? `${key}_id` : k, all)
      }
      return out
    }
    default:
      return {}
  }
}

/** The request example (operations with a body) and the success response example of an operation. */
export function examplesFor(op: AnyOp): { request?: unknown; response: unknown } {
  const written = WRITTEN[op.id] ?? {}
  const response = { ...(exampleOf(op.response) as object), ...written.response }
  if (!op.body) return { response }
  // A request shows what a caller must send: the required fields, or the hand-written call.
  return { request: written.request ?? exampleOf(op.body, '', false), response }
}

/** Ids of the operations with hand-written examples. */
export const WRITTEN_EXAMPLES = Object.keys(WRITTEN)
