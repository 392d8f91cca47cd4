// The two answers the browser widget reads, as closed schemas: the domain check (`POST
// /domains:check`, the API contract, section 2) and a connection's status as the widget follows it (`GET
// /connections/{id}/status`). Closed (`additionalProperties: false`) so the server cannot send what the
// schema does not name; the widget takes its types from here (type-only imports, erased from the
// bundle), so renaming a field breaks the widget's typecheck instead of a person's screen.
import { named } from '../domain/named.ts'
import { ValidationStageSchema } from '../domain/resource-schemas.ts'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { DnsRecordSchema } from '../domain/records.ts'
import { outside, Timestamp } from './schemas.ts'

const Closed = <T extends Parameters<typeof Type.Object>[0]>(props: T, description?: string) =>
  Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) })
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()])
const Literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  )

export const RAILS = ['oauth', 'domainConnect', 'apiKey', 'manual'] as const

const RailStateSchema = Closed({
  available: Type.Boolean(),
  reason: Type.Optional(Type.String({ description: 'Why not available: `unknown_provider`, `provider_unsupported`, `not_configured`, `not_discovered`, `settings_unreachable`, or the `blocked_reason`' })),
  caveat: Type.Optional(Type.String({ description: '`managed_only`, `redirect_only`, `needs_provider_api_credential`, `apex_uses_a_records`' })),
})

const RecordRefSchema = Closed({ type: Type.String(), host: Type.String(), value: Type.String() })

const RoutingConflictSchema = Closed(
  {
    kind: Type.Literal('routing'),
    type: Type.String(),
    host: Type.String({ description: 'Relative to the zone apex; `@` is the apex' }),
    value: Type.String({ description: 'The record as published, from DNS', ...outside('dns') }),
    desired: RecordRefSchema,
    action: Literals(['replace', 'remove'] as const, 'What the person does with it'),
  },
  'A record already published that stands in the way of a desired one',
)

const CertificateConflictSchema = Closed(
  {
    kind: Type.Literal('certificate'),
    type: Literals(['CAA', 'CNAME'] as const),
    host: Type.String({ description: 'Relative to the zone apex; `@` is the apex' }),
    value: Type.String({ description: 'The record in the way (a CAA set: its values, one per line), from DNS', ...outside('dns') }),
    desired: RecordRefSchema,
    action: Literals(['add', 'remove'] as const, '`add` the desired record beside the existing ones, or `remove` the one in the way'),
    reason: Literals(['caa_forbids_ca', 'acme_challenge_delegated'] as const),
    blocks_certificate: Type.Boolean({ description: 'Whether HTTPS cannot be set up until it is fixed' }),
    fix: Type.String({ description: 'What to do, in words' }),
  },
  'A record that stands in the way of HTTPS: a CAA set that does not allow Portico\'s certificate authority, or an `_acme-challenge` delegation',
)

export const ConflictSchema = Type.Union([RoutingConflictSchema, CertificateConflictSchema])

/** What the widget shows of the application that asks: its name and the branding set through the API. */
export const ApplicationFaceSchema = Closed(
  {
    id: Type.String(),
    name: Type.String(outside('workspace')),
    branding: Nullable(
      Closed({
        display_name: Nullable(Type.String({ description: 'Shown instead of the application name', ...outside('workspace') })),
        logo_url: Nullable(Type.String({ description: 'https URL of the logo shown at the top of the widget' })),
        accent_color: Nullable(Type.String({ description: '#rrggbb; the widget\'s primary colour unless the integrator sets one' })),
      }),
    ),
  },
  'The application asking, as the widget shows it',
)

export const BLOCKED_REASONS = ['platform_subdomain', 'not_registered', 'not_delegated', 'apex_not_supported'] as const

export const DomainCheckSchema = named('DomainCheck', Closed(
  {
    domain: Type.String(),
    apex_domain: Type.String(),
    subdomain: Type.String({ description: 'Labels left of the apex; empty for the apex' }),
    is_apex: Type.Boolean(),
    provider: Nullable(Type.String({ description: 'Catalog id of the DNS provider found from the nameservers' })),
    provider_name: Nullable(Type.String()),
    provider_candidates: Type.Array(
      Closed({
        provider: Type.String(),
        provider_name: Type.String(),
        dashboard_url: Nullable(Type.String()),
        token_url: Nullable(Type.String({ description: 'Where a person creates the API credential this provider\'s rail takes' })),
        token_scopes: Type.Array(Type.String(), { description: 'What that credential must be allowed to do, in the provider\'s words (empty when no adapter says)' }),
        credential: Nullable(Type.String({ description: 'That credential as the person knows it, with the form to paste where it has parts, e.g. `API key and secret (key:secret)`' })),
        api_credential: Type.Boolean({ description: 'Whether the API-credential rail takes this provider\'s credential' }),
      }),
      { description: 'Every provider the nameservers may belong to (NS1\'s fleet also serves Netlify DNS; Route 53\'s also serves Amazon Lightsail); one entry when the nameservers tell' },
    ),
    setup_type: Nullable(Literals(['manual', 'automatic'] as const)),
    supports_automatic: Type.Boolean({ description: 'Only that an adapter exists for the provider; branch on `rails`' }),
    oauth_available: Type.Boolean(),
    domain_connect_available: Type.Boolean(),
    domain_connect_provider: Nullable(Type.String({ description: 'The `_domainconnect` host, from DNS', ...outside('dns') })),
    domain_connect: Nullable(
      Closed(
        { provider_id: Type.String(outside('provider')), provider_name: Type.String(outside('provider')), sync: Type.Boolean(), async: Type.Boolean() },
        'The Domain Connect provider, from its settings (may differ from the provider found from the nameservers)',
      ),
    ),
    registered: Type.Optional(Type.Boolean({ description: 'False only on NXDOMAIN; omitted when the resolver failed' })),
    detection_error: Type.Optional(Literals(['resolver'] as const)),
    dns: Type.Optional(Closed({ resolvers: Type.Array(Type.String()), setting: Type.Literal('DNS_RESOLVERS'), resolvers_from: Type.String() }, 'With `detection_error`: the resolvers that failed')),
    nameserver_supported: Type.Boolean(),
    wildcard_supported: Type.Boolean(),
    cname_flattening: Type.Boolean(),
    spf_override_supported: Type.Boolean(),
    caa_supported: Type.Boolean(),
    social_login_supported: Type.Boolean(),
    conflicts: Type.Array(ConflictSchema),
    apex_strategy: Literals(['not_apex', 'alias', 'aname', 'flattening', 'a_records', 'unsupported'] as const),
    rails: Closed({ oauth: RailStateSchema, domainConnect: RailStateSchema, apiKey: RailStateSchema, manual: RailStateSchema }),
    recommended_rail: Nullable(Literals(RAILS)),
    end_user_automatic: Type.Boolean(),
    blocked_reason: Nullable(Literals(BLOCKED_REASONS)),
    dashboard_url: Nullable(Type.String()),
    nameservers: Type.Array(Type.String(), { description: 'The nameservers DNS names for the zone', ...outside('dns') }),
    desired_records: Type.Array(DnsRecordSchema, { description: 'The records the connection would carry; an ownership value reads `<token issued at connect>`' }),
    validation: Type.Optional(
      Closed(
        {
          mode: Type.Literal('before_cutover'),
          available: Type.Boolean({ description: 'Whether this deployment offers it (it needs delegated DCV)' }),
          reason: Type.Optional(Literals(['dcv_not_configured'] as const)),
          steps: Type.Array(
            Closed({
              step: Literals(['prove', 'route'] as const),
              records: Type.Array(DnsRecordSchema),
            }),
            { description: 'In order: `prove` (the ownership TXT and the `_acme-challenge` delegation; a DCV label reads `<label issued at connect>`), then `route`, asked for once the certificate is on every edge node' },
          ),
        },
        'Asked with `validation: before_cutover`: pre-validation\'s two steps; `desired_records` is then the first step',
      ),
    ),
    application: Type.Optional(ApplicationFaceSchema),
  },
  'Domain check result',
))
export type DomainCheck = Static<typeof DomainCheckSchema>
export type Conflict = Static<typeof ConflictSchema>
export type ApplicationFace = Static<typeof ApplicationFaceSchema>
export type BlockedReason = (typeof BLOCKED_REASONS)[number]
export type RailName = (typeof RAILS)[number]

export const SECURE_STATES = ['secured', 'securing', 'failed', 'not_served'] as const
export const RECORD_STATES = ['found', 'waiting', 'conflict'] as const

export const ConnectionStatusSchema = Closed(
  {
    id: Type.String(),
    domain: Type.String(),
    status: Literals(['pending', 'propagating', 'live', 'failed'] as const),
    rail: Type.String({ description: '`manual` until an automatic rail writes the records' }),
    error_code: Nullable(Type.String()),
    error_message: Nullable(Type.String({ description: 'The diagnosis in words; may quote the DNS provider', ...outside('provider') })),
    records: Type.Array(
      Closed({
        type: Type.String(),
        host: Type.String(),
        value: Type.String(),
        ttl: Type.Optional(Type.Integer()),
        priority: Type.Optional(Type.Integer()),
        state: Literals(RECORD_STATES, '`found` by the last verification; `conflict` when something else is published in its place; else `waiting`'),
      }),
      { description: 'The desired records, each with what the last verification saw' },
    ),
    conflicts: Type.Array(ConflictSchema, { description: 'Records in the way as of the last verification (empty once live)' }),
    secure: Literals(
      SECURE_STATES,
      '`secured`: the certificate is served; `securing`: live and pointed at the edge, the certificate not served yet; `failed`: the CA refused (see `secure_error`); `not_served`: HTTPS for this connection is not served by this deployment',
    ),
    secure_error: Nullable(Type.String({ description: 'What the certificate authority said', ...outside('provider') })),
    validation_stage: Nullable(ValidationStageSchema),
    last_checked_at: Nullable(Timestamp()),
    next_check_at: Nullable(Timestamp()),
    version: Type.String({ description: 'Changes whenever anything above changes; pass it back as `after` to wait for the next change' }),
    application: ApplicationFaceSchema,
  },
  'A connection as the widget follows it',
)
export type ConnectionStatus = Static<typeof ConnectionStatusSchema>
export type SecureState = (typeof SECURE_STATES)[number]
export type RecordState = (typeof RECORD_STATES)[number]
