// A person signs in as themselves: a member of a workspace, never an API key (API keys are server
// secrets). Used by the consent page, the "Your agents" page and the confirmation page.
// - They give their email; every active membership with it gets a one-time link (15 minutes) through
//   that workspace's email sender (mail.ts; printed to the log outside production when none is saved).
//   The answer never says whether the address is a member anywhere.
// - Opening the link shows whom it signs in; Continue (a POST, so a mail scanner that fetches links
//   signs nobody in) uses it up and starts a session: a random token in an HttpOnly, SameSite=Lax
//   cookie scoped to /oauth, of which only the hash is kept, for SESSION_TTL_MS.
// - Forms that act carry a CSRF token derived from the session.
// - A failed attempt (an unknown, used or expired link; too many links asked for) goes through one
//   throttle, `throttleSignIn`.
import { createHash, createHmac, randomBytes } from 'node:crypto'
import type { Sql } from '../src/db/sql.ts'
import { activeMemberships, deleteSession, insertSession, insertSignIn, purgeExpired, sessionMember, unusedSignIn, useSignInLink } from '../src/db/member-sessions.ts'
import type { Clock } from '../src/clock.ts'
import type { Config } from '../src/config.ts'
import type { Services } from '../src/services.ts'
import type { MemberRole } from '../src/domain/rbac.ts'
import { deriveKey, secretEquals } from '../src/crypto.ts'
import { log } from '../src/logger.ts'
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
type ThrottleKind = 'email' | 'ip' | 'failure'
const hits = new Map<string, number[]>()

/** Whether a client address has spent its failed sign-ins: checked before the database is asked, so a
 * guesser past the budget costs no query. */
export function signInFailuresSpent(config: Config, ip: string | null, now = Date.now()): boolean {
  const recent = (hits.get(`failure:${ip ?? 'unknown'}`) ?? []).filter((t) => t > now - WINDOW_MS)
  return recent.length >= config.signInBudget.failures
}

/** Counts an attempt; false when its window is already full (the attempt is refused). */
export function throttleSignIn(config: Config, kind: ThrottleKind, key: string, now = Date.now()): boolean {
  const b = config.signInBudget
  const limit = kind === 'email' ? b.perEmail : kind === 'ip' ? b.perClient : b.failures
  const k = `${kind}:${key}`
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

/**
 * Mails a sign-in link to every active membership of `email`. Answers nothing about who is a member;
 * false only when the throttle refused (too many links asked for this address or from this client).
 */
export async function mailSignInLinks(deps: PeopleDeps, email: string, next: string, ip: string | null, purpose: string): Promise<boolean> {
  const address = email.trim().toLowerCase()
  if (!throttleSignIn(deps.config, 'email', address) || !throttleSignIn(deps.config, 'ip', ip ?? 'unknown')) return false
  const rows = await activeMemberships(deps.db, address, MAX_MEMBERSHIPS)
  const now = deps.clock.now()
  for (const m of rows) {
    const token = randomBytes(32).toString('base64url')
    await insertSignIn(deps.db, { token_hash: hash(token), member_id: m.id, tenant_id: m.tenant_id, next_path: safeNext(next), expires_at: new Date(now.getTime() + SIGNIN_LINK_TTL_MS) }, now)
    const link = `${deps.config.publicUrl}/oauth/signin/${token}`
    const text =
      `Someone (we hope you) asked to sign in to Portico as ${m.email} in the workspace "${m.workspace}", ${purpose}.\n\n` +
      `Open this link to continue (it works once, for 15 minutes):\n${link}\n\n` +
      'If this was not you, ignore this message: nothing happens without the link.'
    const outcome = await deps.services.mailPeople?.({ tenantId: m.tenant_id, to: m.email, subject: `Sign in to Portico (${m.workspace})`, text })
    if (outcome === 'logged') log.info('sign-in link (development: no email sender saved)', { link })
  }
  return true
}

export interface PendingSignIn {
  email: string
  workspace: string
  next: string
}

/** What an unused, unexpired link would sign in; null otherwise (a failed attempt: throttled). */
export async function peekSignIn(deps: PeopleDeps, token: string, ip: string | null): Promise<PendingSignIn | null | 'throttled'> {
  if (signInFailuresSpent(deps.config, ip)) return 'throttled'
  const row = await unusedSignIn(deps.db, hash(token), deps.clock.now())
  if (row) return { email: row.email, workspace: row.workspace, next: row.next_path }
  return throttleSignIn(deps.config, 'failure', ip ?? 'unknown') ? null : 'throttled'
}

/** Uses the link up and starts a session; answers the cookie to set and where to go, or null. */
export async function useSignIn(deps: PeopleDeps, token: string, ip: string | null): Promise<{ cookie: string; next: string } | null> {
  if (signInFailuresSpent(deps.config, ip)) return null
  const now = deps.clock.now()
  const row = await useSignInLink(deps.db, hash(token), now)
  if (!row) {
    throttleSignIn(deps.config, 'failure', ip ?? 'unknown')
    return null
  }
  const session = randomBytes(32).toString('base64url')
  await insertSession(deps.db, { token_hash: hash(session), member_id: row.member_id, tenant_id: row.tenant_id, expires_at: new Date(now.getTime() + SESSION_TTL_MS) }, now)
  return { cookie: sessionCookie(deps.config, session, SESSION_TTL_MS / 1000), next: row.next_path }
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
