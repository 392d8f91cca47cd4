// Request and response examples of every operation, for the API reference (/v1/docs) and the
// OpenAPI document. Declared here once, keyed by operation id, beside the registry: the operations
// people meet first (the README's tour) have hand-written examples; every other example is built from
// the operation's own TypeBox schemas (enum members, formats, field names), and a hand-written
// object is laid over the built one, so an example always carries every field the schema requires.
// test/unit/examples.test.ts checks that each example of each operation validates against its schema.
import type { TSchema } from '@sinclair/typebox'
import type { AnyOp } from './registry.ts'
import { AnyEventSchema, exampleEnvelope } from '../domain/events.ts'
import { nameOf } from '../domain/named.ts'

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
      // Asked with `validation: before_cutover` on a deployment with delegated DCV: both steps, in order.
      validation: {
        mode: 'before_cutover',
        available: true,
        steps: [
          {
            step: 'prove',
            records: [
              { type: 'TXT', host: '_portico-challenge.shop', value: 'portico-verify=<token issued at connect>', ttl: 300, purpose: 'ownership' },
              { type: 'CNAME', host: '_acme-challenge.shop', value: '<label issued at connect>.dcv.portico.example', ttl: 300, purpose: 'dcv_delegation' },
            ],
          },
          { step: 'route', records: [{ type: 'CNAME', host: 'shop', value: 'edge.portico.example', ttl: 300, purpose: 'routing' }] },
        ],
      },
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

/**
 * Plausible values of string fields the schema leaves open, by field name: what a real answer carries.
 * A required string field with no value here and no format, enum or prefix to go by is an error (the
 * examples test names it), so no example ever holds a placeholder.
 */
const VALUES: Record<string, unknown> = {
  type: 'CNAME', host: 'shop', value: 'edge.portico.example', purpose: 'routing', note: 'added by hand; remove it at your DNS provider',
  provider: 'cloudflare', provider_name: 'Cloudflare', provider_id: 'cloudflare', dc_provider: 'cloudflare.com', currency: 'usd', subdomain: 'shop',
  rail: 'manual', kind: 'api_key', label: 'Production Cloudflare', access: 'continuous', scope: 'all', uses: ['api_rail'],
  accent_color: '#1a73e8', accent_foreground: '#ffffff', accent_text: '#1a73e8', end_user_ref: 'cust_42', user_id: 'cust_42',
  plan_id: 'free', issuer: "Let's Encrypt", description: 'Connected shop.example.com', next_cursor: 'Y29uXzAxanRkN3E0Yzh2Mm41Yjd4MXozazZtOXAw',
  cursor: 'Y29uXzAxanRkN3E0Yzh2Mm41Yjd4MXozazZtOXAw', apex_ipv4: ['203.0.113.10'], prefix: 'ptc_live_3kq9', smtp_host: 'smtp.acme.example',
  from_address: 'hello@acme.example', reply_to: 'support@acme.example', events: ['connection.live'], scopes: ['domains:read'],
  session_id: 'cs_test_a1b2c3d4e5f6', order_id: 'ord_01jtd7q7f2s4d6f8g1h3j5k7l9', observed: ['edge.portico.example'], expected: ['edge.portico.example'],
  every: '1h', root_path: '/sites/acme', service: 'portico', env: 'production', version: '2026.05.04-3f2a1c', api_version: 'v1',
  key: 'plan', message: 'Connection created', code: 'conflict', choice: 'remove', outcome: 'removed', via: 'manual', serving: 'stopped',
  monitoring: 'stopped', certificate: 'removed', delivery_id: 'whd_01jtd7q6e1r3t5y7u9i2o4p6a8_01jtd7q5d2f4g6h8j1k3l5z7x9',
  endpoint_id: 'whk_01jtd7q5d2f4g6h8j1k3l5z7x9', event_type: 'connection.live', approved_by: 'ops@acme.example', approved_by_member: 'mem_01jtd7q2mc9v5b3n1m7q2w4e6r',
  registrar: 'sandbox', reg_order_id: 'reg_7731', Domain: 'example.com', Registrar: 'sandbox', RegOrderID: 'reg_7731', detail: 'The CNAME record is back',
  zone: 'example.com', service_id: 'portico-web', service_ids: ['portico-web'], db: 'ok', dns: 'ok', dns_resolvers: ['9.9.9.9:53'], node: 'edge-1',
  products: ['connect', 'monitor', 'mcp'], role: 'admin', permissions: ['connections:read'], permission: 'connections:read', client_id: 'https://agent.example.com/client.json',
  state: 'xyz123', token_type: 'Bearer', verified_as: 'agent.example.com', redirect_host: 'agent.example.com', client_id_host: 'agent.example.com',
  registration: 'dynamic', redirect_uri: 'https://agent.example.com/callback', ui_mode: 'embedded', brand: 'visa', last4: '4242', period: '2026-05',
  action: 'created', reason: 'not_configured', caveat: 'The provider asks for a one-time code by email', verdict: 'record_missing',
  result: 'ok', attention: 'action_required', created_by: 'mem_01jtd7q2mc9v5b3n1m7q2w4e6r', status: 'active', environment: 'live',
  revoked_reason: 'Revoked by ops@acme.example', error: 'HTTP 503', last_error: 'The provider did not answer', disabled_reason: 'the receiver answered 410 Gone',
  detection_error: 'resolver', recommended_rail: 'apiKey', apex_strategy: 'not_apex', url_api: 'https://api.cloudflare.com/client/v4',
  rules: ['owner: everything, including billing and owners'], features: ['Up to 100 domains a month'], api_key: 'ptc_live_3kq9v8x2m4n6b1z7c5d0f2g4h6j8k1l3',
  ended_agent_grants: ['agr_01jtd7q9h4f6g8j1k3l5z7x9c2'], actor_kind: 'KEY', endpoint: 'https://fcm.googleapis.com/fcm/send/dQw4w9WgXcQ',
  skipped: ['mem_01jtd7q2mc9v5b3n1m7q2w4e6r'], resolvers: ['9.9.9.9:53'], manual_steps: ['Sign in to your DNS provider', 'Open the DNS settings of example.com', 'Add each record below exactly as shown'],
  query: 'acme', payment_method: 'pm_card_visa', subscription_status: 'active', account_id: 'pac_01jtd7q9h4f6g8j1k3l5z7x9c2', file: 'acme.com.portico-web.json',
  'idempotency-key': 'purchase-7731-1', keyId: 'key_01jtd7q2mb6r4t1y8u3i5o7p2a', serviceId: 'portico-web', method: 'POST', path: '/v1/connections', algorithm: 'RS256', txt: ['p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA1'], p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM', auth: 'tBHItJI5svbpez7KI4CCXg',
  resolvers_from: 'env', usage_period: '2026-05', ignored: ['README.md'],
  provider_base: 'https://domainconnect.cloudflare.com', dc_host: 'domainconnect.cloudflare.com', private_key: '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----',
}

/** Nullable fields whose example is null (nothing wrong, nothing yet) rather than a value. */
const NULL_BY_DEFAULT = new Set(['error_code', 'error_message', 'last_error', 'disabled_reason', 'revoked_reason', 'error', 'detection_error', 'blocked_reason', 'inconclusive'])

export class MissingExample extends Error {}

/** What a field's name says about a plausible value, for strings the schema leaves open (undefined: nothing known). */
function stringFor(key: string, schema: Record<string, any>): string | undefined {
  const prefix = /`([a-z]+)_…`/.exec(schema.description ?? '')?.[1]
  if (prefix) return Object.values(ID).find((v) => v.startsWith(prefix + '_')) ?? `${prefix}_01jtd7q2m9x4kz6v8w3b5n1c0f`
  if (schema.format === 'date-time' || /_at$|^since$|^until$|^not_before$|^not_after$|^renew_after$/.test(key)) return AT
  if (schema.format === 'email' || /email/.test(key)) return 'ops@acme.example'
  if (schema.format === 'uri' || /url|uri|link/.test(key)) return 'https://app.example.com/portico'
  if (/^(domain|hostname|fqdn|name_server)$|_domain$/.test(key)) return key === 'apex_domain' ? 'example.com' : 'shop.example.com'
  const owner = /^(tenant|application|connection|key|webhook|member|event)_id$/.exec(key)?.[1]
  if (owner) return ID[owner]!
  if (key === 'id') return ID.connection!
  if (/secret|token|password|credential/.test(key)) return 'pcs_9f4k2m7q1x8v3n6b5z0c2d4g'
  if (/name/.test(key)) return key === 'name' ? 'Acme Sites' : 'Acme'
  const v = VALUES[key]
  return typeof v === 'string' ? v : undefined
}

const OMIT = Symbol('omit')

/**
 * A value the schema accepts; objects get their required fields (and, in responses, every field a value
 * is known for). A required string with nothing to go by throws MissingExample.
 */
export function exampleOf(schema: TSchema, key = '', all = true, path = key): unknown {
  const v = exampleOrOmit(schema, key, all, path, true)
  return v === OMIT ? undefined : v
}

function exampleOrOmit(schema: TSchema, key: string, all: boolean, path: string, required: boolean): unknown {
  const s = schema as Record<string, any>
  if ('const' in s) return s.const
  if (s.default !== undefined) return s.default
  if (s.enum) return s.enum[0]
  // An event (the union of the catalogue's envelopes) is the catalogue's own example.
  if (nameOf(s) === nameOf(AnyEventSchema)) return exampleEnvelope('connection.live')
  if (s.anyOf) {
    const members = (s.anyOf as TSchema[]).filter((m) => (m as any).type !== 'null')
    const nullable = members.length < s.anyOf.length
    if (nullable && (NULL_BY_DEFAULT.has(key) || (VALUES[key] === undefined && stringFor(key, members[0] as any) === undefined && (members[0] as any).type === 'string'))) return null
    const literal = members.find((m) => 'const' in (m as any) && (m as any).const === VALUES[key])
    return exampleOrOmit(literal ?? members[0] ?? s.anyOf[0], key, all, path, required)
  }
  switch (s.type) {
    case 'string': {
      const v = stringFor(key, s)
      if (v === undefined) {
        if (!required) return OMIT
        throw new MissingExample(`no example value for the string field ${path || '(root)'}: add one to VALUES in src/ops/examples.ts`)
      }
      return s.maxLength && v.length > s.maxLength ? v.slice(0, s.maxLength) : v.padEnd(s.minLength ?? 0, 'x')
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1)
    case 'boolean':
      return true
    case 'null':
      return null
    case 'array': {
      if (Array.isArray(VALUES[key]) && s.items?.type === 'string') return VALUES[key]
      const item = exampleOrOmit(s.items, key.replace(/s$/, ''), all, `${path}[]`, required)
      return item === OMIT ? OMIT : Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => item)
    }
    case 'object': {
      const req = new Set<string>(s.required ?? [])
      const out: Record<string, unknown> = {}
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) {
        if (!all && !req.has(k)) continue
        // An `id` inside `webhooks: [...]` is a webhook's.
        const value = exampleOrOmit(v, k === 'id' && ID[key] ? `${key}_id` : k, all, path ? `${path}.${k}` : k, req.has(k))
        if (value !== OMIT) out[k] = value
      }
      if (s.patternProperties && Object.keys(out).length === 0 && key === 'metadata') out.plan = 'pro'
      return out
    }
    default:
      return {}
  }
}

/** The request example (operations with a body) and the success response example of an operation. */
export function examplesFor(op: AnyOp): { request?: unknown; response: unknown } {
  const written = WRITTEN[op.id] ?? {}
  const response = { ...(exampleOf(op.response, '', true, op.id) as object), ...written.response }
  if (!op.body) return { response }
  // A request shows what a caller must send: the required fields, or the hand-written call.
  return { request: written.request ?? exampleOf(op.body, '', false, op.id), response }
}

/** Ids of the operations with hand-written examples. */
export const WRITTEN_EXAMPLES = Object.keys(WRITTEN)
