// Shared schema pieces for operations. Input objects are closed (unknown fields are 400); output
// objects describe what clients can rely on.
import { Type, type TProperties, type TSchema, type ObjectOptions } from '@sinclair/typebox'

/** A closed input object: unknown fields are refused. */
export const Input = <T extends TProperties>(props: T, opts: ObjectOptions = {}) =>
  Type.Object(props, { additionalProperties: false, ...opts })

export const Out = <T extends TProperties>(props: T, opts: ObjectOptions = {}) => Type.Object(props, opts)

/**
 * Where a field's text comes from when that is outside Portico (src/domain/outside-text.ts): an answer
 * from DNS, a message of a DNS provider or certificate authority, a name or label set through the API
 * by the workspace or its integrator, or the integrator's reference for its end user. The OpenAPI
 * document shows it as `x-outside`; the MCP tools list such values apart as data (mcp/outside.ts).
 */
export type OutsideSource = 'dns' | 'provider' | 'workspace' | 'end_user'
export const OUTSIDE_KEY = 'x-outside'
export const outside = (source: OutsideSource) => ({ [OUTSIDE_KEY]: source }) as Record<string, unknown>

export const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) })
export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()])
export const Id = (prefix: string, description?: string) =>
  Type.String({ minLength: 1, maxLength: 100, description: description ?? `Identifier (\`${prefix}_…\`)` })

export const IdParam = Input({ id: Id('', 'Identifier') })

export const Email = Type.String({ format: 'email', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' })
export const Name = (what: string) => Type.String({ minLength: 1, maxLength: 200, description: what })

export const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('member'), Type.Literal('viewer')])
export const EnvironmentSchema = Type.Union([Type.Literal('live'), Type.Literal('test')], {
  description: 'Application environment: `live` (default) or `test`; decides the prefix of its API keys (`ptc_live_` / `ptc_test_`).',
})

export const Tenant = Out({
  id: Type.String(),
  name: Type.String(),
  plan_id: Type.String(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

export const Branding = Out(
  {
    display_name: Nullable(Type.String({ description: 'The name people see on the share page, the consent page and the widget', ...outside('workspace') })),
    logo_url: Nullable(Type.String({ description: 'An https URL on a public host, or a data: PNG, JPEG, GIF, WebP or SVG image of at most 32 KB' })),
    accent_color: Nullable(Type.String({ description: 'The accent colour, `#rrggbb` (lowercase)' })),
    accent_foreground: Nullable(Type.String({ description: '`#000000` or `#ffffff`, whichever reads better on the accent (computed; at least 4.58:1)' })),
    accent_text: Nullable(Type.String({ description: 'The accent darkened where needed to read as text on white at 4.5:1 (computed)' })),
  },
  { description: 'How the application presents itself to the people it sends to Portico; null when it has no branding' },
)

export const Application = Out({
  id: Type.String(),
  tenant_id: Type.String(),
  name: Type.String(outside('workspace')),
  environment: EnvironmentSchema,
  branding: Nullable(Branding),
  created_at: Timestamp(),
  updated_at: Timestamp(),
})

export const ApplicationWithSecret = Type.Composite([
  Application,
  Out({ client_secret: Type.String({ description: 'Shown once. Used server-side with POST /tokens.' }) }),
])

export const Member = Out({
  id: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  status: Type.Union([Type.Literal('invited'), Type.Literal('active')]),
  invite_token: Type.Optional(Type.String({ description: 'Present only in the invitation response' })),
  created_at: Timestamp(),
  accepted_at: Nullable(Timestamp()),
})

export const ApiKeyMeta = Out({
  id: Type.String(),
  application_id: Nullable(Type.String()),
  name: Nullable(Type.String()),
  prefix: Type.String({ description: 'First characters of the key, for recognising it' }),
  role: RoleSchema,
  is_default: Type.Boolean(),
  created_at: Timestamp(),
  last_used_at: Nullable(Timestamp()),
  revoked_at: Nullable(Timestamp()),
})
