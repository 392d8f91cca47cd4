// Schemas of resources that appear both in answers and in events (a certificate, a served site, a
// disconnect's record removal): declared once here, on the rules floor, so the operations that answer
// them and the event registry (events.ts) that sends them share one named type.
import { Type } from '@sinclair/typebox'
import { named } from './named.ts'

/** Pre-validation's stages, in order (src/domain/prevalidation.ts moves a connection through them). */
export const VALIDATION_STAGES = ['awaiting_records', 'issuing', 'awaiting_routing', 'complete', 'failed'] as const

export const ValidationStageSchema = named(
  'ValidationStage',
  Type.Union(
    VALIDATION_STAGES.map((s) => Type.Literal(s)),
    {
      description:
        'Pre-validation\'s stage (`validation: before_cutover`): `awaiting_records` (the ownership TXT and the `_acme-challenge` ' +
        'delegation), `issuing` (the certificate is ordered by DNS-01 and put on every edge node), `awaiting_routing` (the routing ' +
        'records are asked for now), `complete` (live), `failed`',
    },
  ),
)

/** Text from outside Portico (src/ops/schemas.ts `outside`: the document shows it as `x-outside`). */
const outside = (source: 'dns' | 'provider' | 'end_user') => ({ 'x-outside': source })

const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])
const Timestamp = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) })

export const CertificateSchema = named(
  'Certificate',
  Type.Object({
    id: Type.String({ description: 'Identifier (`crt_…`)' }),
    domain: Type.String(),
    application_id: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('issued'), Type.Literal('failed'), Type.Literal('removed')]),
    issuer: Nullable(Type.String()),
    not_before: Nullable(Timestamp()),
    not_after: Nullable(Timestamp()),
    last_error: Nullable(Type.String({ description: 'What the certificate authority said', ...outside('provider') })),
    managed: Type.Boolean({ description: 'Issued and renewed by Portico through ACME; false for an imported certificate' }),
    renew_after: Nullable(Timestamp('When the renewal job renews it (two thirds into its validity); null when not managed')),
    updated_at: Timestamp(),
    names: Type.Array(Type.String(), { description: 'The names the certificate covers' }),
    challenge: Type.Union([Type.Literal('http-01'), Type.Literal('dns-01')], { description: 'How it was validated: `dns-01` through Portico\'s DCV delegation (pre-validation, wildcards), else `http-01` through the edge; renewals take the same path' }),
    renewal_warning: Nullable(Type.String({ description: 'Said ahead of expiry when the next renewal cannot validate (the `_acme-challenge` delegation is gone), with what to put back; null when nothing stands in the way' })),
  }),
)

export const PowerSchema = named(
  'PowerSite',
  Type.Object({
    connection_id: Type.String(),
    domain: Type.String(),
    origin_url: Nullable(Type.String()),
    redirect_to_www: Type.Boolean(),
    root_path: Nullable(Type.String()),
    status: Type.Union([Type.Literal('pending'), Type.Literal('active'), Type.Literal('failed'), Type.Literal('removed')], {
      description: '`pending` until the connection is live and its route is on the edge, then `active`; `failed` with `last_error`',
    }),
    last_error: Nullable(Type.String()),
    updated_at: Timestamp(),
  }),
)

export const RecordNoteSchema = named(
  'RecordNote',
  Type.Object({
    type: Type.String(),
    name: Type.String(),
    value: Type.String({ description: 'As written, or as found in the zone before Portico wrote (empty for a set removed at the provider since Portico wrote it)', ...outside('dns') }),
    note: Type.String(),
    prior_values: Type.Optional(
      Type.Array(Type.String({ ...outside('dns') }), {
        description: '`left_in_place` only: the values the set held before Portico first wrote it, which were not put back (empty: there was no set)',
      }),
    ),
  }),
)

/** The `records` part of a disconnect outcome: what happened to each record (the event's `data.removal`). */
export const RemovalSchema = named(
  'RecordRemoval',
  Type.Object({
    choice: Type.Literal('remove'),
    outcome: Type.Union([Type.Literal('removed'), Type.Literal('manual')], {
      description: '`removed` when Portico removed or restored every record; `manual` when a person must remove them (records set up by hand)',
    }),
    via: Type.String({ description: 'The rail the removal went through: `manual`, or the provider rail' }),
    removed: Type.Array(RecordNoteSchema),
    restored: Type.Array(RecordNoteSchema),
    left_in_place: Type.Array(RecordNoteSchema),
    failed: Type.Array(RecordNoteSchema),
    manual_steps: Type.Array(Type.String()),
  }),
)

/**
 * The integrator's own keys and values on a connection, echoed in its events: at most 20 keys of 1 to
 * 40 characters (letters, digits, `_`, `-`, `.`), each value a string of at most 500 characters.
 */
export const METADATA_MAX_KEYS = 20
export const MetadataSchema = named(
  'Metadata',
  Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,40}$' }), Type.String({ maxLength: 500 }), {
    maxProperties: METADATA_MAX_KEYS,
    additionalProperties: false,
    // Set by the integrator, or by its end user's widget token: outside text to an agent.
    ...outside('end_user'),
    description:
      'Your own keys and values (at most 20 keys of 1 to 40 letters, digits, `_`, `-` or `.`; string values of at most 500 characters), ' +
      'echoed in the connection\'s events. Anyone who can read the connection reads it (a widget token too): keep secrets out of it.',
  }),
)
