// A person signs in as themselves: a member of a workspace, never an API key (API keys are server
// secrets). Used by the consent page, the "Your agents" page and the confirmation page.
// - They give their email; every active membership with it gets a one-time link (15 minutes) through
//   that workspace's email sender, or the deployment's (mail.ts). The answer never says whether the
//   address is a member anywhere, in its words or in its time: it is given before anything is looked
//   up, and the lookup, the links and the mail happen after it (`deliver`, detached from the request).
// - Links mailed to one address are budgeted per address, whatever page asked (fresh consent pages
//   cannot flood a mailbox): past it, asks coalesce into the links already on their way (no new mail,
//   no refusal), and a link opened in the browser that asked returns to the page it asked from. A
//   stranger asking for someone's address cannot refuse that person. Only the asker's own client address
//   and its network (/24, /64) have budgets that refuse (429).
// - The mail carries Portico's own words only: the address, the workspace's name, a fixed purpose and
//   the link; nothing an unauthenticated party chose (a client's name, a URL). The page the link
//   opens says who asks (the agent's name as outside text, and the host its answer goes to).
// - The page that asked sets a cookie whose hash the link keeps: opened in another browser, the link's
//   page says so and names the address and workspace it signs in.
// - Opening the link shows whom it signs in; Continue (a POST, so a mail scanner that fetches links
//   signs nobody in) uses it up and starts a session: a random token in an HttpOnly, SameSite=Lax
//   cookie scoped to /oauth, of which only the hash is kept, for SESSION_TTL_MS.
// - Every form that signs in or acts must come from Portico's own pages (pages.ts `fromElsewhere`:
//   Sec-Fetch-Site, else Origin); forms that act also carry a CSRF token derived from the session.
// - A failed attempt (an unknown, used or expired link; too many links asked for from one client)
//   goes through one throttle, `throttleSignIn`.
import { createHash, createHmac, randomBytes } from 'node:crypto'
import type { Sql } from '../src/db/sql.ts'
import { activeMemberships, deleteSession, insertSession, insertSignIn, purgeExpired, sessionMember, unusedSignIn, useSignInLink } from '../src/db/member-sessions.ts'
import type { Clock } from '../src/clock.ts'
import type { Config } from '../src/config.ts'
import type { Services } from '../src/services.ts'
import type { MemberRole } from '../src/domain/rbac.ts'
import { deriveKey, secretEquals } from '../src/crypto.ts'
import { log } from '../src/logger.ts'
import { notifyValid } from '../src/db/api-keys.ts'
import { addressPrefix } from '../src/client-address.ts'
import { brandingOut, type BrandingView } from '../src/domain/branding.ts'

export const SIGNIN_LINK_TTL_MS = 15 * 60_000
export const SESSION_TTL_MS = 12 * 3600_000
export const SESSION_COOKIE = 'portico_person'
/** At most this many workspaces get a link for one address at once. */
const MAX_MEMBERSHIPS = 10

export interface PeopleDeps {
  config: Config
  db: Sql
  clock: Clock
  services: Services
}

/** A signed-in member. */
export interface Person {
  memberId: string
  tenantId: string
  email: string
  role: MemberRole
  workspace: string
  /** The workspace's branding (its first branded application's), for the pages' header. */
  branding: BrandingView | null
  /** The session token's hash: what the CSRF token is derived from. */
  session: string
}

const hash = (token: string) => createHash('sha256').update(token).digest()

// ---- The throttle ----
// One call site for every failed or costly sign-in attempt, by what it is keyed on (the address asked
// for, the client address), within SIGNIN_BUDGET per 15 minutes. In-process sliding windows: a
// per-process bound, which a shared throttle can replace at this one place.
const WINDOW_MS = 15 * 60_000
type ThrottleKind = 'email' | 'ip' | 'network' | 'failure'
/** Asks from one network (/24, /64) together: this many times one address's. */
const NETWORK_ASKS = 4
/**
 * The windows of one Portico (its configuration): one per process in a deployment, but two servers made
 * in one process (the test suite's) must not spend each other's budgets.
 */
const windows = new WeakMap<Config, Map<string, number[]>>()
const hitsOf = (config: Config) => {
  let hits = windows.get(config)
  if (!hits) windows.set(config, (hits = new Map()))
  return hits
}

/** Seconds until a client address that spent its failed sign-ins may try again; 0 when it may now. Checked
 * before the database is asked, so a guesser past the budget costs no query. */
export function signInFailuresWait(config: Config, ip: string | null, now = Date.now()): number {
  const recent = (hitsOf(config).get(`failure:${ip ?? 'unknown'}`) ?? []).filter((t) => t > now - WINDOW_MS)
  if (recent.length < config.signInBudget.failures) return 0
  // The window frees a try when the oldest of the last `failures` attempts leaves it.
  const freeing = recent[recent.length - config.signInBudget.failures]!
  return Math.max(1, Math.ceil((freeing + WINDOW_MS - now) / 1000))
}

/**
 * Whether a sign-in link is refused unread: its address spent its failures, and the link is not known
 * valid (every unused link is: Portico publishes each one it mails to every process, and each reads the
 * unused ones at start; src/domain/throttle.ts). A neighbour's guesses never refuse a real link.
 */
function throttledLink(deps: PeopleDeps, token: string, ip: string | null): number {
  const wait = signInFailuresWait(deps.config, ip)
  if (wait === 0 || deps.services.throttle?.isKnown(hash(token).toString('hex'))) return 0
  return wait
}

/** A sign-in link refused while its address waits: how long, for Retry-After. */
export interface Throttled {
  throttled: number
}

/** Counts an attempt; false when its window is already full (the attempt is refused). */
export function throttleSignIn(config: Config, kind: ThrottleKind, key: string, now = Date.now()): boolean {
  const b = config.signInBudget
  const limit = kind === 'email' ? b.perEmail : kind === 'ip' ? b.perClient : kind === 'network' ? b.perClient * NETWORK_ASKS : b.failures
  const k = `${kind}:${key}`
  const hits = hitsOf(config)
  const recent = (hits.get(k) ?? []).filter((t) => t > now - WINDOW_MS)
  if (recent.length >= limit) {
    hits.set(k, recent)
    return false
  }
  recent.push(now)
  hits.set(k, recent)
  if (hits.size > 50_000) for (const [key2, ts] of hits) if (ts.every((t) => t <= now - WINDOW_MS)) hits.delete(key2)
  return true
}

// ---- Links ----

export const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}\.[^\s@]{2,63}$/

/** Where a link may lead after sign-in: a page of Portico's own under /oauth. */
export function safeNext(next: string | null): string {
  return next && /^\/oauth\/[\w\-/.~%:?=&]*$/.test(next) && !next.startsWith('//') ? next : '/oauth/agents'
}

/** Why a person signs in, in Portico's own words (the mail says nothing else about who asks). */
export type SignInPurpose = 'consent' | 'agents' | 'confirm'
const PURPOSES: Record<SignInPurpose, string> = {
  consent: 'to answer an agent\'s request for access to your workspace',
  agents: 'to see the agents of your workspace',
  confirm: 'to answer a question an agent of your workspace asks you',
}

/** The cookie of the browser that asked for a link (its hash is kept with the link). */
export const ASKED_COOKIE = 'portico_asked'

/** What asking for a link answers: refused (the client's own budget), or the cookie marking this browser. */
export type Asked = { refused: true } | { refused: false; cookie: string }

/** Mails on their way, detached from the requests that asked (awaited by tests and at a graceful stop). */
const inFlight = new Set<Promise<void>>()

export async function signInMailSettled(): Promise<void> {
  while (inFlight.size) await Promise.all([...inFlight])
}

/**
 * Asks for a sign-in link for every active membership of `email`. Answers at once, the same for a
 * member and a stranger; the lookup and the mail follow (`deliver`). Refused only when this client
 * address asked too often; repeated asks for one address and page coalesce into the links on their way.
 */
export function mailSignInLinks(deps: PeopleDeps, email: string, next: string, ip: string | null, purpose: SignInPurpose, req: Request): Asked {
  if (!throttleSignIn(deps.config, 'ip', ip ?? 'unknown')) return { refused: true }
  // One host holds a whole /64 (or a /24): its addresses together have a budget too.
  if (!throttleSignIn(deps.config, 'network', addressPrefix(ip ?? 'unknown'))) return { refused: true }
  const browser = askedBrowser(req) ?? randomBytes(24).toString('base64url')
  const address = email.trim().toLowerCase()
  const to = safeNext(next)
  // The cookie also names the page this browser asked from: a link opened here returns there (see useSignIn).
  const cookie = `${ASKED_COOKIE}=${browser}.${Buffer.from(to).toString('base64url')}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=${SIGNIN_LINK_TTL_MS / 1000}${deps.config.publicUrl.startsWith('https:') ? '; Secure' : ''}`
  // Per recipient, whatever the page: fresh consent pages cannot flood a mailbox. Past it, asks coalesce
  // into the links already on their way; any of them, opened in the browser that asked, returns to its page.
  if (throttleSignIn(deps.config, 'email', address)) {
    const sending = deliver(deps, address, to, purpose, hash(browser))
      .catch((err: unknown) => log.warn('sign-in link not sent', { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => inFlight.delete(sending))
    inFlight.add(sending)
  }
  return { refused: false, cookie }
}

async function deliver(deps: PeopleDeps, address: string, next: string, purpose: SignInPurpose, askedFrom: Buffer): Promise<void> {
  const rows = await activeMemberships(deps.db, address, MAX_MEMBERSHIPS)
  const now = deps.clock.now()
  for (const m of rows) {
    const token = randomBytes(32).toString('base64url')
    await insertSignIn(deps.db, { token_hash: hash(token), member_id: m.id, tenant_id: m.tenant_id, next_path: next, expires_at: new Date(now.getTime() + SIGNIN_LINK_TTL_MS), asked_from: askedFrom }, now)
    // Known valid on every process before it is opened: a neighbour's guesses never refuse it.
    const hex = hash(token).toString('hex')
    deps.services.throttle?.vouch(hex)
    await notifyValid(deps.db, hex)
    const link = `${deps.config.publicUrl}/oauth/signin/${token}`
    const text =
      `Someone (we hope you) asked to sign in to Portico as ${m.email} in the workspace "${m.workspace}", ${PURPOSES[purpose]}.\n\n` +
      `Open this link to continue (it works once, for 15 minutes). The page it opens shows who is asking:\n${link}\n\n` +
      'If this was not you, ignore this message: nothing happens without the link.'
    const outcome = await deps.services.mailPeople?.({ tenantId: m.tenant_id, to: m.email, subject: `Sign in to Portico (${m.workspace})`, text })
    if (outcome === 'logged') log.info('sign-in link (development: no email sender saved)', { link })
  }
}

/** The asking browser's id in the asked cookie; null when absent or malformed. */
function askedBrowser(req: Request): string | null {
  const held = cookieValue(req, ASKED_COOKIE)?.split('.')[0]
  return held && /^[\w-]{20,100}$/.test(held) ? held : null
}

/** The page the browser last asked for a link from (its asked cookie), when it is one of Portico's own. */
function askedPage(req: Request): string | null {
  const encoded = cookieValue(req, ASKED_COOKIE)?.split('.')[1]
  if (!encoded) return null
  const to = Buffer.from(encoded, 'base64url').toString('utf8')
  return safeNext(to) === to ? to : null
}

export interface PendingSignIn {
  email: string
  workspace: string
  next: string
  /** The link was asked for in another browser than the one opening it (or the cookie is gone). */
  otherBrowser: boolean
}

/** What an unused, unexpired link would sign in; null otherwise (a failed attempt: throttled). */
export async function peekSignIn(deps: PeopleDeps, token: string, ip: string | null, req: Request): Promise<PendingSignIn | null | Throttled> {
  const wait = throttledLink(deps, token, ip)
  if (wait) return { throttled: wait }
  const row = await unusedSignIn(deps.db, hash(token), deps.clock.now())
  if (row) {
    const held = askedBrowser(req)
    const otherBrowser = row.asked_from !== null && (!held || !hash(held).equals(Buffer.from(row.asked_from)))
    return { email: row.email, workspace: row.workspace, next: row.next_path, otherBrowser }
  }
  return throttleSignIn(deps.config, 'failure', ip ?? 'unknown') ? null : { throttled: signInFailuresWait(deps.config, ip) }
}

/** Uses the link up and starts a session; answers the cookie to set and where to go, null (used, expired, unknown), or how long to wait. */
export async function useSignIn(deps: PeopleDeps, token: string, ip: string | null, req?: Request): Promise<{ cookie: string; next: string } | null | Throttled> {
  const wait = throttledLink(deps, token, ip)
  if (wait) return { throttled: wait }
  const now = deps.clock.now()
  const row = await useSignInLink(deps.db, hash(token), now)
  if (!row) {
    deps.services.throttle?.known.forget(hash(token).toString('hex'))
    throttleSignIn(deps.config, 'failure', ip ?? 'unknown')
    return null
  }
  const session = randomBytes(32).toString('base64url')
  await insertSession(deps.db, { token_hash: hash(session), member_id: row.member_id, tenant_id: row.tenant_id, expires_at: new Date(now.getTime() + SESSION_TTL_MS) }, now)
  // Signed in, the person goes back to the page this browser asked from (a link mailed for another ask of
  // theirs, coalesced, still brings them to their own request), else to the link's own page.
  return { cookie: sessionCookie(deps.config, session, SESSION_TTL_MS / 1000), next: (req && askedPage(req)) ?? row.next_path }
}

function sessionCookie(config: Config, value: string, maxAgeS: number): string {
  const secure = config.publicUrl.startsWith('https:') ? '; Secure' : ''
  return `${SESSION_COOKIE}=${value}; Path=/oauth; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(maxAgeS)}${secure}`
}

function cookieValue(req: Request, name: string): string | null {
  for (const part of (req.headers.get('cookie') ?? '').split(';')) {
    const i = part.indexOf('=')
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim()
  }
  return null
}

/** The member signed in on this request, while their session lasts and they are still an active member. */
export async function signedInPerson(deps: PeopleDeps, req: Request): Promise<Person | null> {
  const token = cookieValue(req, SESSION_COOKIE)
  if (!token || !/^[\w-]{20,100}$/.test(token)) return null
  const h = hash(token)
  const row = await sessionMember(deps.db, h, deps.clock.now())
  if (!row) return null
  return { memberId: row.id, tenantId: row.tenant_id, email: row.email, role: row.role, workspace: row.workspace, branding: brandingOut(row.branding), session: h.toString('base64url') }
}

/** Ends the session of this request; answers the cookie that clears it. */
export async function signOut(deps: PeopleDeps, req: Request): Promise<string> {
  const token = cookieValue(req, SESSION_COOKIE)
  if (token) await deleteSession(deps.db, hash(token))
  return sessionCookie(deps.config, '', 0)
}

const csrfKey = (config: Config) => deriveKey(config.secretsKey, 'person-csrf')

/** The CSRF token of a session: forms that act carry it. */
export function csrfToken(config: Config, person: Person): string {
  return createHmac('sha256', csrfKey(config)).update(person.session).digest('base64url')
}

export function csrfValid(config: Config, person: Person, given: string | null): boolean {
  return !!given && secretEquals(given, csrfToken(config, person))
}

/** Forgets used or expired links and ended sessions; returns how many went. */
export async function purgeSignIns(db: Sql, now: Date): Promise<number> {
  return purgeExpired(db, now)
}
