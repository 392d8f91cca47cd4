// The OpenAPI 3.1 document served at /v1/openapi.json, generated from the operation registry so the
// document lists exactly the routes the server serves. Where the contract says "not shown", the
// operation's own description says what Portico chose.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { acceptsIdempotencyKey, IDEMPOTENCY_NOTE } from './idempotency.ts'
import { defineOp, type AnyOp } from '../ops/registry.ts'
import { CATALOGS_TAG } from '../ops/catalogs.ts'
import type { Credential } from '../domain/principal.ts'
import { ERROR_STATUS, type ErrorCode } from '../errors.ts'
import { examplesFor } from '../ops/examples.ts'
import { API_BASE } from './app.ts'

const SECURITY_SCHEMES = {
  ManagementKey: { type: 'http', scheme: 'bearer', description: 'Operator management key (opaque). Refused in production.' },
  ProvisionSecret: { type: 'apiKey', in: 'header', name: 'X-Provision-Secret', description: 'Console-server provision secret; also accepted as a Bearer token.' },
  ProvisionBearer: { type: 'http', scheme: 'bearer', description: 'The provision secret sent as a Bearer token.' },
  ApiKey: { type: 'http', scheme: 'bearer', description: 'Tenant API key: `ptc_live_…` / `ptc_test_…` (older `sk_live_…` / `sk_test_…` still accepted).' },
  WidgetToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Widget token minted by POST /tokens; 60 minutes; optionally bound to one hostname; scope `connect` (default) or `app`.' },
  AgentToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Delegated agent access token (`typ: at+jwt`) from the agent OAuth flow; limited by its scopes.' },
  EdgeAuth: { type: 'apiKey', in: 'header', name: 'X-Edge-Auth', description: 'Edge shared secret. Only POST /internal/ask; the route must be network-isolated.' },
} as const

const SCHEME_OF: Record<Exclude<Credential, 'NONE'>, (keyof typeof SECURITY_SCHEMES)[]> = {
  MGMT: ['ManagementKey'],
  PROV: ['ProvisionSecret', 'ProvisionBearer'],
  KEY: ['ApiKey'],
  WIDGET: ['WidgetToken'],
  AGENT: ['AgentToken'],
  EDGE: ['EdgeAuth'],
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'title'],
  properties: {
    code: { type: 'string', description: 'Stable machine-readable code' },
    title: { type: 'string', description: 'Human-readable summary' },
    details: { description: 'Optional detail: for invalid_request a list of {in, field, message}' },
  },
}

/** TypeBox schemas are JSON Schema; strip TypeBox's symbol keys by a JSON round trip. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema))
}

function parameters(op: AnyOp) {
  const out: Record<string, unknown>[] = []
  const add = (schema: TObject | undefined, where: 'path' | 'query' | 'header') => {
    if (!schema) return
    const required = new Set(schema.required ?? [])
    for (const [name, s] of Object.entries(schema.properties)) {
      const p = plain(s as TSchema)
      out.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(p.description ? { description: p.description } : {}),
        schema: p,
      })
    }
  }
  add(op.params, 'path')
  add(op.query, 'query')
  add(op.headers, 'header')
  if (acceptsIdempotencyKey(op)) {
    out.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: IDEMPOTENCY_NOTE,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    })
  }
  return out
}

function responses(op: AnyOp) {
  const out: Record<string, unknown> = {}
  const ok = op.status ?? 200
  out[String(ok)] = { description: op.summary, content: { 'application/json': { schema: plain(op.response), example: examplesFor(op).response } } }
  for (const alt of op.altStatus ?? []) {
    out[String(alt.status)] = { description: alt.description, content: { 'application/json': { schema: plain(op.response) } } }
  }
  const byStatus = new Map<number, ErrorCode[]>()
  const codes = new Set<ErrorCode>([...op.errors, 'internal_error', ...(acceptsIdempotencyKey(op) ? (['idempotency_key_in_use', 'idempotency_key_reused'] as const) : [])])
  if (!op.auth.includes('NONE')) codes.add('unauthorized')
  if (op.params || op.query || op.body || op.headers) codes.add('invalid_request')
  // The face reads a body on every method but GET and refuses one over 1 MiB (src/http/app.ts).
  if (op.method !== 'GET') codes.add('payload_too_large')
  for (const code of codes) {
    const status = ERROR_STATUS[code]
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error: ${list.map((c) => `\`${c}\``).join(', ')}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  return out
}

/** Which widget tokens an operation takes, in words (the authority matrix, docs/authority-matrix.md). */
function widgetNote(w: readonly string[]): string {
  const kinds = { app: 'application-scoped (scope `app`, no `domain`)', connect: 'connect-scoped without `domain`', domain: 'domain-bound (on its own domain only)' }
  if (w.length === 3) return 'Widget tokens: any; a domain-bound one acts on its own domain only.'
  return `Widget tokens: only ${w.map((k) => kinds[k as keyof typeof kinds]).join(' or ')}; other widget tokens get 403.`
}

function describe(op: AnyOp): string {
  const lines = [op.description ?? op.summary]
  const creds = op.auth.map((c) => (c === 'NONE' ? 'no credential' : c)).join(', ')
  lines.push('', `Credentials: ${creds}.`)
  if (op.permission) lines.push(`API keys need the \`${op.permission}\` permission (see GET /rbac).`)
  if (op.scope) lines.push(`Agent tokens need the \`${op.scope}\` scope.`)
  if (op.widget) lines.push(widgetNote(op.widget))
  if (acceptsIdempotencyKey(op)) lines.push('', IDEMPOTENCY_NOTE)
  return lines.join('\n')
}

/** A route another face serves under /v1 with its own envelope (path relative to /v1, method lowercase). */
export interface ExtraPath {
  path: string
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  operation: Record<string, unknown>
}

const RFC7591_ERROR = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
}

/** Routes outside the registry that belong to the /v1 contract. */
export const EXTRA_PATHS: ExtraPath[] = [
  {
    path: '/oauth/agent/register',
    method: 'post',
    operation: {
      operationId: 'agents.register',
      summary: 'Register an agent OAuth client (RFC 7591)',
      description:
        'Dynamic client registration for agents (public clients: PKCE, no secret). `redirect_uris` is required; plain http only to ' +
        'loopback. A `client_name` claiming a well-known brand is refused unless every redirect belongs to that brand or is loopback. ' +
        'Other metadata is accepted and ignored. A per-IP hourly budget and a global hourly limit apply (429 with Retry-After); ' +
        'clients no person approves are deleted after 24 hours. Errors use the RFC 7591 envelope `{error, error_description}`.\n\n' +
        'Credentials: no credential.',
      tags: ['Agents'],
      security: [{}],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['client_name', 'redirect_uris'],
              properties: { client_name: { type: 'string', maxLength: 100 }, redirect_uris: { type: 'array', items: { type: 'string', format: 'uri' }, minItems: 1, maxItems: 10 } },
              additionalProperties: true,
            },
          },
        },
      },
      responses: {
        '201': {
          description: 'The registration response',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['client_id', 'client_id_issued_at', 'client_name', 'redirect_uris', 'token_endpoint_auth_method', 'grant_types', 'response_types'],
                properties: {
                  client_id: { type: 'string' },
                  client_id_issued_at: { type: 'integer' },
                  client_name: { type: 'string' },
                  redirect_uris: { type: 'array', items: { type: 'string' } },
                  token_endpoint_auth_method: { type: 'string', enum: ['none'] },
                  grant_types: { type: 'array', items: { type: 'string', enum: ['authorization_code', 'refresh_token'] } },
                  response_types: { type: 'array', items: { type: 'string', enum: ['code'] } },
                },
              },
            },
          },
        },
        '400': { description: 'Error: `invalid_redirect_uri`, `invalid_client_metadata` (RFC 7591 envelope)', content: { 'application/json': { schema: RFC7591_ERROR } } },
        '429': { description: 'Error: `too_many_requests` (registration budget spent; see Retry-After)', content: { 'application/json': { schema: RFC7591_ERROR } } },
      },
    },
  },
  {
    path: '/payments/webhook',
    method: 'post',
    operation: {
      operationId: 'payments.webhook',
      summary: 'Payment-processor webhook',
      description:
        'Called by the payment processor (Stripe, or the sandbox processor in development), authenticated by the processor\'s ' +
        'signature over the exact body (`Stripe-Signature`, or the sandbox\'s own header). A completed checkout drives the same path ' +
        'as `POST /registrar/fulfill`: register, capture, connect; replays change nothing. A bad signature is 400.\n\nCredentials: the processor signature.',
      tags: ['Registrar (Sell)'],
      security: [{}],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
      responses: {
        '200': { description: 'Accepted', content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } } },
        '400': { description: 'Error: `invalid_request` (bad signature or payload)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  },
]

export function buildOpenApi(ops: AnyOp[], opts: { publicUrl: string; version: string }, extraPaths: readonly ExtraPath[] = EXTRA_PATHS) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const extra of extraPaths) (paths[extra.path] ??= {})[extra.method] = extra.operation
  for (const op of ops) {
    const key = op.path
    const entry = (paths[op.root ? op.path : key] ??= op.root ? { servers: [{ url: opts.publicUrl }] } : {})
    entry[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      description: describe(op),
      tags: [op.tag],
      security: op.auth.flatMap((c) => (c === 'NONE' ? [{}] : SCHEME_OF[c].map((s) => ({ [s]: [] })))),
      parameters: parameters(op),
      ...(op.body
        ? { requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: plain(op.body), example: examplesFor(op).request } } } }
        : {}),
      responses: responses(op),
      ...(op.kind === 'read' ? {} : { 'x-portico-kind': op.kind }),
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico API',
      version: opts.version,
      description:
        'Portico is a domain-connection control plane. Every error body is `{code, title, details?}`. ' +
        'Unknown body fields are rejected with 400 `invalid_request`. Ids of other tenants answer 404.',
    },
    servers: [{ url: opts.publicUrl + API_BASE }],
    paths,
    components: { schemas: { Error: ERROR_SCHEMA }, securitySchemes: SECURITY_SCHEMES },
  }
}

/**
 * The operations the REST face serves: the registry and, after `config.get`, `GET /v1/openapi.json`,
 * which describes them all (itself included). The document is built once per public URL and version.
 */
export function withOpenApi(ops: AnyOp[]): AnyOp[] {
  let cached: { key: string; doc: unknown } | null = null
  const openapiOp: AnyOp = defineOp({
    id: 'openapi.get',
    method: 'GET',
    path: '/openapi.json',
    summary: 'The OpenAPI 3.1 description of this API',
    tag: CATALOGS_TAG,
    auth: ['NONE'],
    response: Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.1 document' }),
    errors: [],
    kind: 'read',
    internal: true,
    async handler(ctx): Promise<unknown> {
      const key = `${ctx.config.publicUrl} ${ctx.config.version}`
      if (cached?.key !== key) cached = { key, doc: buildOpenApi(all, { publicUrl: ctx.config.publicUrl, version: ctx.config.version }) }
      return cached.doc
    },
  })
  const at = ops.findIndex((op) => op.id === 'config.get') + 1
  const all: AnyOp[] = at > 0 ? [...ops.slice(0, at), openapiOp, ...ops.slice(at)] : [...ops, openapiOp]
  return all
}
