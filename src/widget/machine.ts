// The connect flow as a state machine (the API contract, section 6). Pure: `transition(state, event, settings)`
// answers the next state and the notices for the host (step, fallback, success, error, shared events);
// `effectsOf(state)` answers the work the state needs done (API calls, following the connection, a
// timer), each under a key. The runner (flow.ts) starts an effect when its key appears and cancels it
// when its key goes, so leaving a state cancels its work and one key never runs twice: however often
// the person goes back or presses "Check now", one connection is followed by one loop.
// Invariants:
// - `step` fires on every screen visit, `fallback` at most once per analysis, `success` once per flow;
// - analysis only reads; the connection is created when the person commits to a rail ("I have added
//   them", sharing, a one-click start, a key), or when the records need a value only it can issue;
// - a connection, once it exists, is followed for as long as the widget is open: live is shown
//   whenever it goes live, from any screen;
// - every failure ends on a screen that says what to do next and has a way back; what the person
//   typed stays; no logic looks at translated text (reasons and problems are codes).
import type { ApplicationFace, BlockedReason, Conflict, ConnectionStatus, DomainCheck, RecordState, SecureState } from './check.ts'
import type { DnsRecordIn, FallbackDetail, FallbackReason, Rail, SharedDetail, Step, StepError, SuccessResult, WidgetErrorInfo, StepDetail, ErrorCode } from './types.ts'

/** After this long on the waiting screen the person is told they may leave (FINISHED_SUCCESSFULLY_MANUAL). */
export const ALMOST_MS = 2 * 60 * 1000

/** A proxy's or load balancer's statuses while Portico is out of reach (502, 503, 504). */
export const atGateway = (status: number) => status === 502 || status === 503 || status === 504

/** A failed API call, as the machine sees it: codes only. */
export interface Failure {
  sdkCode: ErrorCode
  envelope: StepError
  status: number
  /** A 401 before the token's expiry while getToken may still give one: not the session's end. */
  renewable?: boolean
}

export interface ConnRecord extends DnsRecordIn {
  state: RecordState
}

/** The connection as the widget knows it (from the status endpoint, or a connection or share answer). */
export interface Conn {
  id: string
  domain: string
  status: 'pending' | 'propagating' | 'live' | 'failed'
  records: ConnRecord[]
  /** Records in the way as of the last verification; null when not known yet (the analysis stands). */
  conflicts: Conflict[] | null
  secure: SecureState | null
  secureError: string | null
  errorCode: string | null
  errorMessage: string | null
  lastCheckedAt: string | null
  nextCheckAt: string | null
  /** Pre-validation's stage (`validation: before_cutover`); null on the usual path. */
  stage?: string | null
  /** The status answer's `version` this was read from (absent when read from another answer): following starts after it. */
  version?: string
}

export interface ManualHelp {
  /** The catalog's steps (English), when the provider is known. */
  steps: string[] | null
  dashboardUrl: string | null
}

export interface ProviderChoice {
  id: string
  name: string
}

/** Why the person is on a screen they did not pick, as a code the screen puts into words. */
export type Reason =
  | { code: 'dns' | 'oneClick' | 'key' | 'unreachable' | 'popup' | 'conflict' | 'generic' | 'checkFailed' | 'network' | 'misconfigured' | 'unavailable' | 'rateLimited' }
  | { code: 'failed'; detail: string | null }

/** What stands between the person and the next step, as a code. */
export type Problem = { code: 'invalid' | 'subdomainRequired' | 'subdomainRefused' | BlockedReason } | { code: 'session' | 'forbidden' | 'network' | 'misconfigured' | 'linkGone' | 'rateLimited' | 'unavailable' | 'generic' }

export type Command =
  | { kind: 'analyse'; domain: string }
  | { kind: 'commit' }
  | { kind: 'added' }
  | { kind: 'recheck' }
  | { kind: 'apply'; credential: string }
  | { kind: 'oneClick'; rail: 'oauth' | 'domainConnect'; managedOnly: boolean }
  | { kind: 'share' }
  | { kind: 'loadShare' }
  /** A page reloaded (or the widget reopened) for a domain whose connection it had committed to. */
  | { kind: 'resume'; connectionId: string }

export interface Data {
  domain: string | null
  check: DomainCheck | null
  conn: Conn | null
  app: ApplicationFace | null
  /** The rail the person committed to. */
  rail: Rail | null
  reason: Reason | null
  /** The one automatic fall-back to the manual records after analysis has happened. */
  fellBack: boolean
  fallbackSent: boolean
  succeeded: boolean
  help: ManualHelp | null
  providers: ProviderChoice[] | null
  chosen: ProviderChoice | null
  shared: boolean
  link: { url: string; expiresAt: string } | null
  /** Where Back leads from the manual records. */
  back: Step | null
  typed: { domain: string; credential: string }
  /** Portico cannot be reached just now (the follow loop's calls fail at the network, or the browser is offline). */
  unreachable: boolean
  /** The widget token ended and no new one could be had: nothing more can be asked of Portico. */
  sessionEnded: boolean
  /** The token held no longer reaches the connection followed (404 or 403): following stops until the person retries. */
  lost: boolean
}

export interface State {
  step: Step
  /** Counts screen visits: a new visit (even to the same step) is a `step` event. */
  visit: number
  data: Data
  problem: Problem | null
  error: StepError | null
  pending: { id: number; cmd: Command } | null
  seq: number
  closed: boolean
}

export type Event =
  | { type: 'start' }
  | { type: 'startShared' }
  | { type: 'edit'; field: 'domain' | 'credential'; value: string }
  | { type: 'submitDomain' }
  | { type: 'analysed'; id: number; check: DomainCheck }
  | { type: 'committed'; conn: Conn }
  | { type: 'status'; conn: Conn; app?: ApplicationFace }
  | { type: 'shareLoaded'; conn: Conn; help: ManualHelp; app: string | null }
  | { type: 'done'; id: number }
  | { type: 'failed'; id: number; failure: Failure }
  | { type: 'continue' }
  | { type: 'providers'; list: ProviderChoice[] }
  | { type: 'chooseProvider'; id: string }
  | { type: 'help'; help: ManualHelp }
  | { type: 'manualInstead' }
  | { type: 'startOneClick' }
  | { type: 'popupBlocked' }
  | { type: 'submitKey' }
  | { type: 'added' }
  | { type: 'checkNow' }
  | { type: 'share' }
  | { type: 'linked'; url: string; expiresAt: string }
  | { type: 'back' }
  | { type: 'retry' }
  | { type: 'waitedLong' }
  | { type: 'close' }
  | { type: 'reach'; ok: boolean }
  | { type: 'sessionEnded' }
  /** The follow loop's token no longer reaches the connection (404, 403): said on the error screen, once. */
  | { type: 'lost'; failure: Failure }
  | { type: 'resumed'; id: number; conn: Conn; app?: ApplicationFace }

export type Notice =
  | { kind: 'step'; detail: StepDetail }
  | { kind: 'fallback'; detail: FallbackDetail }
  | { kind: 'success'; detail: SuccessResult }
  | { kind: 'error'; detail: WidgetErrorInfo }
  | { kind: 'shared'; detail: SharedDetail }
  /** The success screen is disabled: the widget closes itself. */
  | { kind: 'close' }
  /** The connection saved for a reload is no longer one to resume (live, or gone). */
  | { kind: 'forget'; domain: string }

/** The integrator's settings the flow decides by (a pure subset of `open()`'s config). */
export interface Settings {
  domain: string | null
  forceManual: boolean
  defaultSubdomain: string | null
  hostRequired: boolean
  subdomains: boolean
  disabled: readonly Step[]
  /** What the domain field holds when it first shows. */
  prefilled: string
  /** Domains offered under the field (`prefilledDomain` as a list). */
  prefilledList: readonly string[]
  hideConfetti: boolean
  /** The integrator's records for a domain, when it supplied them. */
  records: (domain: string) => DnsRecordIn[] | undefined
  /** The connection this browser committed to for a domain (saved across a reload), if any. */
  resume: (domain: string) => { connectionId: string; rail: Rail } | null
}

export type Effect =
  | { key: string; kind: 'command'; id: number; cmd: Command; data: Data }
  | { key: string; kind: 'follow'; connectionId: string; shared: boolean; since: string | null; shown: Conn }
  | { key: string; kind: 'timer'; ms: number; event: Event }
  | { key: string; kind: 'help'; connectionId: string | null; providerId: string | null }
  | { key: string; kind: 'providers' }

export interface Output {
  state: State
  notices: Notice[]
}

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/

export function normalizeDomain(input: string): string {
  return input.trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/[/?#].*$/, '').replace(/\.$/, '')
}

/** The records an integrator supplied for `domain`: one list for every domain, or a map per domain. */
export function recordsFor(dns: DnsRecordIn[] | Record<string, DnsRecordIn[]> | undefined, domain: string): DnsRecordIn[] | undefined {
  if (!dns) return undefined
  return Array.isArray(dns) ? dns : dns[domain]
}

/** The records in the way of the desired ones (what routing decides on); certificate conflicts stand
 * in the way of HTTPS only, and are shown beside the records, not routed on. */
export const routingConflicts = (list: readonly Conflict[]): Conflict[] => list.filter((c) => c.kind === 'routing')
export const certificateConflicts = (list: readonly Conflict[]) => list.flatMap((c) => (c.kind === 'certificate' ? [c] : []))

/** Why a person lands on a non-automatic screen after analysis (`fallback` event reasons). */
export function fallbackReason(check: Pick<DomainCheck, 'provider' | 'conflicts' | 'rails' | 'supports_automatic'>, forced: boolean): FallbackReason {
  if (!check.provider) return 'unknown_provider'
  if (!forced && routingConflicts(check.conflicts).length && (check.rails.oauth.available || check.rails.domainConnect.available || check.rails.apiKey.available)) return 'conflicts_exceed_tolerance'
  if (!check.supports_automatic) return 'provider_unsupported'
  return 'no_end_user_rail'
}

export function initialState(): State {
  return {
    step: 'INITIAL',
    visit: 0,
    data: {
      domain: null,
      check: null,
      conn: null,
      app: null,
      rail: null,
      reason: null,
      fellBack: false,
      fallbackSent: false,
      succeeded: false,
      help: null,
      providers: null,
      chosen: null,
      shared: false,
      link: null,
      back: null,
      typed: { domain: '', credential: '' },
      unreachable: false,
      sessionEnded: false,
      lost: false,
    },
    problem: null,
    error: null,
    pending: null,
    seq: 0,
    closed: false,
  }
}

/** The records the manual screen shows: the connection's, else the integrator's, else the analysis's plan. */
export function plannedRecords(d: Data, s: Settings): DnsRecordIn[] {
  if (d.conn) return d.conn.records
  return (d.domain ? s.records(d.domain) : undefined) ?? d.check?.desired_records ?? []
}

/** The records in the way: the last verification's once known, else the analysis's. */
export function conflictsNow(d: Data): Conflict[] {
  return d.conn?.conflicts ?? d.check?.conflicts ?? []
}

/** A connection is followed until it is live and its HTTPS settled. */
export function following(d: Data): boolean {
  const c = d.conn
  if (!c) return false
  return !(c.status === 'live' && (c.secure === 'secured' || c.secure === 'not_served' || (d.shared && c.secure === null)))
}

// ------------------------------------------------------------------ helpers over Output

class Out implements Output {
  notices: Notice[] = []
  constructor(public state: State) {}
  set(patch: Partial<State>): this {
    this.state = { ...this.state, ...patch }
    return this
  }
  data(patch: Partial<Data>): this {
    this.state = { ...this.state, data: { ...this.state.data, ...patch } }
    return this
  }
  /** Visits a screen: a `step` notice; the problem and error of the previous screen are left behind. */
  go(step: Step, opts: { problem?: Problem | null; error?: StepError | null } = {}): this {
    this.state = { ...this.state, step, visit: this.state.visit + 1, problem: opts.problem ?? null, error: opts.error ?? null }
    this.notices.push({ kind: 'step', detail: opts.error ? { step, error: opts.error } : { step } })
    return this
  }
  run(cmd: Command): this {
    const id = this.state.seq + 1
    this.state = { ...this.state, seq: id, pending: { id, cmd } }
    return this
  }
  idle(): this {
    this.state = { ...this.state, pending: null }
    return this
  }
  say(n: Notice): this {
    this.notices.push(n)
    return this
  }
}

function disabled(s: Settings, step: Step): boolean {
  return s.disabled.includes(step)
}

/** Leaves for the manual records, saying why, with a `fallback` event. */
function toManual(o: Out, s: Settings, reason: Reason | null, fallback: FallbackReason, message?: string): Out {
  const d = o.state.data
  const back = o.state.step === 'MANUAL_CONFIGURATION' ? d.back : o.state.step
  o.data({ reason, back })
  o.say({ kind: 'fallback', detail: { reason: fallback, ...(d.check?.provider ? { provider: d.check.provider } : {}), screen: 'MANUAL_CONFIGURATION', ...(message ? { message } : {}) } })
  return enterManual(o, s)
}

/** The manual records screen; records only a connection can issue need the connection first. */
function enterManual(o: Out, s: Settings): Out {
  o.go('MANUAL_CONFIGURATION').idle()
  const d = o.state.data
  if (!d.conn && plannedRecords(d, s).some((r) => r.value.includes('<'))) o.run({ kind: 'commit' })
  return o
}

function route(o: Out, s: Settings, check: DomainCheck): Out {
  const forced = s.forceManual
  const rail = forced ? 'manual' : check.recommended_rail
  const inTheWay = routingConflicts(check.conflicts).length
  const clean = inTheWay === 0
  if (rail && rail !== 'manual' && check.rails[rail].available && clean) {
    return o.go(rail === 'apiKey' ? 'LOGIN' : 'DOMAIN_SETUP')
  }
  const reason = fallbackReason(check, forced)
  const screen: Step =
    inTheWay && !disabled(s, 'EXISTING_RECORDS') ? 'EXISTING_RECORDS' : !check.provider && !disabled(s, 'PROVIDER_MANUAL_SELECTION') ? 'PROVIDER_MANUAL_SELECTION' : 'MANUAL_CONFIGURATION'
  o.data({ fallbackSent: true })
  o.say({ kind: 'fallback', detail: { reason, ...(check.provider ? { provider: check.provider } : {}), screen, ...(forced ? { message: 'forceManualSetup' } : {}) } })
  if (screen !== 'MANUAL_CONFIGURATION') return o.go(screen)
  o.data({ reason: inTheWay ? { code: 'conflict' } : null, back: s.domain ? null : 'ENTER_DOMAIN' })
  return enterManual(o, s)
}

function analysed(o: Out, s: Settings, check: DomainCheck): Out {
  const d = o.state.data
  o.idle().data({ app: check.application ?? d.app })
  if (check.is_apex && s.defaultSubdomain) return startAnalysis(o, `${s.defaultSubdomain}.${check.domain}`)
  const problem: Problem | null =
    check.is_apex && s.hostRequired ? { code: 'subdomainRequired' } : !check.is_apex && !s.subdomains ? { code: 'subdomainRefused' } : check.blocked_reason ? { code: check.blocked_reason } : null
  if (problem) return o.data({ typed: { ...d.typed, domain: check.domain } }).go('ENTER_DOMAIN', { problem })
  o.data({ check, domain: check.domain, fallbackSent: false, fellBack: false })
  // The resolver failed: nothing automatic can be trusted, the records can still be added by hand.
  if (check.detection_error === 'resolver') {
    o.data({ back: s.domain ? null : 'ENTER_DOMAIN', reason: { code: 'dns' }, fallbackSent: true })
    o.say({ kind: 'fallback', detail: { reason: fallbackReason(check, false), screen: 'MANUAL_CONFIGURATION', message: 'detection_error' } })
    return enterManual(o, s)
  }
  // A reload after committing: back to where the connection stands, not to the choice of a way.
  const saved = s.resume(check.domain)
  if (saved) return o.data({ rail: saved.rail }).go('IN_PROGRESS').run({ kind: 'resume', connectionId: saved.connectionId })
  return route(o, s, check)
}

function startAnalysis(o: Out, domain: string): Out {
  const d = o.state.data
  o.data({ domain, check: null, conn: null, rail: null, reason: null, help: null, chosen: null, link: null, back: null, typed: { ...d.typed, domain } })
  return o.go('DOMAIN_ANALYSIS').run({ kind: 'analyse', domain })
}

/** Why Portico's own API did not answer, as a reason code. */
function serviceReason(f: Failure): Reason {
  if (f.sdkCode === 'ConfigurationError') return { code: 'misconfigured' }
  if (f.sdkCode === 'NetworkError') return { code: 'network' }
  if (f.status === 429) return { code: 'rateLimited' }
  if (atGateway(f.status)) return { code: 'unavailable' }
  return { code: 'generic' }
}

/** Reasons that are Portico's or the person's (its setup, its DNS lookups, busy, throttled, the network), not the provider's: onError gets the failure's own code. */
const NOT_THE_PROVIDER = new Set<Reason['code']>(['misconfigured', 'dns', 'network', 'rateLimited', 'unavailable'])

/** The words for a failure of a provider-facing call (a key, a one-click start), as a reason code. */
function reasonOf(f: Failure): Reason {
  if (f.sdkCode === 'ConfigurationError') return { code: 'misconfigured' }
  const details = (f.envelope.details ?? {}) as Record<string, unknown>
  if (f.envelope.code === 'ProviderAuthenticationError') return { code: 'key' }
  // The host did not answer, or answered with its own server error (a 5xx: try again later).
  if (details.reason === 'provider_unreachable' || details.reason === 'provider_server_error') return { code: 'unreachable' }
  // Portico's DNS lookups failed (the 503 names the resolvers).
  if (details.resolvers) return { code: 'dns' }
  // The person's network, or Portico itself throttled or busy (a 429, a 502-504 naming no provider):
  // said as such, not blamed on the provider.
  if (f.sdkCode === 'NetworkError' || f.status === 429 || (atGateway(f.status) && !details.provider)) return serviceReason(f)
  if (atGateway(f.status)) return { code: 'unreachable' }
  return { code: 'generic' }
}

function problemOf(f: Failure): Problem {
  if (f.status === 401) return { code: 'session' }
  if (f.envelope.code === 'forbidden' || f.status === 403) return { code: 'forbidden' }
  if (f.status === 429) return { code: 'rateLimited' }
  if (f.sdkCode === 'ConfigurationError') return { code: 'misconfigured' }
  if (f.sdkCode === 'NetworkError') return { code: 'network' }
  // Portico busy or out of reach behind its gateway (a JSON 503, or a proxy's own 502-504 page) is
  // said alike; a gateway status naming a provider is that provider's.
  if (atGateway(f.status) && !(f.envelope.details as Record<string, unknown> | null)?.provider) return { code: 'unavailable' }
  return { code: 'generic' }
}

const errorInfo = (f: Failure, code: ErrorCode = f.sdkCode): Notice => ({ kind: 'error', detail: { code, message: f.envelope.title, details: f.envelope } })

/**
 * The connection (or the share link) is out of reach: the token held no longer reaches it (404, 403),
 * or the link expired. Said once, whether a command or the follow loop found it first; following stops.
 */
function lose(o: Out, f: Failure): Out {
  const d = o.state.data
  if (d.lost || d.sessionEnded) return o.idle()
  o.data({ lost: true })
  if (d.shared && f.status === 404) return o.idle().say(errorInfo(f)).go('EXIT_WITH_ERROR', { problem: { code: 'linkGone' }, error: f.envelope })
  return exit(o, f)
}

/** A failure that cannot be worked around here: the error screen, with a way back. */
function exit(o: Out, f: Failure): Out {
  return o.idle().say(errorInfo(f)).go('EXIT_WITH_ERROR', { problem: problemOf(f), error: f.envelope })
}

function failed(o: Out, s: Settings, cmd: Command, f: Failure): Out {
  const d = o.state.data
  o.idle()
  // A call about the connection that no longer reaches it (a 404, or a 403 once there is one), or a
  // share link gone: said once, as when the follow loop meets it (a resume's 404 only forgets it).
  if (cmd.kind !== 'resume' && ((f.status === 404 && (f.sdkCode === 'ConfigurationError' || d.shared)) || (f.status === 403 && d.conn && !d.shared))) return lose(o, f)
  switch (cmd.kind) {
    case 'analyse': {
      // A name the API refuses as a domain: said on the field, with what was typed.
      if (f.status === 400 && f.envelope.code === 'invalid_request') return o.go('ENTER_DOMAIN', { problem: { code: 'invalid' } })
      return exit(o, f)
    }
    case 'recheck':
      // The session ended under "Check now": the waiting screen says so, as when the follow loop finds it
      // (a token refused before its expiry while getToken failed once is a check that failed, to try again).
      if (f.status === 401 && !f.renewable) return sessionEnded(o)
      // "Check now" failed: the connection is still followed; the waiting screen says so.
      if (f.envelope.code === 'forbidden') return lose(o, f)
      return o.data({ reason: { code: 'checkFailed' } })
    case 'apply':
      if (f.status === 401) return exit(o, f)
      // Portico busy or throttled is said as what it is, with its own code; the rest is the provider's.
      o.say(errorInfo(f, NOT_THE_PROVIDER.has(reasonOf(f).code) ? f.sdkCode : 'ProviderError'))
      // A refused key: the key screen again, with the key as typed, to correct or replace it.
      if (f.envelope.code === 'ProviderAuthenticationError') return o.data({ rail: null, reason: { code: 'key' } }).go('LOGIN')
      return toManual(o.data({ rail: null }), s, reasonOf(f), 'provider_unsupported', f.envelope.code)
    case 'oneClick': {
      if (f.status === 401) return exit(o, f)
      const r = reasonOf(f)
      const own = NOT_THE_PROVIDER.has(r.code)
      o.say(errorInfo(f, own ? f.sdkCode : cmd.rail === 'oauth' ? 'ProviderError' : 'DomainConnectError'))
      return toManual(o.data({ rail: null }), s, r.code === 'unreachable' || own ? r : { code: 'oneClick' }, 'provider_unsupported', f.envelope.code)
    }
    case 'loadShare':
      return exit(o, f)
    case 'resume':
      // The saved connection is gone or out of reach: the way is chosen as if for the first time.
      o.say({ kind: 'forget', domain: d.domain ?? '' }).data({ rail: null })
      if (f.status === 401) return exit(o, f)
      return d.check ? route(o, s, d.check) : exit(o, f)
    default: {
      // After an analysis the records are known: the person gets them with the reason, not a dead end,
      // once (a manual screen that itself fails cannot loop).
      if (d.check && !d.fellBack && f.status !== 401 && f.envelope.code !== 'forbidden' && o.state.step !== 'MANUAL_CONFIGURATION') {
        o.data({ fellBack: true }).say(errorInfo(f))
        return toManual(o, s, serviceReason(f), 'provider_unsupported', f.envelope.code)
      }
      if (o.state.step === 'MANUAL_CONFIGURATION' && f.status !== 401 && f.envelope.code !== 'forbidden' && d.check) {
        return o.say(errorInfo(f)).data({ reason: serviceReason(f) })
      }
      return exit(o, f)
    }
  }
}

/** A connection update, from any screen: live is shown whenever it goes live. */
function statusUpdate(o: Out, s: Settings, conn: Conn, app?: ApplicationFace): Out {
  const d = o.state.data
  const prev = d.conn
  // An answer about no connection or another one (a late one from before going back) changes nothing.
  if (!prev || prev.id !== conn.id) return o
  // An answer that does not say (a connection, not its status) keeps what was known, unless the
  // connection moved on: HTTPS is then unknown until the status says, and the connection stays followed.
  const same = prev.status === conn.status
  const was = new Map(prev.records.map((r) => [`${r.type} ${r.host} ${r.value}`, r.state]))
  // A record in the way stays so until the status says otherwise (a connection answer cannot tell).
  const records = conn.conflicts === null && same ? conn.records.map((r) => (r.state === 'waiting' && was.get(`${r.type} ${r.host} ${r.value}`) === 'conflict' ? { ...r, state: 'conflict' as const } : r)) : conn.records
  o.data({ conn: { ...conn, records, conflicts: conn.conflicts ?? (same ? prev.conflicts : null), secure: conn.secure ?? (same ? prev.secure : null) }, app: app ?? d.app })
  if (conn.status === 'live' && !d.succeeded) return succeed(o, s, conn)
  // Before cutover: the certificate is on the edge, the routing records are asked for now.
  if (conn.stage === 'awaiting_routing' && prev.stage !== conn.stage && o.state.step === 'IN_PROGRESS') return enterManual(o, s)
  // After a failed connection the manual screen shows the records and the reason.
  if (conn.status === 'failed' && prev?.status !== 'failed' && (o.state.step === 'IN_PROGRESS' || o.state.step === 'FINISHED_SUCCESSFULLY_MANUAL')) return failedAgain(o, s, conn)
  // "Check now" failed: said until a newer check's result arrives (the loop's answer about anything
  // else, or the same check again, would hide that the person's click did not go through).
  if (o.state.data.reason?.code === 'checkFailed' && conn.lastCheckedAt !== prev.lastCheckedAt) o.data({ reason: null })
  return o
}

/** The connection is live: the success screen (once per flow), and the host hears of it. */
function succeed(o: Out, s: Settings, conn: Conn): Out {
  const d = o.state.data
  const result: SuccessResult = { jobId: conn.id, domain: conn.domain, setupType: setupTypeOf(d.rail) ?? 'manual' }
  // The connection stays remembered (a reload comes back to this screen) until the widget closes on it.
  o.data({ succeeded: true, reason: null })
  // The success screen disabled: the host hears of success, and the widget closes.
  if (disabled(s, 'FINISHED_SUCCESSFULLY')) return o.say({ kind: 'success', detail: result }).say({ kind: 'close' })
  return o.go('FINISHED_SUCCESSFULLY').idle().say({ kind: 'success', detail: result })
}

/** The records were not found in time: the manual screen, with the records and the reason. */
function failedAgain(o: Out, s: Settings, conn: Conn): Out {
  o.data({ reason: { code: 'failed', detail: conn.errorMessage ?? conn.errorCode } })
  return enterManual(o.data({ back: null }), s)
}

export const setupTypeOf = (rail: Rail | null): 'manual' | 'automatic' | null => (rail === null ? null : rail === 'manual' ? 'manual' : 'automatic')

/** Answers to the command in flight (`pending`); an answer to no command, or to an earlier one, changes nothing. */
type Reply = Extract<Event, { type: 'analysed' | 'committed' | 'shareLoaded' | 'done' | 'failed' | 'linked' | 'resumed' }>

/** What the person does on a screen; each counts only on the screens that offer it. */
type Action = Extract<Event, { type: 'submitDomain' | 'continue' | 'chooseProvider' | 'manualInstead' | 'startOneClick' | 'popupBlocked' | 'submitKey' | 'added' | 'checkNow' | 'share' | 'back' | 'retry' | 'waitedLong' }>

export function transition(state: State, event: Event, s: Settings): Output {
  const o = new Out(state)
  const d = state.data
  if (state.closed) return o
  switch (event.type) {
    case 'analysed':
    case 'committed':
    case 'shareLoaded':
    case 'done':
    case 'failed':
    case 'linked':
    case 'resumed':
      return state.pending ? replied(o, s, state.pending, event) : o
    case 'start':
      if (state.step !== 'INITIAL') return o
      if (s.domain) return startAnalysis(o, normalizeDomain(s.domain))
      return o.data({ typed: { ...d.typed, domain: s.prefilled } }).go('ENTER_DOMAIN')
    case 'startShared':
      if (state.step !== 'INITIAL') return o
      return o.data({ shared: true }).go('MANUAL_CONFIGURATION').run({ kind: 'loadShare' })
    case 'edit':
      return o.data({ typed: { ...d.typed, [event.field]: event.value } })
    case 'status':
      return statusUpdate(o, s, event.conn, event.app)
    case 'providers':
      return o.data({ providers: event.list })
    case 'help':
      return o.data({ help: event.help })
    case 'close':
      return o.set({ closed: true, pending: null })
    case 'reach':
      return d.unreachable === !event.ok ? o : o.data({ unreachable: !event.ok })
    case 'sessionEnded':
      return sessionEnded(o)
    case 'lost':
      return lose(o, event.failure)
    default:
      return acted(o, s, event)
  }
}

/** No token can be had any more: the page says so where it is (once), and nothing more is asked of Portico. */
function sessionEnded(o: Out): Out {
  if (o.state.data.sessionEnded) return o
  return o.data({ sessionEnded: true, unreachable: false }).say({ kind: 'error', detail: { code: 'SessionError', message: 'The widget token has expired and no new one could be had' } })
}

function replied(o: Out, s: Settings, pending: { id: number; cmd: Command }, event: Reply): Out {
  const state = o.state
  const d = state.data
  if ('id' in event && event.id !== pending.id) return o
  switch (event.type) {
    case 'analysed':
      return analysed(o, s, event.check)
    case 'committed':
      if (d.conn) return o
      return o.data({ conn: { ...event.conn, conflicts: event.conn.conflicts ?? d.check?.conflicts ?? null } })
    case 'shareLoaded':
      if (pending.cmd.kind !== 'loadShare') return o
      o.data({ conn: event.conn, help: event.help, app: event.app ? { id: '', name: event.app, branding: null } : d.app, domain: event.conn.domain }).idle()
      if (event.conn.status === 'live') return statusUpdate(o, s, event.conn)
      if (event.conn.status === 'failed') o.data({ reason: { code: 'failed', detail: event.conn.errorMessage ?? event.conn.errorCode } })
      return o
    case 'done': {
      const cmd = pending.cmd
      o.idle()
      if (cmd.kind === 'added' || cmd.kind === 'recheck') return o.data({ reason: d.reason?.code === 'checkFailed' ? null : d.reason })
      if (cmd.kind === 'apply' || cmd.kind === 'oneClick') return state.step === 'IN_PROGRESS' || d.succeeded ? o : o.go('IN_PROGRESS')
      return o
    }
    case 'failed':
      return failed(o, s, pending.cmd, event.failure)
    case 'linked': {
      if (pending.cmd.kind !== 'share' || !d.conn) return o
      const detail: SharedDetail = { url: event.url, expiresAt: event.expiresAt, domain: d.conn.domain, connectionId: d.conn.id }
      return o.idle().data({ link: { url: event.url, expiresAt: event.expiresAt } }).say({ kind: 'shared', detail }).go('FINISHED_SUCCESSFULLY_LINK_SHARED')
    }
    case 'resumed': {
      o.idle().data({ conn: event.conn, app: event.app ?? d.app })
      if (event.conn.status === 'live') return succeed(o, s, event.conn)
      if (event.conn.status === 'failed') return failedAgain(o, s, event.conn)
      return o
    }
  }
}

/** Actions that ask Portico something: none once the session has ended (no token can be had). */
const ASKING = new Set<Action['type']>(['submitDomain', 'startOneClick', 'submitKey', 'added', 'checkNow', 'share', 'retry'])

function acted(o: Out, s: Settings, event: Action): Out {
  const state = o.state
  const d = state.data
  if (d.sessionEnded && ASKING.has(event.type)) return o
  switch (event.type) {
    case 'submitDomain': {
      if (state.step !== 'ENTER_DOMAIN') return o
      const domain = normalizeDomain(d.typed.domain)
      if (!DOMAIN_RE.test(domain)) return o.go('ENTER_DOMAIN', { problem: { code: 'invalid' } })
      return startAnalysis(o, domain)
    }
    case 'continue': {
      if (state.step !== 'EXISTING_RECORDS' || !d.check) return o
      o.data({ reason: { code: 'conflict' }, back: 'EXISTING_RECORDS' })
      if (!d.check.provider && !disabled(s, 'PROVIDER_MANUAL_SELECTION')) return o.go('PROVIDER_MANUAL_SELECTION')
      return enterManual(o, s)
    }
    case 'chooseProvider': {
      if (state.step !== 'PROVIDER_MANUAL_SELECTION') return o
      const chosen = d.providers?.find((p) => p.id === event.id) ?? null
      o.data({ chosen, help: null, back: 'PROVIDER_MANUAL_SELECTION', reason: routingConflicts(d.check?.conflicts ?? []).length ? { code: 'conflict' } : null })
      return enterManual(o, s)
    }
    case 'manualInstead':
      if (state.step !== 'DOMAIN_SETUP' && state.step !== 'LOGIN') return o
      return toManual(o.idle(), s, null, 'no_end_user_rail', 'chosen_by_user')
    case 'startOneClick': {
      if (state.step !== 'DOMAIN_SETUP' || !d.check || state.pending) return o
      const rail = d.check.recommended_rail === 'oauth' ? 'oauth' : 'domainConnect'
      return o.data({ rail }).run({ kind: 'oneClick', rail, managedOnly: d.check.rails.domainConnect.caveat === 'managed_only' })
    }
    case 'popupBlocked':
      if (state.step !== 'DOMAIN_SETUP') return o
      o.say({ kind: 'error', detail: { code: 'PopupBlockedError', message: 'The browser blocked the provider window' } })
      return toManual(o.data({ rail: null }), s, { code: 'popup' }, 'provider_unsupported', 'popup_blocked')
    case 'submitKey':
      if (state.step !== 'LOGIN' || state.pending || !d.typed.credential.trim()) return o
      return o.data({ rail: 'apiKey', reason: null }).run({ kind: 'apply', credential: d.typed.credential.trim() })
    case 'added':
      if (state.step !== 'MANUAL_CONFIGURATION' || (state.pending && state.pending.cmd.kind !== 'commit')) return o
      return o.data({ rail: d.rail ?? 'manual', reason: null, fellBack: false }).go('IN_PROGRESS').run({ kind: 'added' })
    case 'checkNow':
      if ((state.step !== 'IN_PROGRESS' && state.step !== 'FINISHED_SUCCESSFULLY_MANUAL') || state.pending || !d.conn) return o
      return o.run({ kind: 'recheck' })
    case 'share':
      if (state.step !== 'MANUAL_CONFIGURATION' || d.shared || state.pending) return o
      // Handing the records to whoever runs the DNS is the manual rail.
      return o.data({ rail: d.rail ?? 'manual' }).run({ kind: 'share' })
    case 'back':
      return back(o, s)
    case 'retry':
      if (state.step !== 'EXIT_WITH_ERROR' || !canRetry(state)) return o
      return retry(o, s)
    case 'waitedLong':
      if (state.step !== 'IN_PROGRESS') return o
      return o.go('FINISHED_SUCCESSFULLY_MANUAL')
  }
}

/**
 * Problems nobody can retry from the error screen: an ended session, the integrator's setup, a share
 * link gone, a setup started for another domain (its words send the person back to the site).
 */
const FINAL = new Set<Problem['code']>(['session', 'misconfigured', 'linkGone', 'forbidden'])

/** Whether the error screen offers a way back. */
export function canRetry(state: State): boolean {
  return !(state.problem && FINAL.has(state.problem.code))
}

/** From the error screen: a shared setup loaded again, the records once a connection exists, else the analysis again or the domain field. */
function retry(o: Out, s: Settings): Out {
  const d = o.state.data
  o.data({ lost: false })
  // A shared setup that could not load (offline, say) loads again.
  if (d.shared && !d.conn) return o.go('MANUAL_CONFIGURATION').run({ kind: 'loadShare' })
  if (d.conn) return enterManual(o, s)
  if (s.domain && d.domain) return startAnalysis(o, d.domain)
  return o.go('ENTER_DOMAIN')
}

function back(o: Out, s: Settings): Out {
  const state = o.state
  const d = state.data
  switch (state.step) {
    case 'MANUAL_CONFIGURATION': {
      if (d.shared || !d.back) return o
      const to = d.back
      o.idle().data({ reason: null })
      if (to === 'ENTER_DOMAIN') return o.go('ENTER_DOMAIN')
      return o.go(to)
    }
    case 'IN_PROGRESS':
    case 'FINISHED_SUCCESSFULLY_MANUAL':
    case 'FINISHED_SUCCESSFULLY_LINK_SHARED':
      return enterManual(o.data({ reason: null }), s)
    case 'EXISTING_RECORDS':
    case 'PROVIDER_MANUAL_SELECTION':
    case 'DOMAIN_SETUP':
    case 'LOGIN':
      if (s.domain) return o
      return o.idle().go('ENTER_DOMAIN')
    case 'EXIT_WITH_ERROR':
      return retry(o, s)
    default:
      return o
  }
}

/** The work a state needs done, each under a key (see the runner). */
export function effectsOf(state: State): Effect[] {
  if (state.closed) return []
  const d = state.data
  const out: Effect[] = []
  if (state.pending) out.push({ key: `command:${state.pending.id}`, kind: 'command', id: state.pending.id, cmd: state.pending.cmd, data: d })
  if (d.conn && following(d) && !d.sessionEnded && !d.lost) out.push({ key: `follow:${d.conn.id}`, kind: 'follow', connectionId: d.conn.id, shared: d.shared, since: d.conn.version ?? null, shown: d.conn })
  if (state.step === 'IN_PROGRESS') out.push({ key: `timer:almost:${state.visit}`, kind: 'timer', ms: ALMOST_MS, event: { type: 'waitedLong' } })
  if (state.step === 'MANUAL_CONFIGURATION' && !d.help && !d.shared) {
    const providerId = d.chosen?.id ?? d.check?.provider ?? null
    out.push({ key: `help:${d.conn?.id ?? ''}:${providerId ?? ''}`, kind: 'help', connectionId: d.conn?.id ?? null, providerId })
  }
  if (state.step === 'PROVIDER_MANUAL_SELECTION' && !d.providers) out.push({ key: 'providers', kind: 'providers' })
  return out
}

/** The `close` event's detail as the state stands. */
export function closeDetail(state: State) {
  const d = state.data
  return {
    lastStatus: state.step,
    ...(state.error ? { error: state.error } : {}),
    domain: d.conn?.domain ?? d.domain,
    success: d.conn?.status === 'live',
    setupType: d.conn?.status === 'live' ? (setupTypeOf(d.rail) ?? 'manual') : null,
    provider: d.check?.provider ?? null,
    connectionId: d.conn?.id ?? null,
    rail: d.conn ? d.rail : null,
  }
}

// ------------------------------------------------------------------ answers into the machine's terms

const keyOf = (r: { type: string; host: string }) => `${r.type.toUpperCase()} ${r.host.toLowerCase()}`

/** A connection answer (`POST /connections`, `:recheck`, `GET /connections/{id}`). */
export function connFromConnection(c: {
  id: string
  domain: string
  status: Conn['status']
  records: DnsRecordIn[]
  error_code: string | null
  error_message: string | null
  propagation: { records_propagated: { type: string; host: string; value: string }[] }
  last_checked_at: string | null
  next_check_at?: string | null
  validation_stage?: string | null
}): Conn {
  const found = new Set(c.propagation.records_propagated.map((r) => `${keyOf(r)} ${r.value}`))
  return {
    id: c.id,
    domain: c.domain,
    status: c.status,
    records: c.records.map((r) => ({ ...r, state: c.status === 'live' || found.has(`${keyOf(r)} ${r.value}`) ? 'found' : 'waiting' })),
    conflicts: null,
    secure: null,
    secureError: null,
    errorCode: c.error_code,
    errorMessage: c.error_message,
    lastCheckedAt: c.last_checked_at,
    nextCheckAt: c.next_check_at ?? null,
    stage: c.validation_stage,
  }
}

/** The status endpoint's answer (`GET /connections/{id}/status`). */
export function connFromStatus(s: ConnectionStatus): Conn {
  return {
    id: s.id,
    domain: s.domain,
    status: s.status,
    records: s.records.map(({ state, ...r }) => ({ ...r, state })),
    conflicts: s.conflicts,
    secure: s.secure,
    secureError: s.secure_error,
    errorCode: s.error_code,
    errorMessage: s.error_message,
    lastCheckedAt: s.last_checked_at,
    nextCheckAt: s.next_check_at,
    stage: s.validation_stage,
    version: s.version,
  }
}
