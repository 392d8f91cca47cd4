// docs/events.md, generated from the event registry (src/domain/events.ts) by scripts/events-doc.ts;
// test/unit/events-doc.test.ts fails while the file is not current. The prose around the tables says
// what the registry cannot: delivery, order, catching up, and how the payload shapes were settled.
import type { TSchema } from '@sinclair/typebox'
import { nameOf } from '../domain/named.ts'
import { EVENT_SCHEMAS, EVENT_TYPES, EVENTS, exampleEnvelope, type EventDecl } from '../domain/events.ts'
import { MAX_ATTEMPTS, BACKOFF_MS } from '../domain/webhook-delivery.ts'
import { transitionsMarkdown } from '../domain/transitions.ts'

/** A schema in words: `string`, `integer`, `array of EventRecord`, `"a" | "b"`. */
export function typeText(schema: TSchema): string {
  const s = schema as Record<string, any>
  const name = nameOf(s)
  if (name) return `\`${name}\``
  if ('const' in s) return `\`${JSON.stringify(s.const)}\``
  if (s.anyOf) return (s.anyOf as TSchema[]).map(typeText).join(' \\| ')
  if (s.type === 'array') return `array of ${typeText(s.items)}`
  if (s.type === 'string' && s.format) return `string (${s.format})`
  if (s.type === 'object' && s.patternProperties) return 'object of strings'
  return String(s.type ?? 'any')
}

const cell = (t: string) => t.replace(/\|/g, '\\|').replace(/\n/g, ' ')

function fields(schema: TSchema): string {
  const s = schema as Record<string, any>
  const required = new Set<string>(s.required ?? [])
  const rows = Object.entries(s.properties as Record<string, TSchema>).map(
    ([k, v]) => `| \`${k}\` | ${typeText(v)} | ${required.has(k) ? 'always' : 'when it applies'} | ${cell((v as { description?: string }).description ?? '')} |`,
  )
  return ['| field | type | present | notes |', '| --- | --- | --- | --- |', ...rows].join('\n')
}

/** Named object schemas used inside the payloads, each described once. */
function namedParts(): [string, TSchema][] {
  const seen = new Map<string, TSchema>()
  const walk = (node: unknown, top: boolean) => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, false))
    if (!node || typeof node !== 'object') return
    const name = nameOf(node)
    if (name && !top) {
      if (seen.has(name)) return
      if (!/Data$|Event$/.test(name)) seen.set(name, node as TSchema)
    }
    for (const v of Object.values(node)) walk(v, false)
  }
  for (const t of EVENT_TYPES) walk(EVENTS[t].data, true)
  return [...seen].filter(([, s]) => (s as { type?: string }).type === 'object' && (s as { properties?: object }).properties)
}

export function eventsMarkdown(): string {
  const sections = [introduction(), catalogue(), envelope(), delivery(), order(), catchingUp(), oneByOne(), sharedShapes()]
  return sections.flat().join('\n').replace(/\n+$/, '\n')
}

/** What this page is and where it comes from. */
function introduction(): string[] {
  return [
    '# Events',
    '',
    'Back to the [README](../README.md). Generated from the event registry (`src/domain/events.ts`) by `npm run generate`; the',
    'same registry gives the OpenAPI document\'s `webhooks` section (`/v1/openapi.json`, one entry per type with its named schema) and',
    'the schemas of the events API. `test/unit/events-doc.test.ts` fails while this file is not current.',
    '',
    'The catalogue below is the complete set Portico emits. An endpoint registered with `POST /v1/webhooks`',
    'receives the types it subscribes to (`events` empty or `["*"]`: all); an unknown name is accepted and never delivered.',
    '',
  ]
}

/** Every type, when it is sent and its `data` fields, one row each. */
function catalogue(): string[] {
  const rows = EVENT_TYPES.map((t) => {
    const d: EventDecl = EVENTS[t]
    const data = Object.keys((d.data as { properties: object }).properties).map((k) => `\`${k}\``).join(', ')
    const extra = d.envelope ? ` (envelope: ${Object.keys(d.envelope).map((k) => `\`${k}\``).join(', ')})` : ''
    return `| \`${t}\` | ${cell(d.when + (d.requires ? ` Only where ${d.requires}.` : ''))} | ${data}${extra} |`
  })
  return [
    '## The catalogue',
    '',
    '| type | when | `data` fields |',
    '| --- | --- | --- |',
    ...rows,
  ]
}

/** The envelope every event shares, and the one shape each field has. */
function envelope(): string[] {
  return [
    '',
    '## Status changes',
    '',
    'Every change of a connection\'s status, what causes it and the event it emits, from the transition table',
    '(`src/domain/transitions.ts`), the one place each is decided. A cause changes only the places in its `from` column; anywhere',
    'else it does nothing. `also` is what the change sets in motion besides the status (the table\'s `Effect`s).',
    '',
    transitionsMarkdown(),
    '',
    '## The envelope',
    '',
    'Every event is one flat JSON object with the contract\'s field names. The fields of an event about a connection (every type but',
    'the three purchase events):',
    '',
    fields(EVENT_SCHEMAS['connection.live'])
      .replace('`"connection.live"`', 'string: the event type')
      .replace('| `"success"` | always |', '| `"pending"` \\| `"success"` \\| `"timeout"` | on some types (below) |')
      .replace('`ConnectionLiveData`', 'the type\'s own (`<Type>Data`, below)'),
    '',
    '`propagation_status` is `pending` on `connection.created` and `connection.applied`, `success` on `connection.live` and',
    '`connection.records.updated`, `timeout` on `connection.failed`, and absent on the others. `metadata` is the connection\'s own',
    '(set at creation, `{}` when none). A purchase event carries `id`, `type`, `application_id`, `domain`, `data`, `created_at`, and',
    '`connection_id` and `sequence` once the purchase made a connection (`domain.purchased`). New optional fields may appear (the',
    'API is additive within `/v1`): ignore fields you do not know.',
    '',
    '### One shape for each field',
    '',
    'A field has the same shape on every event that carries it:',
    '',
    '- `data.records` is always an array of `EventRecord` (`{type, host, value}`): the desired records on `connection.created`,',
    '  the records the connection had on `connection.disconnected`, the records to have now on `connection.records_outdated`, the',
    '  baseline records concerned on the drift events.',
    '- What a disconnect did to each record is `data.removal` (`RecordRemoval`: the `records` object of the disconnect outcome).',
    '- The monitor\'s findings are `data.drift` (`DriftItem`: `{subdomain, type, verdict, expected, observed}`).',
    '- `data.updated_objects` items are `UpdatedRecord` (`{type, host, name, value}`) whichever rail wrote them.',
    '',
    'Before this was settled (the events were not published), `connection.disconnected` carried the removal report as',
    '`data.records` (an object), the drift events carried drift items as `data.records` (and `domain.record_missing` the whole',
    'drift as `data.drift`), and `updated_objects` items had `name` on the API rail and `host` on Domain Connect. Read',
    '`data.removal` and `data.drift` for those; `updated_objects` items now carry both `host` and `name`.',
    '',
  ]
}

/** How a delivery is signed, retried and answered. */
function delivery(): string[] {
  return [
    '## Delivery',
    '',
    `Each delivery is a JSON POST signed by the Standard Webhooks scheme (\`webhook-id\` = the event id, \`webhook-timestamp\`,`,
    '`webhook-signature`); verify it with any Standard Webhooks library and reject timestamps more than five minutes off. Any 2xx',
    `is success; otherwise at most ${MAX_ATTEMPTS} attempts in all, ${BACKOFF_MS.map((m) => `${m / 1000} s`).join(' then ')} apart (a 429 or 503 with`,
    '`Retry-After` waits as asked, up to an hour); a 410 disables the endpoint. The same event can arrive more than once:',
    'deduplicate on `id`. Every attempt is in `GET /v1/webhook-deliveries`.',
    '',
  ]
}

/** What ids and `sequence` promise about order. */
function order(): string[] {
  return [
    '## Order',
    '',
    '- **Ids** are time-ordered, and strictly increasing within one Portico process (an id minted in the same millisecond as the',
    '  last one follows it). Ids from two processes in one millisecond are ordered by their random part.',
    '- **`sequence`**: every event about a connection carries the connection\'s own count of its events, 1, 2, 3, ..., taken under',
    '  the connection\'s row lock when the event is written, so it follows the order the changes committed. Every event of the',
    '  connection counts, whichever types an endpoint subscribes to: an endpoint subscribed to some types sees gaps, and those gaps',
    '  are the other types.',
    '- **Delivery in order per connection**: of one connection\'s events, an endpoint is sent one at a time, in `sequence` order;',
    '  the next is sent once the one before it was answered with a 2xx or ran out of attempts. A receiver that answers therefore',
    '  gets each connection\'s events in order. Different connections do not wait for each other. Two cases still reach a receiver',
    '  out of order, and `sequence` settles both: an event whose attempts all failed is passed (the next ones go on; a replay or',
    '  the events API brings it later), and a replayed event goes after the connection\'s deliveries already queued. Keep the',
    '  highest `sequence` applied per `connection_id` and ignore an event at or below it, or fetch what is missing (below).',
    '',
  ]
}

/** The events API, replay and test sends. */
function catchingUp(): string[] {
  return [
    '## Catching up: the events API',
    '',
    '- `GET /v1/events` lists the workspace\'s events oldest first (filters `app_id`, `type`, `connection_id`, `created_after`,',
    '  `created_before`; pages of `limit` with `next_cursor`), whether or not any endpoint took them; `GET /v1/events/{id}` reads one.',
    '  Each is the envelope exactly as delivered. Events are kept `EVENT_RETENTION_DAYS` (default and minimum 30 days) from their',
    '  `created_at`; the list says `retention_days`.',
    '- `connection_id` with `after_sequence=N` answers exactly the connection\'s events after the last one you applied, in order.',
    '- An event becomes visible when the change that caused it commits; one from another process may commit a moment after a later',
    '  id: to catch up without gaps, resume from a `created_after` a minute before the newest event you hold and skip ids you have.',
    '- `POST /v1/webhooks/{id}:replay` with `{since, until?}` queues again every delivery to that endpoint that ended without a 2xx,',
    '  of events created in that window (at most 1,000 a call; `more` and `next_since` say where to go on). It ends the endpoint\'s',
    '  pause after a run of failures.',
    '- `POST /v1/webhooks/{id}:test` with `{type}` sends the endpoint, now, an event of any type built from the example below, with',
    '  a fresh id, your application\'s id and `test: true`; it answers the attempt (the receiver\'s status).',
    '',
  ]
}

/** Each type: when, its own envelope fields, its `data` fields and an example. */
function oneByOne(): string[] {
  return [
    '## Events one by one',
    ...EVENT_TYPES.flatMap((t) => {
      const d: EventDecl = EVENTS[t]
      const envelopeFields = d.envelope ? [`Envelope fields of its own: ${Object.entries(d.envelope).map(([k, v]) => `\`${k}\` (${typeText(v)})`).join(', ')}.`, ''] : []
      return [
        '',
        `### \`${t}\``,
        '',
        d.when + (d.requires ? ` Sent only where ${d.requires}.` : ''),
        '',
        ...envelopeFields,
        '`data`:',
        '',
        fields(d.data),
        '',
        '```json',
        JSON.stringify(exampleEnvelope(t), null, 2),
        '```',
      ]
    }),
  ]
}

/** The named object schemas used inside the payloads, each described once. */
function sharedShapes(): string[] {
  return ['', '## Shapes used in the payloads', '', ...namedParts().flatMap(([name, schema]) => [`### \`${name}\``, '', fields(schema), ''])]
}
