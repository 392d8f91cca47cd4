// A person's yes before an agent does what needs one (the API contract, section 7, confirmation_required):
// disconnecting a domain, and a write that would replace records already in the customer's zone. The
// model's arguments never stand in for it, and neither does anything a client sends in-band (a form
// answer, an accept to a URL question: mcp/confirm.ts). The yes comes from the person, on a
// confirmation page (`/oauth/confirm/<id>.<mac>`) they open signed in as themselves: the member who
// approved the agent, whose role must still allow the action. The link is HMAC-signed, lives CONFIRM_TTL_MS, and the
// question it opens is bound to the agent (tenant, client, subject), the connection and what exactly
// would happen (`fingerprint`: the same records replaced). A yes is used once, by that agent's retry.
import { createHash, createHmac } from 'node:crypto'
import type { Sql } from '../db/sql.ts'
import { ApiError } from '../errors.ts'
import { newId } from '../ids.ts'
import { deriveKey, secretEquals } from '../crypto.ts'
import { quoteOutside } from './outside-text.ts'
import { confirmedFor, openConfirmation, useConfirmation, type AgentRef, type ConfirmationAsk, type ConfirmationRow } from '../db/person-confirmations.ts'

export const CONFIRM_TTL_MS = 10 * 60_000

/** What the consent page and docs/agents.md promise, in the same words (a test holds them together). */
export const PERSON_CONFIRMS =
  'You confirm each disconnect, and each write that would replace records already in a customer\'s zone, yourself: the agent gets a link for you, ' +
  'you open it, sign in as yourself, see what would change and confirm there. Nothing the agent or its app answers for you counts as your yes.'
export const CONFIRM_PATH = '/oauth/confirm'

/** Confirmation links are signed with a key derived from SECRETS_KEY and point at PUBLIC_URL. */
export interface ConfirmSettings {
  secretsKey: Buffer
  publicUrl: string
}

const macOf = (config: ConfirmSettings, id: string) => createHmac('sha256', deriveKey(config.secretsKey, 'person-confirm')).update(id).digest('base64url').slice(0, 32)

/** The one-time link the person opens to answer. */
export function confirmUrl(config: ConfirmSettings, id: string): string {
  return `${config.publicUrl}${CONFIRM_PATH}/${id}.${macOf(config, id)}`
}

/** The confirmation id a link token names, when its signature holds. */
export function confirmationIdOf(config: ConfirmSettings, token: string): string | null {
  const m = /^([\w-]{1,80})\.([\w-]{32})$/.exec(token)
  return m && secretEquals(m[2]!, macOf(config, m[1]!)) ? m[1]! : null
}

export const fingerprintOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('base64url')

/** A record set the write would replace, as the question names it. */
export interface ReplacedSet {
  type: string
  name: string
  /** The values in the zone now: text from DNS, never part of Portico's sentences. */
  values: string[]
}

export const replacedSets = (row: Pick<ConfirmationRow, 'summary'>) => (row.summary.replaced ?? []) as ReplacedSet[]

/**
 * What the person is asked, in Portico's words only. The values a write would replace came from the
 * customer's zone: they are shown apart, quoted as found (`quotedValues`), never inside the question.
 */
export function questionOf(row: Pick<ConfirmationRow, 'action' | 'domain' | 'summary'>): string {
  if (row.action === 'disconnect') return `Disconnect ${row.domain}? Portico will remove the DNS records it wrote, stop serving the domain and remove its certificate.`
  const sets = replacedSets(row).map((r) => `${r.type} at ${r.name}`)
  return `Write the records of ${row.domain} at its DNS provider? This replaces ${sets.length === 1 ? 'a record set' : `${sets.length} record sets`} already in the zone (${sets.join('; ')}); their current values are listed as found in DNS.`
}

/** The replaced values as Portico quotes them: each in quotation marks, hidden characters shown. */
export const quotedValues = (set: ReplacedSet) => set.values.map((v) => quoteOutside(v))

export interface ConfirmDeps {
  db: Sql
  config: ConfirmSettings
  now: Date
}

/**
 * The person's unused yes for this ask, or the refusal that asks for one: `confirmation_required`
 * carrying the link (`details.confirm_url`) and the question's id, so a client can ask its person.
 */
export async function requirePersonConfirmation(deps: ConfirmDeps, agent: AgentRef, ask: ConfirmationAsk): Promise<ConfirmationRow> {
  const yes = await confirmedFor(deps.db, agent, ask, deps.now)
  if (yes) return yes
  // Committed on its own before the refusal: the person's link must outlive this request's answer.
  const open = await deps.db.begin((tx) => openConfirmation(tx, newId('cfm', deps.now.getTime()), agent, ask, deps.now, CONFIRM_TTL_MS))
  throw new ApiError(
    'confirmation_required',
    ask.action === 'disconnect'
      ? 'Your person must confirm this disconnect: ask them to open confirm_url and confirm, then call again; nothing was removed'
      : 'This write would replace records already in the zone: ask your person to open confirm_url and confirm, then call again; nothing was written',
    { reason: 'person_confirmation', action: ask.action, confirmation_id: open.id, confirm_url: confirmUrl(deps.config, open.id), expires_at: open.expires_at.toISOString() },
  )
}

/** Uses the yes up inside the caller's transaction; false when another request used it first. */
export const spendConfirmation = (sql: Sql, row: ConfirmationRow, now: Date) => useConfirmation(sql, row.id, now)
