// The event registry and the outbox (the API contract, section 6). Every event type is declared here once:
// when it fires, its payload (`data`) schema, the envelope fields it adds, and an example. From this
// one table come the OpenAPI document's `webhooks` section, the events API's schemas, docs/events.md
// (scripts/events-doc.ts) and the test events an endpoint can be sent; in tests every envelope built
// is checked against it (`checkEvents`).
//
// The envelope is flat, with the contract's field names. One shape per field across events: `data.records`
// is always an array of `{type, host, value}`; a disconnect's removal report is `data.removal`; the
// monitor's drift items are `data.drift`; `data.updated_objects` items are `{type, host, name, value}`.
//
// An event row is written in the transaction of the change that caused it, carrying the whole envelope
// as it will be delivered; delivery jobs read it afterwards, so nothing is sent from inside a request
// and nothing committed is lost. Order: event ids are monotonic within a process (src/ids.ts), and each
// event of a connection carries `sequence`, the connection's own count of its events (1, 2, 3, ...),
// assigned under the connection's row lock when the event is written (src/db/events.ts), so it follows
// the order the events were committed in.
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Sql } from '../db/sql.ts'
import { monotonicId } from '../ids.ts'
import type { ConnectionRow } from '../db/connections.ts'
import { insertEvents, type OutboxRow } from '../db/events.ts'
import { named } from './named.ts'
import { isTestDomain } from './test-mode.ts'
import { CertificateSchema, MetadataSchema, PowerSchema, RemovalSchema, ValidationStageSchema } from './resource-schemas.ts'

const Closed = <T extends TProperties>(props: T, description?: string) => Type.Object(props, { additionalProperties: false, ...(description ? { description } : {}) })

export const EventRecordSchema = named(
  'EventRecord',
  Closed({
    type: Type.String({ description: 'Record type: A, AAAA, CNAME, CAA, MX, NS, TXT, SPFM or REDIR301' }),
    host: Type.String({ description: 'Relative to the zone apex; `@` is the apex' }),
    value: Type.String(),
  }),
)
const Records = (description: string) => Type.Array(EventRecordSchema, { description })

export const UpdatedRecordSchema = named(
  'UpdatedRecord',
  Closed({
    type: Type.String(),
    host: Type.String({ description: 'Relative to the zone apex; `@` is the apex' }),
    name: Type.String({ description: 'The record\'s full name, without a trailing dot' }),
    value: Type.String(),
  }),
)

export const DriftItemSchema = named(
  'DriftItem',
  Closed({
    subdomain: Type.String({ description: 'The record\'s host, relative to the zone apex' }),
    type: Type.String(),
    verdict: Type.Union([Type.Literal('record_missing'), Type.Literal('record_changed'), Type.Literal('extra_value')]),
    expected: Type.Array(Type.String()),
    observed: Type.Array(Type.String()),
  }),
)

const Propagation = {
  records_propagated: Records('Desired records that resolve'),
  records_non_propagated: Records('Desired records that do not resolve (yet)'),
}
const Via = Type.Union([Type.Literal('automatic'), Type.Literal('async')], {
  description: '`automatic`: written after the person signed in at the provider (OAuth); `async`: the managed one-click rail (Domain Connect). Absent for an API-credential apply.',
})
const UpdatedObjects = Type.Array(UpdatedRecordSchema, { description: 'The desired records actually created or changed at the provider' })

export const ReplacedSetSchema = named(
  'ReplacedSet',
  Closed({
    name: Type.String({ description: 'The set\'s full name, without a trailing dot' }),
    type: Type.String(),
    values: Type.Array(Type.String(), { description: 'The values the write took out of the zone (the set\'s other values stayed)' }),
  }),
)
const Replaced = Type.Optional(
  Type.Array(ReplacedSetSchema, {
    description:
      'Present when the write took out values Portico had not written: the customer\'s own records, including any set at the provider since Portico last wrote ' +
      '(and any a write refused midway had taken out and could not put back, named on the write sent again that completes it). Each is the set\'s prior: disconnect restores it',
  }),
)

/** Why an event reports a refusal or a failure: a catalogue reason (the `details.reason` codes of errors). */
const EventReasonSchema = named(
  'EventReason',
  Type.Union(['reauthorization_required', 'dns_write_failed', 'payment_failed', 'registration_failed', 'authorization_voided', 'authorization_expiring'].map((r) => Type.Literal(r)), {
    description: 'A catalogue reason (the `details.reason` codes of errors): `reauthorization_required` and `dns_write_failed` on connection.reapply.failed; the others on purchase.error',
  }),
)

const OrderData = {
  order_id: Type.String({ description: 'The order (`ord_…`)' }),
  amount_cents: Type.Integer({ description: 'The retail price for all years, in the currency\'s minor unit' }),
  currency: Type.String({ description: 'ISO 4217, lower case', pattern: '^[a-z]{3}$' }),
  years: Type.Integer({ minimum: 1 }),
}

export type EventSubject = 'connection' | 'order'

export interface EventDecl {
  /** What the event is about: a connection (its envelope carries the connection's fields) or a purchase order. */
  subject: EventSubject
  /** When it fires, as docs/events.md and the OpenAPI document say it. */
  when: string
  /** The `data` object. */
  data: TObject
  /** Envelope fields beyond the common ones (required unless Optional). */
  envelope?: TProperties
  /** The envelope's `propagation_status` on this event (absent: the field is not sent). */
  propagation?: 'pending' | 'success' | 'timeout'
  /** What must be on for it to be sent at all (a deployment flag). */
  requires?: string
  /** An example `data` (and envelope fields), as a real event would carry. */
  example: { data: Record<string, unknown>; envelope?: Record<string, unknown> }
}

const EXAMPLE_RECORD = { type: 'CNAME', host: 'shop', value: 'edge.portico.example' }
const EXAMPLE_ORDER = { order_id: 'ord_01jtd7q7f2s4d6f8g1h3j5k7l9', amount_cents: 1299, currency: 'usd', years: 1 }
const EXAMPLE_AT = '2026-05-04T09:30:00.000Z'

/** The catalogue (the API contract, section 6, the complete set), in the contract's order. */
export const EVENTS = {
  'connection.created': {
    subject: 'connection',
    when: 'A connection is created (POST /connections, a bulk item, a provider account\'s connect, a purchase\'s auto-connect).',
    propagation: 'pending',
    data: Closed({ records: Records('The desired records') }),
    example: { data: { records: [EXAMPLE_RECORD] } },
  },
  'connection.applied': {
    subject: 'connection',
    when: 'Records were written through a rail: `data.via` is `automatic` for OAuth, `async` for one-click setup, absent for an API-credential apply.',
    propagation: 'pending',
    data: Closed({ updated_objects: UpdatedObjects, via: Type.Optional(Via), replaced: Replaced }),
    example: { data: { updated_objects: [{ ...EXAMPLE_RECORD, name: 'shop.example.com' }], via: 'automatic', replaced: [{ name: 'shop.example.com', type: 'CNAME', values: ['old-host.example.net'] }] } },
  },
  'connection.live': {
    subject: 'connection',
    when: 'Every desired record resolved at the zone\'s own nameservers: the connection is `live`.',
    propagation: 'success',
    data: Closed(Propagation),
    example: { data: { records_propagated: [EXAMPLE_RECORD], records_non_propagated: [] } },
  },
  'connection.failed': {
    subject: 'connection',
    when: 'A propagating connection\'s records never appeared within 24 hours (`error_code: propagation_timeout`).',
    propagation: 'timeout',
    data: Closed(Propagation),
    example: { data: { records_propagated: [], records_non_propagated: [EXAMPLE_RECORD] }, envelope: { error_code: 'propagation_timeout', error_message: 'The records did not appear within 24 hours' } },
  },
  'connection.records.updated': {
    subject: 'connection',
    when: 'A managed connection was re-applied through `:reapply` and re-verified.',
    propagation: 'success',
    data: Closed({ updated_objects: UpdatedObjects, via: Type.Optional(Via), replaced: Replaced, ...Propagation }),
    example: { data: { updated_objects: [{ ...EXAMPLE_RECORD, name: 'shop.example.com' }], records_propagated: [EXAMPLE_RECORD], records_non_propagated: [] } },
  },
  'connection.reapply.failed': {
    subject: 'connection',
    when:
      'A managed re-apply failed: the stored grant was refused, and the connection is flagged for re-consent (`reason: reauthorization_required`); or the monitor\'s ' +
      'repair was refused by the host midway and left records it could not put back (`reason: dns_write_failed`, `not_restored` names them; the repair is tried again after `retry_after` seconds when the host said so).',
    data: Closed({
      reason: EventReasonSchema,
      provider: Type.String({ description: 'The DNS provider that refused the grant or the write' }),
      not_restored: Type.Optional(
        Type.Array(
          Closed({ name: Type.String(), type: Type.String(), ttl: Type.Union([Type.Integer(), Type.Null()]), values: Type.Array(Type.String(), { description: 'What the set held before the repair: the zone now holds neither these nor Portico\'s' }) }),
          { description: 'dns_write_failed: the sets the refused write left changed and could not put back' },
        ),
      ),
      retry_after: Type.Optional(Type.Integer({ minimum: 0, description: 'dns_write_failed: seconds until the repair is tried again, as the host asked; absent when it said nothing (the next hourly check)' })),
    }),
    example: { data: { reason: 'reauthorization_required', provider: 'cloudflare' } },
  },
  'connection.disconnected': {
    subject: 'connection',
    when: 'A connection was disconnected (DELETE /connections/{id} or :disconnect); a managed one is reverted through its grant first.',
    data: Closed({ records: Records('The desired records the connection had'), removal: RemovalSchema }),
    example: {
      data: {
        records: [EXAMPLE_RECORD],
        removal: {
          choice: 'remove', outcome: 'manual', via: 'manual', removed: [], restored: [], failed: [],
          left_in_place: [{ type: 'CNAME', name: 'shop.example.com', value: 'edge.portico.example', note: 'added by hand; remove it at your DNS provider' }],
          manual_steps: ['At your DNS provider, delete the CNAME record shop.example.com → edge.portico.example'],
        },
      },
    },
  },
  'connection.records_outdated': {
    subject: 'connection',
    when: 'A connection whose records are in place was computed against a superseded connect target (PUT /applications/{id}/connect-target); `connect_link` is where the end user sees the new records.',
    data: Closed({ records: Records('The records the connection should have now') }),
    envelope: { connect_link: Type.String({ format: 'uri', description: 'The connection\'s records to add now' }) },
    example: { data: { records: [EXAMPLE_RECORD] }, envelope: { connect_link: 'https://portico.example.com/v1/connections/con_01jtd7q4c8v2n5b7x1z3k6m9p0/records' } },
  },
  'connection.validation_stage': {
    subject: 'connection',
    when:
      'A connection made with `validation: before_cutover` moved to another stage: `issuing` (the ownership TXT and the ' +
      '`_acme-challenge` delegation resolve; the certificate is ordered by DNS-01), `awaiting_routing` (the certificate is on every ' +
      'edge node: the routing records are asked for now), `complete` (live, served with that certificate from the first request), ' +
      'or `failed` (the connection failed); a failed one revived takes up the step it failed in again.',
    data: Closed({
      stage: ValidationStageSchema,
      previous: ValidationStageSchema,
      records: Records('The records the connection asks for now (the routing records join them at `awaiting_routing`)'),
    }),
    example: {
      data: {
        stage: 'awaiting_routing',
        previous: 'issuing',
        records: [
          { type: 'TXT', host: '_portico-challenge.shop', value: 'portico-verify=8Jk2fQ1xLm4pR7sT9vW3yZ' },
          { type: 'CNAME', host: '_acme-challenge.shop', value: 'd7k2q9x4m1p8s3v6.dcv.portico.example' },
          EXAMPLE_RECORD,
        ],
      },
    },
  },
  'domain.record_missing': {
    subject: 'connection',
    when: 'The monitor saw a baseline record disappear or be repointed (hourly sweep).',
    requires: 'MONITOR_ALERTS_ENABLED=1',
    data: Closed({ records: Records('The baseline records now missing or changed'), drift: Type.Array(DriftItemSchema, { description: 'What was expected and what was observed at each of them' }) }),
    example: { data: { records: [EXAMPLE_RECORD], drift: [{ subdomain: 'shop', type: 'CNAME', verdict: 'record_missing', expected: ['edge.portico.example'], observed: [] }] } },
  },
  'domain.record_restored': {
    subject: 'connection',
    when: 'A missing baseline record is observed again (hourly sweep).',
    requires: 'MONITOR_ALERTS_ENABLED=1',
    data: Closed({ records: Records('The baseline records back in place'), drift: Type.Array(DriftItemSchema, { description: 'The drift each of them had' }) }),
    example: { data: { records: [EXAMPLE_RECORD], drift: [{ subdomain: 'shop', type: 'CNAME', verdict: 'record_missing', expected: ['edge.portico.example'], observed: [] }] } },
  },
  'domain.purchased': {
    subject: 'order',
    when: 'A purchase completed: the domain is registered, the card captured, and the domain connected.',
    requires: 'SELL_PURCHASE_ENABLED=1',
    data: Closed({ ...OrderData, registrar: Type.String(), reg_order_id: Type.String({ description: 'The registrar\'s order id' }), connection_id: Type.String({ description: 'The connection made for the domain' }) }),
    example: { data: { ...EXAMPLE_ORDER, registrar: 'sandbox', reg_order_id: 'reg_7731', connection_id: 'con_01jtd7q4c8v2n5b7x1z3k6m9p0' } },
  },
  'purchase.error': {
    subject: 'order',
    when: 'A purchase failed; the card authorization was released (`released`).',
    requires: 'SELL_PURCHASE_ENABLED=1',
    data: Closed({
      ...OrderData,
      reason: EventReasonSchema,
      error_message: Type.String(),
      released: Type.Boolean({ description: 'The card authorization was released' }),
      registrar_reason: Type.Optional(Type.String({ description: 'The registrar\'s own code, when it refused' })),
    }),
    example: { data: { ...EXAMPLE_ORDER, reason: 'registration_failed', error_message: 'The registry refused the registration', released: true, registrar_reason: 'domain_taken' } },
  },
  'purchase.confirmation.expired': {
    subject: 'order',
    when: 'A pending purchase\'s checkout timed out unpaid (an unpaid quote older than one day).',
    requires: 'SELL_PURCHASE_ENABLED=1',
    data: Closed({ ...OrderData, expired_at: Type.String({ format: 'date-time' }), quoted_at: Type.String({ format: 'date-time' }) }),
    example: { data: { ...EXAMPLE_ORDER, expired_at: '2026-05-05T09:30:00.000Z', quoted_at: EXAMPLE_AT } },
  },
  secure_status: {
    subject: 'connection',
    when: 'A certificate\'s provisioning status changed (`secure_status` on the envelope).',
    data: Closed({ certificate: CertificateSchema }),
    envelope: { secure_status: Type.Union(['pending', 'issued', 'failed', 'removed'].map((s) => Type.Literal(s))) },
    example: {
      data: {
        certificate: {
          id: 'crt_01jtd7q8g3d5f7h9j2k4l6z8x1', domain: 'shop.example.com', application_id: 'app_01jtd7q2ma3p8s2k6d9f4h7j1m', status: 'issued',
          issuer: "Let's Encrypt", not_before: EXAMPLE_AT, not_after: '2026-08-02T09:30:00.000Z', last_error: null, managed: true,
          renew_after: '2026-07-03T09:30:00.000Z', updated_at: EXAMPLE_AT, names: ['shop.example.com'], challenge: 'http-01', renewal_warning: null,
        },
      },
      envelope: { secure_status: 'issued' },
    },
  },
  power_status: {
    subject: 'connection',
    when: 'A reverse-proxy host\'s provisioning status changed (`power_status` on the envelope).',
    data: Closed({ power: PowerSchema }),
    envelope: { power_status: Type.Union(['pending', 'active', 'failed', 'removed'].map((s) => Type.Literal(s))) },
    example: {
      data: { power: { connection_id: 'con_01jtd7q4c8v2n5b7x1z3k6m9p0', domain: 'shop.example.com', origin_url: 'https://app.example.net', redirect_to_www: false, root_path: null, status: 'active', last_error: null, updated_at: EXAMPLE_AT } },
      envelope: { power_status: 'active' },
    },
  },
} as const satisfies Record<string, EventDecl>

export type EventType = keyof typeof EVENTS
export const EVENT_TYPES = Object.keys(EVENTS) as EventType[]
export const isEventType = (t: string): t is EventType => Object.hasOwn(EVENTS, t)

type Decls = typeof EVENTS
export type EventData<T extends EventType> = Static<Decls[T]['data']>
export type ConnectionEventType = { [T in EventType]: Decls[T]['subject'] extends 'connection' ? T : never }[EventType]
export type OrderEventType = Exclude<EventType, ConnectionEventType>
/** A payload as code builds it: a timestamp may still be a Date (it is sent as its ISO string). */
export type Wire<T> = T extends string ? T | Date : T extends readonly (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T
type ExtraOf<T extends EventType> = Decls[T] extends { envelope: infer E extends TProperties } ? Static<TObject<E>> : Record<never, never>

/** `connection.records.updated` → `ConnectionRecordsUpdated` (the schemas' names). */
export const eventTypeName = (t: string) => t.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')

const SETUP_TYPES = ['manual', 'api', 'oauth', 'domain_connect'] as const

function envelopeSchemaOf(type: EventType): TObject {
  const d: EventDecl = EVENTS[type]
  const common: TProperties = {
    id: Type.String({ pattern: '^evt_[0-9a-z]+$', description: 'The event id (`evt_…`): deduplicate on it. Ids are time-ordered.' }),
    type: Type.Literal(type),
    application_id: Type.String(),
    sequence: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'This event\'s place among its connection\'s events (1, 2, 3, ...; every event of the connection counts, whichever an endpoint subscribes to). Present on every event about a connection.',
      }),
    ),
    test: Type.Optional(Type.Literal(true, { description: 'Present only on a test event sent with POST /webhooks/{id}:test' })),
    test_mode: Type.Optional(Type.Literal(true, { description: 'Present only on events of a test-environment application\'s connections to reserved test domains (test mode, docs/test-mode.md)' })),
  }
  const subject: TProperties =
    d.subject === 'connection'
      ? {
          connection_id: Type.String(),
          user_id: Type.Optional(Type.String({ description: 'The connection\'s `end_user_ref`; omitted when none' })),
          domain: Type.String(),
          subdomain: Type.Optional(Type.String({ description: 'Labels left of the apex; omitted for an apex' })),
          provider: Type.Optional(Type.String({ description: 'The DNS provider detected (catalog id); omitted when unknown' })),
          setup_type: Type.Union(SETUP_TYPES.map((s) => Type.Literal(s)), { description: 'The rail that put the records in place (`manual` until an automatic rail writes them)' }),
          ...(d.propagation ? { propagation_status: Type.Literal(d.propagation) } : {}),
          redirection_status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('success'), Type.Literal('failed')], { description: 'Only for connections created with `www_redirect: true`' })),
          error_code: Type.Optional(Type.String({ description: 'The connection\'s recorded diagnosis at emit time' })),
          error_message: Type.Optional(Type.String()),
          metadata: MetadataSchema,
        }
      : {
          connection_id: Type.Optional(Type.String({ description: 'The connection the purchase made, once there is one' })),
          domain: Type.String(),
        }
  const name = eventTypeName(type)
  return named(
    `${name}Event`,
    Closed({ ...common, ...subject, ...(d.envelope ?? {}), data: named(`${name}Data`, d.data), created_at: Type.String({ format: 'date-time' }) }, d.when),
  )
}

/** Each event type's envelope schema (`<Name>Event`, its data `<Name>Data`). */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((t) => [t, envelopeSchemaOf(t)])) as Record<EventType, TObject>

/** Any event: one of the envelopes, told apart by `type`. */
export const AnyEventSchema = named('Event', Type.Union(EVENT_TYPES.map((t) => EVENT_SCHEMAS[t]), { description: 'An event: one of the catalogue\'s envelopes, told apart by `type`' }))

/** The example envelope of an event type: what a real event of it looks like (and what a test event sends). */
export function exampleEnvelope(type: EventType, over: { id?: string; application_id?: string; created_at?: string } = {}): Record<string, unknown> {
  const d: EventDecl = EVENTS[type]
  const base =
    d.subject === 'connection'
      ? {
          connection_id: 'con_01jtd7q4c8v2n5b7x1z3k6m9p0', user_id: 'cust_42', domain: 'shop.example.com', subdomain: 'shop', provider: 'cloudflare', setup_type: 'manual',
          ...(d.propagation ? { propagation_status: d.propagation } : {}), metadata: { plan: 'pro' }, sequence: 3,
        }
      : { domain: 'example.com' }
  return {
    id: over.id ?? 'evt_01jtd7q6e1r3t5y7u9i2o4p6a8',
    type,
    application_id: over.application_id ?? 'app_01jtd7q2ma3p8s2k6d9f4h7j1m',
    ...base,
    ...d.example.envelope,
    data: d.example.data,
    created_at: over.created_at ?? EXAMPLE_AT,
  }
}

// In tests every envelope built is checked against the registry (server.ts turns this on in APP_ENV=test).
let checking = false
export function checkEvents(on: boolean): void {
  checking = on
}

/** Throws when `env` is not what the registry declares for its type. */
export function assertEventValid(env: unknown): void {
  const type = (env as { type?: string }).type
  if (!type || !isEventType(type)) throw new Error(`event of unknown type ${JSON.stringify(type)}`)
  const schema = EVENT_SCHEMAS[type]
  if (!Value.Check(schema, env)) {
    const first = [...Value.Errors(schema, env)].slice(0, 3).map((e) => `${e.path} ${e.message}`)
    throw new Error(`event ${type} is not what the registry declares: ${first.join('; ')}`)
  }
}

export type Envelope = Record<string, unknown> & { id: string; type: EventType; created_at: string; sequence?: number }

const checked = <E extends Envelope>(env: E): E => {
  if (checking) assertEventValid(JSON.parse(JSON.stringify(env)))
  return env
}

/** An event id: time-ordered, and after every id this process minted before (src/ids.ts). */
export const newEventId = (now: Date) => monotonicId('evt', now.getTime())

/** What a connection's envelope reads of it. */
export type EnvelopeConnection = Pick<ConnectionRow, 'id' | 'application_id' | 'end_user_ref' | 'domain' | 'apex_domain' | 'provider_id' | 'rail' | 'www_redirect' | 'status' | 'error_code' | 'error_message' | 'metadata'>

/** The envelope of a connection event: flat, fields omitted when they do not apply. */
export function connectionEnvelope<T extends ConnectionEventType>(c: EnvelopeConnection, type: T, now: Date, data: Wire<EventData<T>>, extra?: ExtraOf<T>): Envelope {
  const env: Record<string, unknown> = {
    id: newEventId(now),
    type,
    connection_id: c.id,
    application_id: c.application_id,
  }
  if (c.end_user_ref) env.user_id = c.end_user_ref
  env.domain = c.domain
  const sub = c.domain === c.apex_domain ? '' : c.domain.slice(0, -(c.apex_domain.length + 1))
  if (sub) env.subdomain = sub
  if (c.provider_id) env.provider = c.provider_id
  env.setup_type = c.rail
  const prop = (EVENTS[type] as EventDecl).propagation
  if (prop) env.propagation_status = prop
  env.data = data
  if (c.www_redirect) env.redirection_status = c.status === 'live' ? 'success' : c.status === 'failed' ? 'failed' : 'pending'
  if (c.error_code) {
    env.error_code = c.error_code
    if (c.error_message) env.error_message = c.error_message
  }
  env.metadata = c.metadata
  if (isTestDomain(c.domain)) env.test_mode = true
  Object.assign(env, extra)
  env.created_at = now.toISOString()
  return checked(env as Envelope)
}

/** The envelope of a purchase order's event. */
export function orderEnvelope<T extends OrderEventType>(o: { application_id: string; domain: string }, type: T, now: Date, data: EventData<T>, connectionId: string | null = null): Envelope {
  return checked({
    id: newEventId(now),
    type,
    application_id: o.application_id,
    ...(connectionId ? { connection_id: connectionId } : {}),
    domain: o.domain,
    data,
    created_at: now.toISOString(),
  } as Envelope)
}

const outboxRow = (tenantId: string, applicationId: string, connectionId: string | null, env: Envelope): OutboxRow => ({
  id: env.id, tenant_id: tenantId, application_id: applicationId, connection_id: connectionId, type: env.type, payload: env, created_at: env.created_at,
})

/** Writes one event to the outbox in the caller's transaction; answers it with its `sequence` (connection events). */
export async function emit(sql: Sql, tenantId: string, applicationId: string, connectionId: string | null, env: Envelope): Promise<Envelope> {
  const [seq] = await insertEvents(sql, [outboxRow(tenantId, applicationId, connectionId, env)])
  return seq?.sequence ? { ...env, sequence: seq.sequence } : env
}

export async function emitForConnection<T extends ConnectionEventType>(
  sql: Sql,
  c: EnvelopeConnection & Pick<ConnectionRow, 'tenant_id'>,
  type: T,
  now: Date,
  data: Wire<EventData<T>>,
  extra?: ExtraOf<T>,
): Promise<Envelope> {
  return emit(sql, c.tenant_id, c.application_id, c.id, connectionEnvelope(c, type, now, data, extra))
}

/** Writes many connection events in one statement (the monitor sweep's drift events). */
export async function emitMany(sql: Sql, rows: Pick<ConnectionRow, 'id' | 'tenant_id' | 'application_id'>[], envs: Envelope[]): Promise<void> {
  const byId = new Map(rows.map((r) => [r.id, r]))
  await insertEvents(
    sql,
    envs.map((e) => {
      const c = byId.get(e.connection_id as string)!
      return outboxRow(c.tenant_id, c.application_id, c.id, e)
    }),
  )
}

/**
 * An event as stored before the registry settled its shapes (migration 0120), read back in today's
 * shape: a connection event gets `metadata: {}`; a disconnect's removal report moves from
 * `data.records` to `data.removal`; drift items from `data.records` to `data.drift`; `updated_objects`
 * items get their `host`. Today's events pass through unchanged.
 */
export function currentShape(env: Record<string, any>): Record<string, unknown> {
  const decl = isEventType(env.type) ? (EVENTS[env.type] as EventDecl) : null
  if (!decl || decl.subject !== 'connection' || env.metadata !== undefined) return env
  const data = { ...(env.data ?? {}) }
  const apex = env.subdomain ? String(env.domain).slice(String(env.subdomain).length + 1) : String(env.domain)
  if (env.type === 'connection.disconnected' && data.records && !Array.isArray(data.records)) {
    data.removal = data.records
    data.records = []
  }
  if ((env.type === 'domain.record_missing' || env.type === 'domain.record_restored') && Array.isArray(data.records) && data.records[0]?.subdomain !== undefined) {
    data.drift = data.records
    data.records = data.records.flatMap((d: { type: string; subdomain: string; expected: string[] }) => d.expected.map((value) => ({ type: d.type, host: d.subdomain, value })))
  }
  if (Array.isArray(data.updated_objects)) {
    data.updated_objects = data.updated_objects.map((u: { type: string; host?: string; name?: string; value: string }) => {
      const name = u.name ?? (u.host === '@' ? apex : `${u.host}.${apex}`)
      const host = u.host ?? (name === apex ? '@' : name.endsWith(`.${apex}`) ? name.slice(0, -(apex.length + 1)) : name)
      return { type: u.type, host, name, value: u.value }
    })
  }
  return { ...env, data, metadata: {} }
}

/** `{type, host, value}` of records (the `data.records` of events). */
export const recordRefs = (records: readonly { type: string; host: string; value: string }[]) => records.map(({ type, host, value }) => ({ type, host, value }))

