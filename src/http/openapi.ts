// The OpenAPI 3.1 document served at /v1/openapi.json, generated from the operation registry so the
// document lists exactly the routes the server serves. Where the contract says "not shown", the
// operation's own description says what Portico chose.
import { Type, type TObject, type TSchema } from '@sinclair/typebox'
import { acceptsIdempotencyKey, IDEMPOTENCY_NOTE } from './idempotency.ts'
import { declaredByStatus } from '../ops/declared.ts'
import { nameOf } from '../domain/named.ts'
import { EVENT_SCHEMAS, EVENT_TYPES, EVENTS, eventTypeName, exampleEnvelope, type EventDecl } from '../domain/events.ts'
import { SIGNING_NOTE } from '../ops/webhooks/shared.ts'
import { defineOp, type AnyOp } from '../ops/registry.ts'
import { CATALOGS_TAG } from '../ops/catalogs/shared.ts'
import type { Credential } from '../domain/principal.ts'
import { ERROR_REASONS, ERROR_STATUS, ERROR_TITLES, PROVIDER_SERVER_ERROR_TITLE, type ErrorCode } from '../errors.ts'
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

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

const ERROR_SCHEMA = {
  type: 'object',
  required: ['code', 'title'],
  properties: {
    code: { $ref: '#/components/schemas/ErrorCode' },
    title: { type: 'string', description: 'Human-readable summary' },
    details: {
      description:
        'Optional detail, one of two shapes: for a request whose parts are malformed (invalid_request from validation) a list of ' +
        '{in, field, message}, one per problem; otherwise (any code, invalid_request included) an object whose `reason` is a catalogue ' +
        'code, with other keys beside it. Tell them apart by whether it is a list.',
      anyOf: [
        {
          type: 'array',
          description: 'The problems of a malformed request',
          items: {
            type: 'object',
            required: ['in', 'message'],
            properties: {
              in: { type: 'string', description: 'The part of the request: body, query, path or header' },
              field: { type: 'string', description: 'The field, dotted for a nested one; absent when the whole part is wrong' },
              message: { type: 'string', description: 'What is wrong with it' },
            },
          },
        },
        {
          type: 'object',
          description: 'What stands in the way',
          properties: {
            reason: { $ref: '#/components/schemas/ErrorReason' },
            restored: {
              type: 'array',
              description: 'A DNS write the provider refused midway: the record sets it had changed that Portico put back as they were',
              items: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string' } } },
            },
            not_restored: {
              type: 'array',
              description:
                'A DNS write the provider refused midway: the record sets it had changed that could not be put back, each with what it held ' +
                'before the write (`values` empty and `ttl` null: there was no set). The connection keeps them: a disconnect puts them back',
              items: {
                type: 'object',
                required: ['name', 'type', 'ttl', 'values'],
                properties: { name: { type: 'string' }, type: { type: 'string' }, ttl: { type: ['integer', 'null'] }, values: { type: 'array', items: { type: 'string' } } },
              },
            },
          },
          additionalProperties: true,
        },
      ],
    },
  },
}

/** Every `details.reason` Portico can answer, each with what it means (ERROR_REASONS in src/errors.ts). */
const ERROR_REASON_SCHEMA = {
  type: 'string',
  enum: Object.keys(ERROR_REASONS),
  description: 'A catalogue code clients can switch on: ' + Object.entries(ERROR_REASONS).map(([r, meaning]) => `\`${r}\` ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}`).join('; '),
}

const ERROR_CODE_SCHEMA = {
  type: 'string',
  enum: ERROR_CODES,
  description: 'Stable machine-readable code: ' + ERROR_CODES.map((c) => `\`${c}\` (${ERROR_STATUS[c]}) ${ERROR_TITLES[c].toLowerCase()}`).join('; '),
}

/**
 * Response headers the document describes, each with where it is sent. Another module adding a header
 * to answers adds its entry here (the RateLimit fields of per-credential limits, for instance).
 */
export interface ResponseHeader {
  name: string
  description: string
  schema: Record<string, unknown>
  /** On which answers of an operation it is sent (`status`: the answer's HTTP status; `codes`: an error's codes). */
  on: (op: AnyOp, status: number, codes: readonly ErrorCode[]) => boolean
}

export const RESPONSE_HEADERS: ResponseHeader[] = [
  {
    name: 'X-Request-Id',
    description: 'This request\'s id (the caller\'s own `X-Request-Id` when it sent a valid one): quote it when asking about a request; the log line of the request carries it',
    schema: { type: 'string' },
    on: () => true,
  },
  {
    name: 'Cache-Control',
    description:
      '`no-store` on every answer, except a cacheable catalog\'s 200 and 304: `public, max-age=N`, the same answer for everyone, cacheable for N seconds ' +
      '(with an ETag per Content-Encoding, and `Access-Control-Allow-Origin: *` on every copy)',
    schema: { type: 'string' },
    on: () => true,
  },
  {
    name: 'Retry-After',
    description: 'Seconds to wait before trying again (on a 409, when the conflict is passing: another write in progress, a request with the same Idempotency-Key still running)',
    schema: { type: 'integer', minimum: 0 },
    on: (_op, status) => status === 429 || status === 503 || status === 409,
  },
  {
    name: 'RateLimit-Policy',
    description:
      'The limits this request\'s credential is counted against (IETF draft-ietf-httpapi-ratelimit-headers): `"api_key";q=1200;w=60` for an API key; ' +
      '`"application";q=2400;w=60, "end_user";q=120;w=60` for a widget token; `"agent_grant";q=300;w=60` for an agent. `q` requests per `w` seconds; a bulk call counts each item. ' +
      'Sent on every answer to a request whose credential was valid (not on a 401); the quotas are the deployment\'s RATE_LIMITS',
    schema: { type: 'string' },
    on: (op, status) => counted(op) && status !== 401,
  },
  {
    name: 'RateLimit',
    description:
      'What is left of each limit in RateLimit-Policy: `"api_key";r=1187;t=42` (`r` requests remaining, `t` seconds until the window ends). ' +
      'Past a limit the answer is 429 `rate_limited` with Retry-After, its `details` naming the limit',
    schema: { type: 'string' },
    on: (op, status) => counted(op) && status !== 401,
  },
  {
    name: 'WWW-Authenticate',
    description: 'The bearer challenge (RFC 6750): `Bearer realm="portico"`, with `error="invalid_token"` when a credential came and was refused',
    schema: { type: 'string' },
    on: (_op, status) => status === 401,
  },
  {
    name: 'Idempotent-Replayed',
    description: '`true` when this answer is the replay of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
    on: (op, status) => acceptsIdempotencyKey(op) && status < 300,
  },
  {
    name: 'ETag',
    description: 'The entity tag of this representation (each Content-Encoding has its own): send it as If-None-Match to get 304 while it is unchanged',
    schema: { type: 'string' },
    on: (op, status) => Boolean(op.cache) && (status === 200 || status === 304),
  },
]

const headerKey = (name: string) => name.replace(/-/g, '')

/** Whether an operation's answers carry the rate-limit fields: it takes a credential that is counted (src/domain/rate-limits.ts). */
function counted(op: AnyOp): boolean {
  return op.auth.some((c) => c === 'KEY' || c === 'WIDGET' || c === 'AGENT')
}

function headersOf(op: AnyOp, status: number, codes: readonly ErrorCode[] = []) {
  const out: Record<string, unknown> = {}
  for (const h of RESPONSE_HEADERS) if (h.on(op, status, codes)) out[h.name] = { $ref: `#/components/headers/${headerKey(h.name)}` }
  return out
}

/**
 * JSON Schema of a TypeBox schema for the document: TypeBox's symbol keys dropped, and each schema
 * named with `named()` (src/domain/named.ts) published once in `components.schemas` and referred to
 * by `$ref` wherever it is used. `root` is the named schema being published itself.
 */
export function jsonOf(node: unknown, components: Record<string, unknown>, root?: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => jsonOf(n, components))
  if (node === null || typeof node !== 'object') return node
  const name = nameOf(node)
  if (name && node !== root) {
    const published = components[name]
    if (published === undefined) {
      components[name] = null // taken while its own body is built (a schema may refer to itself)
      components[name] = jsonOf(node, components, node)
    }
    return { $ref: `#/components/schemas/${name}` }
  }
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(node)) if (v !== undefined && typeof v !== 'function') out[k] = jsonOf(v, components)
  return out
}

function parameters(op: AnyOp, components: Record<string, unknown>) {
  const plain = (x: TSchema) => jsonOf(x, components) as Record<string, unknown>
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

/** `webhooks.deliveries.list` → `WebhooksDeliveriesList` (as event types are named). */
const pascal = eventTypeName

/**
 * A request or response body with no name of its own is published under its operation's
 * (`ConnectionsListResponse`, `ConnectionsCreateRequest`), so every body a generated client sends or
 * gets has a named type; a body that is one named schema already stays a `$ref` to it.
 */
function bodyNamed(op: AnyOp, suffix: 'Request' | 'Response', schema: unknown, components: Record<string, unknown>): unknown {
  const json = jsonOf(schema, components) as Record<string, unknown>
  if (typeof json.$ref === 'string') return json
  const name = `${pascal(op.id)}${suffix}`
  if (components[name] !== undefined) throw new Error(`schema name ${name} is taken twice`)
  components[name] = json
  return { $ref: `#/components/schemas/${name}` }
}

/** The hand-written operations' bodies named the same way (a copy: the constants stay as they are). */
function extraNamed(operation: Record<string, any>, components: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(operation)
  const name = (where: { schema?: Record<string, unknown> } | undefined, suffix: string) => {
    if (!where?.schema || where.schema.$ref) return
    const n = `${pascal(String(out.operationId))}${suffix}`
    if (components[n] !== undefined) throw new Error(`schema name ${n} is taken twice`)
    components[n] = where.schema
    where.schema = { $ref: `#/components/schemas/${n}` }
  }
  name(out.requestBody?.content?.['application/json'], 'Request')
  for (const [status, r] of Object.entries((out.responses ?? {}) as Record<string, any>)) if (/^2/.test(status)) name(r.content?.['application/json'], 'Response')
  return out
}

/**
 * An error answer's example: the first code with its title; a 503 of an operation that writes through a
 * DNS provider (it declares dns_write_failed or ProviderAuthenticationError) shows the provider's server error, its most common 503.
 */
function errorExample(op: AnyOp, status: number, list: ErrorCode[]) {
  if (status === 503 && list.includes('service_unavailable') && (op.errors.includes('dns_write_failed') || op.errors.includes('ProviderAuthenticationError'))) {
    return { code: 'service_unavailable', title: PROVIDER_SERVER_ERROR_TITLE, details: { provider: 'digitalocean', reason: 'provider_server_error', provider_message: 'DigitalOcean answered with a server error (HTTP 500)', restored: [], not_restored: [] } }
  }
  return { code: list[0], title: ERROR_TITLES[list[0]!] }
}

function responses(op: AnyOp, components: Record<string, unknown>) {
  const out: Record<string, unknown> = {}
  const ok = op.status ?? 200
  const schema = bodyNamed(op, 'Response', op.response, components)
  out[String(ok)] = { description: op.summary, headers: headersOf(op, ok), content: { 'application/json': { schema, example: examplesFor(op).response } } }
  for (const alt of op.altStatus ?? []) {
    out[String(alt.status)] = { description: alt.description, headers: headersOf(op, alt.status), content: { 'application/json': { schema } } }
  }
  if (op.cache) out['304'] = { description: 'Not modified: the If-None-Match sent is the current ETag', headers: headersOf(op, 304) }
  for (const [status, list] of declaredByStatus(op)) {
    out[String(status)] = {
      description: `Error: ${list.map((c) => `\`${c}\``).join(', ')}`,
      headers: headersOf(op, status, list),
      content: {
        'application/json': {
          schema: { allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { code: { type: 'string', enum: list } } }] },
          example: errorExample(op, status, list),
        },
      },
    }
  }
  return out
}

/** The `webhooks` section: one entry per event type of the registry, its envelope as the request body. */
function webhooks(components: Record<string, unknown>) {
  const out: Record<string, unknown> = {}
  const signature = [
    { name: 'webhook-id', in: 'header', required: true, description: 'The event id (`evt_…`): deduplicate on it', schema: { type: 'string' } },
    { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when this attempt was signed', schema: { type: 'string' } },
    { name: 'webhook-signature', in: 'header', required: true, description: '`v1,<base64 HMAC-SHA256>`; several, space-separated, while a rotated secret still signs', schema: { type: 'string' } },
  ]
  for (const type of EVENT_TYPES) {
    const d: EventDecl = EVENTS[type]
    out[type] = {
      post: {
        operationId: `event.${type}`,
        summary: d.when,
        description: d.when + (d.requires ? ` Sent only where ${d.requires}.` : '') + '\n\n' + SIGNING_NOTE,
        tags: ['Events'],
        parameters: signature,
        requestBody: { required: true, content: { 'application/json': { schema: jsonOf(EVENT_SCHEMAS[type], components), example: exampleEnvelope(type) } } },
        responses: {
          '2XX': { description: 'Any 2xx acknowledges the delivery' },
          '410': { description: 'Gone: the endpoint is disabled and receives nothing more' },
          default: { description: 'Anything else (or no answer within 10 s) is a failed attempt, retried up to three attempts in all; 429 and 503 with Retry-After wait as asked' },
        },
      },
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
        '415': {
          description: 'Error: `invalid_client_metadata`: the body is not declared as `application/json`, or is sent with a Content-Encoding (then `Accept-Encoding: identity`)',
          content: { 'application/json': { schema: RFC7591_ERROR } },
        },
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
  const components: Record<string, unknown> = { Error: ERROR_SCHEMA, ErrorCode: ERROR_CODE_SCHEMA, ErrorReason: ERROR_REASON_SCHEMA }
  const paths: Record<string, Record<string, unknown>> = {}
  for (const extra of extraPaths) (paths[extra.path] ??= {})[extra.method] = extraNamed(extra.operation as Record<string, any>, components)
  for (const op of ops) {
    const key = op.path
    const entry = (paths[op.root ? op.path : key] ??= op.root ? { servers: [{ url: opts.publicUrl }] } : {})
    entry[op.method.toLowerCase()] = {
      operationId: op.id,
      summary: op.summary,
      description: describe(op),
      tags: [op.tag],
      security: op.auth.flatMap((c) => (c === 'NONE' ? [{}] : SCHEME_OF[c].map((s) => ({ [s]: [] })))),
      parameters: parameters(op, components),
      ...(op.body
        ? { requestBody: { required: !op.bodyOptional, content: { 'application/json': { schema: bodyNamed(op, 'Request', op.body, components), example: examplesFor(op).request } } } }
        : {}),
      responses: responses(op, components),
      ...(op.kind === 'read' ? {} : { 'x-portico-kind': op.kind }),
    }
  }
  const hooks = webhooks(components)
  // Every event's envelope is a named schema, whichever the operations already used.
  for (const type of EVENT_TYPES) jsonOf(EVENT_SCHEMAS[type], components)
  const headers = Object.fromEntries(RESPONSE_HEADERS.map((h) => [headerKey(h.name), { description: h.description, schema: h.schema }]))
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portico API',
      version: opts.version,
      description:
        'Portico is a domain-connection control plane. Every error body is `{code, title, details?}`; each operation lists the codes ' +
        'it can answer. Unknown body fields are rejected with 400 `invalid_request`. Ids of other tenants answer 404. The events ' +
        'Portico sends to webhook endpoints are under `webhooks`, one per type (docs/events.md), and can be read back with GET /events.',
    },
    servers: [{ url: opts.publicUrl + API_BASE }],
    paths,
    webhooks: hooks,
    components: { schemas: Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b))), headers, securitySchemes: SECURITY_SCHEMES },
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
