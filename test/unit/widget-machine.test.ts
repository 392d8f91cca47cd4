// The widget's flow as a state machine (src/widget/machine.ts), under test without a browser:
// - every state meets every event: the screens an event leads to are listed, every other pair leaves
//   the screen as it is, and a `step` notice comes exactly with a screen visit;
// - the runner keeps one effect per key: going back and forth and pressing "Check now" while a check is
//   in flight never starts a second loop following the connection (the double-polling race);
// - with a movable clock: after more than ten minutes of waiting the widget still shows live when the
//   connection goes live, and the close event says success, with the connection and the rail.
import { describe, expect, test } from 'bun:test'
import { effectsOf, initialState, transition, closeDetail, ALMOST_MS, type Conn, type Event, type Notice, type Settings, type State } from '../../src/widget/machine.ts'
import { Runner } from '../../src/widget/runner.ts'
import type { Env, Timers } from '../../src/widget/effects.ts'
import type { Client } from '../../src/widget/api.ts'
import { ApiFailure } from '../../src/widget/api.ts'
import type { ConnectionStatus, DomainCheck } from '../../src/widget/check.ts'
import { STEPS, type Step } from '../../src/widget/types.ts'

const RECORD = { type: 'CNAME' as const, host: 'shop', value: 'edge.example', ttl: 300 }
const CONFLICT = { kind: 'routing' as const, type: 'A', host: 'shop', value: '192.0.2.7', desired: { type: 'CNAME', host: 'shop', value: 'edge.example' }, action: 'remove' as const }

function check(over: Partial<DomainCheck> = {}): DomainCheck {
  const off = { available: false, reason: 'provider_unsupported' }
  return {
    domain: 'shop.example.com',
    apex_domain: 'example.com',
    subdomain: 'shop',
    is_apex: false,
    provider: 'cloudflare',
    provider_name: 'Cloudflare',
    provider_candidates: [],
    setup_type: 'manual',
    supports_automatic: true,
    oauth_available: false,
    domain_connect_available: false,
    domain_connect_provider: null,
    domain_connect: null,
    registered: true,
    nameserver_supported: false,
    wildcard_supported: false,
    cname_flattening: false,
    spf_override_supported: false,
    caa_supported: false,
    social_login_supported: false,
    conflicts: [],
    apex_strategy: 'not_apex',
    rails: { oauth: off, domainConnect: off, apiKey: off, manual: { available: true } },
    recommended_rail: 'manual',
    end_user_automatic: false,
    blocked_reason: null,
    dashboard_url: null,
    nameservers: ['ns1.example.net'],
    desired_records: [RECORD],
    ...over,
  }
}

const conn = (over: Partial<Conn> = {}): Conn => ({
  id: 'con_1',
  domain: 'shop.example.com',
  status: 'pending',
  records: [{ ...RECORD, state: 'waiting' }],
  conflicts: [],
  secure: 'not_served',
  secureError: null,
  errorCode: null,
  errorMessage: null,
  lastCheckedAt: null,
  nextCheckAt: null,
  ...over,
})

const SETTINGS: Settings = {
  domain: null,
  forceManual: false,
  defaultSubdomain: null,
  hostRequired: false,
  subdomains: true,
  disabled: [],
  prefilled: '',
  prefilledList: [],
  hideConfetti: false,
  records: () => undefined,
  resume: () => null,
}

/** Events in order through the pure function; each `(state) => Event` sees the state it applies to. */
function drive(events: (Event | ((s: State) => Event))[], settings = SETTINGS, from = initialState()): State {
  let s = from
  for (const e of events) s = transition(s, typeof e === 'function' ? e(s) : e, settings).state
  return s
}

const pendingId = (s: State) => s.pending?.id ?? -1
const analysed = (c: DomainCheck) => (s: State): Event => ({ type: 'analysed', id: pendingId(s), check: c })
const done = (s: State): Event => ({ type: 'done', id: pendingId(s) })
const typed: Event = { type: 'edit', field: 'domain', value: 'shop.example.com' }
const toManual = [{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(check())] as Event[]
const toProgress = [...toManual, { type: 'added' }, { type: 'committed', conn: conn() }, done] as (Event | ((s: State) => Event))[]

const dcCheck = check({ recommended_rail: 'domainConnect', rails: { ...check().rails, domainConnect: { available: true } }, domain_connect: { provider_id: 'dcp', provider_name: 'DC Provider', sync: true, async: false } })
const keyCheck = check({ recommended_rail: 'apiKey', rails: { ...check().rails, apiKey: { available: true } } })

/** One state per status the widget can be in. */
const FIXTURES: Record<Step, () => State> = {
  INITIAL: () => initialState(),
  ENTER_DOMAIN: () => drive([{ type: 'start' }, typed]),
  DOMAIN_ANALYSIS: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }]),
  DOMAIN_SETUP: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(dcCheck)]),
  IN_PROGRESS: () => drive(toProgress),
  EXISTING_RECORDS: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(check({ conflicts: [CONFLICT] }))]),
  LOGIN: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(keyCheck), { type: 'edit', field: 'credential', value: 'k' }]),
  LOGIN_2FA: () => ({ ...initialState(), step: 'LOGIN_2FA' }),
  MANUAL_CONFIGURATION: () => drive(toManual),
  PROVIDER_MANUAL_SELECTION: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(check({ provider: null, provider_name: null })), { type: 'providers', list: [{ id: 'gandi', name: 'Gandi' }] }]),
  EXIT_WITH_ERROR: () => drive([{ type: 'start' }, typed, { type: 'submitDomain' }, (s) => ({ type: 'failed', id: pendingId(s), failure: new ApiFailure('GenericError', { code: 'internal_error', title: 'boom', details: null }, 500) })]),
  DKIM_SETUP: () => ({ ...initialState(), step: 'DKIM_SETUP' }),
  FINISHED_SUCCESSFULLY: () => drive([...toProgress, { type: 'status', conn: conn({ status: 'live', records: [{ ...RECORD, state: 'found' }] }) }]),
  FINISHED_SUCCESSFULLY_MANUAL: () => drive([...toProgress, { type: 'waitedLong' }]),
  FINISHED_SUCCESSFULLY_LINK_SHARED: () => drive([...toManual, { type: 'share' }, { type: 'committed', conn: conn() }, { type: 'linked', url: 'https://p.example/share/shr_x', expiresAt: '2026-04-01T00:00:00Z' }]),
}

/** Every event, made for the state it meets (commands answer the state's pending command). */
const EVENTS: Record<string, (s: State) => Event> = {
  start: () => ({ type: 'start' }),
  startShared: () => ({ type: 'startShared' }),
  edit: () => ({ type: 'edit', field: 'domain', value: 'other.example.com' }),
  submitDomain: () => ({ type: 'submitDomain' }),
  analysed: (s) => ({ type: 'analysed', id: pendingId(s), check: check() }),
  committed: () => ({ type: 'committed', conn: conn() }),
  status: (s) => ({ type: 'status', conn: conn({ id: s.data.conn?.id ?? 'con_1', status: 'propagating' }) }),
  live: (s) => ({ type: 'status', conn: conn({ id: s.data.conn?.id ?? 'con_1', status: 'live', records: [{ ...RECORD, state: 'found' }] }) }),
  connFailed: (s) => ({ type: 'status', conn: conn({ id: s.data.conn?.id ?? 'con_1', status: 'failed', errorCode: 'propagation_timeout', errorMessage: 'never appeared' }) }),
  shareLoaded: () => ({ type: 'shareLoaded', conn: conn(), help: { steps: null, dashboardUrl: null }, app: 'Acme' }),
  done,
  failed: (s) => ({ type: 'failed', id: pendingId(s), failure: new ApiFailure('GenericError', { code: 'internal_error', title: 'boom', details: null }, 500) }),
  continue: () => ({ type: 'continue' }),
  providers: () => ({ type: 'providers', list: [] }),
  chooseProvider: () => ({ type: 'chooseProvider', id: 'gandi' }),
  help: () => ({ type: 'help', help: { steps: ['a'], dashboardUrl: null } }),
  manualInstead: () => ({ type: 'manualInstead' }),
  startOneClick: () => ({ type: 'startOneClick' }),
  popupBlocked: () => ({ type: 'popupBlocked' }),
  submitKey: () => ({ type: 'submitKey' }),
  added: () => ({ type: 'added' }),
  checkNow: () => ({ type: 'checkNow' }),
  share: () => ({ type: 'share' }),
  linked: () => ({ type: 'linked', url: 'https://p.example/share/shr_y', expiresAt: '2026-04-01T00:00:00Z' }),
  back: () => ({ type: 'back' }),
  retry: () => ({ type: 'retry' }),
  waitedLong: () => ({ type: 'waitedLong' }),
  close: () => ({ type: 'close' }),
}

/** The screen visits each state has (any other event leaves the screen as it is, with no `step` notice). */
const VISITS: Record<Step, Partial<Record<keyof typeof EVENTS, Step>>> = {
  INITIAL: { start: 'ENTER_DOMAIN', startShared: 'MANUAL_CONFIGURATION' },
  ENTER_DOMAIN: { submitDomain: 'DOMAIN_ANALYSIS' },
  DOMAIN_ANALYSIS: { analysed: 'MANUAL_CONFIGURATION', failed: 'EXIT_WITH_ERROR' },
  DOMAIN_SETUP: { manualInstead: 'MANUAL_CONFIGURATION', popupBlocked: 'MANUAL_CONFIGURATION', back: 'ENTER_DOMAIN' },
  IN_PROGRESS: { live: 'FINISHED_SUCCESSFULLY', connFailed: 'MANUAL_CONFIGURATION', back: 'MANUAL_CONFIGURATION', waitedLong: 'FINISHED_SUCCESSFULLY_MANUAL' },
  EXISTING_RECORDS: { continue: 'MANUAL_CONFIGURATION', back: 'ENTER_DOMAIN' },
  LOGIN: { manualInstead: 'MANUAL_CONFIGURATION', back: 'ENTER_DOMAIN' },
  LOGIN_2FA: {},
  MANUAL_CONFIGURATION: { added: 'IN_PROGRESS', back: 'ENTER_DOMAIN' },
  PROVIDER_MANUAL_SELECTION: { chooseProvider: 'MANUAL_CONFIGURATION', back: 'ENTER_DOMAIN' },
  EXIT_WITH_ERROR: { back: 'ENTER_DOMAIN', retry: 'ENTER_DOMAIN' },
  DKIM_SETUP: {},
  FINISHED_SUCCESSFULLY: {},
  FINISHED_SUCCESSFULLY_MANUAL: { live: 'FINISHED_SUCCESSFULLY', connFailed: 'MANUAL_CONFIGURATION', back: 'MANUAL_CONFIGURATION' },
  FINISHED_SUCCESSFULLY_LINK_SHARED: { live: 'FINISHED_SUCCESSFULLY', back: 'MANUAL_CONFIGURATION' },
}

const stepsOf = (notices: Notice[]) => notices.filter((n) => n.kind === 'step').map((n) => (n as Extract<Notice, { kind: 'step' }>).detail.step)

describe('the transition function: every state, every event', () => {
  test('the fixtures are in the state they are named for', () => {
    for (const step of STEPS) expect([step, FIXTURES[step]().step]).toEqual([step, step])
  })

  for (const step of STEPS) {
    test(`${step}: the listed events visit their screen, every other event stays, and nothing is mutated`, () => {
      for (const [name, make] of Object.entries(EVENTS)) {
        const before = FIXTURES[step]()
        const frozen = structuredClone(before)
        const out = transition(before, make(before), SETTINGS)
        // Pure: the state it was given is as it was.
        expect([name, before]).toEqual([name, frozen])
        const want = VISITS[step][name]
        if (want) {
          expect([step, name, out.state.step, stepsOf(out.notices)]).toEqual([step, name, want, [want]])
          expect(out.state.visit).toBe(before.visit + 1)
        } else {
          expect([step, name, out.state.step, stepsOf(out.notices)]).toEqual([step, name, step, []])
          expect(out.state.visit).toBe(before.visit)
        }
        // One connection is followed by one effect, whatever the state.
        expect(effectsOf(out.state).filter((e) => e.kind === 'follow').length).toBeLessThanOrEqual(1)
      }
    })
  }

  test('a closed widget does nothing more and wants no effects', () => {
    for (const step of STEPS) {
      const closed = transition(FIXTURES[step](), { type: 'close' }, SETTINGS).state
      expect(closed.closed).toBe(true)
      expect(effectsOf(closed)).toEqual([])
      for (const make of Object.values(EVENTS)) expect(transition(closed, make(closed), SETTINGS).state).toBe(closed)
    }
  })

  test('success is said once, live from any screen with a connection, and the close detail says it as it stands', () => {
    const live = EVENTS.live!
    for (const step of ['IN_PROGRESS', 'FINISHED_SUCCESSFULLY_MANUAL', 'FINISHED_SUCCESSFULLY_LINK_SHARED'] as const) {
      const s = FIXTURES[step]()
      const out = transition(s, live(s), SETTINGS)
      expect(out.notices.filter((n) => n.kind === 'success')).toHaveLength(1)
      const again = transition(out.state, live(out.state), SETTINGS)
      expect(again.notices.filter((n) => n.kind === 'success')).toHaveLength(0)
      expect(closeDetail(out.state)).toMatchObject({ lastStatus: 'FINISHED_SUCCESSFULLY', success: true, connectionId: 'con_1', rail: 'manual', setupType: 'manual' })
    }
    // Before any connection the close event names none; once one exists, it does, with success false.
    expect(closeDetail(FIXTURES.MANUAL_CONFIGURATION())).toMatchObject({ success: false, connectionId: null, rail: null })
    expect(closeDetail(FIXTURES.FINISHED_SUCCESSFULLY_LINK_SHARED())).toMatchObject({ success: false, connectionId: 'con_1' })
  })

  test('no dead ends: a refused key comes back to the key screen with the key as typed; the records screen has Back', () => {
    const login = FIXTURES.LOGIN()
    const submitted = transition(login, { type: 'submitKey' }, SETTINGS).state
    expect(submitted.pending?.cmd).toEqual({ kind: 'apply', credential: 'k' })
    const refused = transition(submitted, { type: 'failed', id: pendingId(submitted), failure: new ApiFailure('ProviderError', { code: 'ProviderAuthenticationError', title: 'no', details: null }, 422) }, SETTINGS)
    expect([refused.state.step, refused.state.data.reason, refused.state.data.typed.credential]).toEqual(['LOGIN', { code: 'key' }, 'k'])
    expect(refused.notices.some((n) => n.kind === 'error')).toBe(true)
    // The host's own server error (503 provider_server_error) is "could not reach the provider, try again later", not a DNS look-up failure.
    const serverError = transition(submitted, { type: 'failed', id: pendingId(submitted), failure: new ApiFailure('ProviderError', { code: 'service_unavailable', title: 'The DNS provider answered with a server error; try again after Retry-After', details: { provider: 'digitalocean', reason: 'provider_server_error' } }, 503) }, SETTINGS)
    expect(serverError.state.data.reason).toEqual({ code: 'unreachable' })
    // A domain that does not exist is said on the domain field, which keeps what was typed.
    const analysing = FIXTURES.DOMAIN_ANALYSIS()
    const nx = transition(analysing, { type: 'analysed', id: pendingId(analysing), check: check({ blocked_reason: 'not_registered', registered: false }) }, SETTINGS).state
    expect([nx.step, nx.problem, nx.data.typed.domain]).toEqual(['ENTER_DOMAIN', { code: 'not_registered' }, 'shop.example.com'])
    expect(transition(FIXTURES.MANUAL_CONFIGURATION(), { type: 'back' }, SETTINGS).state.step).toBe('ENTER_DOMAIN')
  })

  test('Portico throttled or busy is said as itself, not as the provider\'s or DNS\'s fault: a 429 on "I have added them", a plain 503 on the key, a gateway on one click; a DNS lookup failure and a provider\'s own 5xx keep their words', () => {
    const said = (out: { notices: Notice[] }) => out.notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)
    const fail = (st: State, status: number, details: unknown = null, code = status === 429 ? 'rate_limited' : 'service_unavailable') =>
      transition(st, { type: 'failed', id: pendingId(st), failure: new ApiFailure(status === 429 ? 'RateLimitError' : 'GenericError', { code, title: 't', details }, status) }, SETTINGS)
    const adding = transition(FIXTURES.MANUAL_CONFIGURATION(), { type: 'added' }, SETTINGS).state
    const throttled = fail(adding, 429)
    expect([throttled.state.step, throttled.state.data.reason, said(throttled)]).toEqual(['MANUAL_CONFIGURATION', { code: 'rateLimited' }, ['RateLimitError']])
    const applying = transition(FIXTURES.LOGIN(), { type: 'submitKey' }, SETTINGS).state
    const cases: [number, unknown, string, string][] = [
      [503, null, 'unavailable', 'GenericError'],
      [429, null, 'rateLimited', 'RateLimitError'],
      [503, { resolvers: ['127.0.0.1:53'], setting: 'DNS_RESOLVERS' }, 'dns', 'GenericError'],
      [503, { provider: 'cloudflare', reason: 'provider_server_error' }, 'unreachable', 'ProviderError'],
    ]
    for (const [status, details, reason, code] of cases) {
      const out = fail(applying, status, details)
      expect([status, details, out.state.data.reason, said(out)]).toEqual([status, details, { code: reason }, [code]])
    }
    const starting = transition(FIXTURES.DOMAIN_SETUP(), { type: 'startOneClick' }, SETTINGS).state
    const gateway = fail(starting, 502)
    expect([gateway.state.data.reason, said(gateway)]).toEqual([{ code: 'unavailable' }, ['GenericError']])
  })

  test('the session ended while waiting: Back still shows the records, but nothing asks Portico again (no re-check, share, "Check now" or analysis) and no loop follows', () => {
    const ended = transition(FIXTURES.IN_PROGRESS(), { type: 'sessionEnded' }, SETTINGS).state
    expect(ended.data.sessionEnded).toBe(true)
    expect(effectsOf(ended).filter((e) => e.kind === 'follow')).toEqual([])
    const records = transition(ended, { type: 'back' }, SETTINGS).state
    expect(records.step).toBe('MANUAL_CONFIGURATION')
    for (const from of [ended, records]) {
      for (const type of ['added', 'checkNow', 'share', 'submitDomain', 'submitKey', 'startOneClick', 'retry'] as const) {
        const out = transition(from, { type } as Event, SETTINGS)
        expect([type, out.state.step, out.state.pending, out.notices]).toEqual([type, from.step, null, []])
      }
    }
  })

  test('"Check now" refused for an ended session (before the follow loop noticed): the waiting screen says the session ended, one SessionError, and the loop\'s own 401 after it says nothing more', () => {
    const checking = transition(FIXTURES.IN_PROGRESS(), { type: 'checkNow' }, SETTINGS).state
    const refused = transition(checking, { type: 'failed', id: pendingId(checking), failure: new ApiFailure('SessionError', { code: 'unauthorized', title: 'The credential is not valid', details: null }, 401) }, SETTINGS)
    expect([refused.state.step, refused.state.data.sessionEnded, refused.state.pending]).toEqual(['IN_PROGRESS', true, null])
    expect(refused.notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)).toEqual(['SessionError'])
    expect(transition(refused.state, { type: 'sessionEnded' }, SETTINGS).notices).toEqual([])
  })

  test('the first analysis meeting Portico busy or out of reach says so alike: a JSON 503, a proxy\'s 502 or 504 page; a 500 is something on our side', () => {
    const analysing = FIXTURES.DOMAIN_ANALYSIS()
    const outcome = (f: ApiFailure) => {
      const next = transition(analysing, { type: 'failed', id: pendingId(analysing), failure: f }, SETTINGS).state
      return [next.step, next.problem]
    }
    expect(outcome(new ApiFailure('GenericError', { code: 'service_unavailable', title: 'Busy', details: null }, 503))).toEqual(['EXIT_WITH_ERROR', { code: 'unavailable' }])
    expect(outcome(new ApiFailure('GenericError', { code: 'bad_gateway', title: 'Bad Gateway', details: null }, 502))).toEqual(['EXIT_WITH_ERROR', { code: 'unavailable' }])
    expect(outcome(new ApiFailure('GenericError', { code: 'gateway_timeout', title: 'Gateway Timeout', details: null }, 504))).toEqual(['EXIT_WITH_ERROR', { code: 'unavailable' }])
    expect(outcome(new ApiFailure('GenericError', { code: 'internal_error', title: 'Internal', details: null }, 500))).toEqual(['EXIT_WITH_ERROR', { code: 'generic' }])
  })

  test('"Check now" that met a gateway\'s page is said until a newer check arrives: the loop\'s answer about the same check leaves it', () => {
    const at = '2026-03-01T10:00:00Z'
    const waiting = transition(FIXTURES.IN_PROGRESS(), { type: 'status', conn: conn({ status: 'propagating', lastCheckedAt: at }) }, SETTINGS).state
    const checking = transition(waiting, { type: 'checkNow' }, SETTINGS).state
    const gateway = new ApiFailure('GenericError', { code: 'bad_gateway', title: 'Bad Gateway', details: null }, 502)
    const refused = transition(checking, { type: 'failed', id: pendingId(checking), failure: gateway }, SETTINGS).state
    expect(refused.data.reason).toEqual({ code: 'checkFailed' })
    // The loop gets through with the same check's result (a record found in the way meanwhile): still said.
    const same = transition(refused, { type: 'status', conn: conn({ status: 'propagating', lastCheckedAt: at, conflicts: [] }) }, SETTINGS).state
    expect(same.data.reason).toEqual({ code: 'checkFailed' })
    // A newer check's result: the line goes, the result is what is shown.
    const newer = transition(same, { type: 'status', conn: conn({ status: 'propagating', lastCheckedAt: '2026-03-01T10:01:00Z' }) }, SETTINGS).state
    expect(newer.data.reason).toBeNull()
  })

  test('a connection answer saying live leaves HTTPS unknown until the status says: the connection stays followed', () => {
    const waiting = transition(FIXTURES.IN_PROGRESS(), { type: 'status', conn: conn({ status: 'propagating', secure: 'not_served' }) }, SETTINGS).state
    const live = transition(waiting, { type: 'status', conn: conn({ status: 'live', secure: null, conflicts: null }) }, SETTINGS).state
    expect([live.step, live.data.conn!.secure]).toEqual(['FINISHED_SUCCESSFULLY', null])
    expect(effectsOf(live).map((e) => e.key)).toContain('follow:con_1')
    const told = transition(live, { type: 'status', conn: conn({ status: 'live', secure: 'secured' }) }, SETTINGS).state
    expect(effectsOf(told).map((e) => e.key)).not.toContain('follow:con_1')
  })

  test('before cutover: the certificate on the edge brings the person back to the records, now for step two', () => {
    const issuing = transition(FIXTURES.IN_PROGRESS(), { type: 'status', conn: conn({ status: 'propagating', stage: 'issuing' }) }, SETTINGS).state
    expect(issuing.step).toBe('IN_PROGRESS')
    const routing = transition(issuing, { type: 'status', conn: conn({ status: 'propagating', stage: 'awaiting_routing' }) }, SETTINGS).state
    expect([routing.step, routing.data.conn!.stage]).toEqual(['MANUAL_CONFIGURATION', 'awaiting_routing'])
    // The usual path never leaves the progress screen for the records on its own.
    expect(transition(FIXTURES.IN_PROGRESS(), { type: 'status', conn: conn({ status: 'propagating', stage: null }) }, SETTINGS).state.step).toBe('IN_PROGRESS')
  })

  test('conflicts come from the last verification once the connection is followed, not from the first analysis', () => {
    const s = drive([{ type: 'start' }, typed, { type: 'submitDomain' }, analysed(check({ conflicts: [CONFLICT] })), { type: 'continue' }, { type: 'added' }, { type: 'committed', conn: conn({ conflicts: null }) }])
    expect(s.data.conn!.conflicts).toEqual([CONFLICT])
    const cleared = transition(s, { type: 'status', conn: conn({ conflicts: [] }) }, SETTINGS).state
    expect(cleared.data.conn!.conflicts).toEqual([])
  })
})

// ------------------------------------------------------------------ the runner, with a movable clock

/** Timers on a clock the test moves. */
class FakeTimers implements Timers {
  t = Date.parse('2026-03-01T12:00:00Z')
  private queue: { at: number; fn: () => void; id: number }[] = []
  private ids = 0
  now = () => this.t
  setTimeout = (fn: () => void, ms: number) => {
    const id = ++this.ids
    this.queue.push({ at: this.t + ms, fn, id })
    return id
  }
  clearTimeout = (h: unknown) => {
    this.queue = this.queue.filter((q) => q.id !== h)
  }
  /** Moves the clock, running each timer due on the way (and the work it starts). */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms
    for (;;) {
      await settle()
      this.queue.sort((a, b) => a.at - b.at)
      const next = this.queue[0]
      if (!next || next.at > end) break
      this.queue.shift()
      this.t = next.at
      next.fn()
    }
    this.t = end
    await settle()
  }
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

interface Call {
  method: string
  path: string
  resolve(v: unknown): void
  reject(e: unknown): void
}

/** A server stand-in: every call waits until the test answers it; status long polls are counted while open. */
function fakeApi() {
  const open: Call[] = []
  const log: string[] = []
  let maxStatus = 0
  const api: Client = {
    call(method, path, _body, signal) {
      log.push(`${method} ${path}`)
      return new Promise((resolve, reject) => {
        const c: Call = { method, path, resolve, reject }
        open.push(c)
        const inStatus = () => open.filter((x) => x.path.includes('/status')).length
        maxStatus = Math.max(maxStatus, inStatus())
        signal?.addEventListener('abort', () => {
          const i = open.indexOf(c)
          if (i >= 0) open.splice(i, 1)
          reject(new DOMException('aborted', 'AbortError'))
        })
      })
    },
  }
  const take = (match: (c: Call) => boolean) => {
    const i = open.findIndex(match)
    if (i < 0) throw new Error(`no open call matching; open: ${open.map((c) => `${c.method} ${c.path}`).join(', ')}`)
    return open.splice(i, 1)[0]!
  }
  return { api, open, log, take, maxStatus: () => maxStatus }
}

const statusOf = (over: Partial<ConnectionStatus> = {}): ConnectionStatus => ({
  id: 'con_1',
  domain: 'shop.example.com',
  status: 'propagating',
  rail: 'manual',
  error_code: null,
  error_message: null,
  records: [{ ...RECORD, state: 'waiting' }],
  conflicts: [],
  secure: 'not_served',
  secure_error: null,
  last_checked_at: null,
  next_check_at: null,
  validation_stage: null,
  version: 'v1',
  application: { id: 'app_1', name: 'Acme', branding: null },
  ...over,
})

const connectionAnswer = (status = 'propagating') => ({
  id: 'con_1',
  domain: 'shop.example.com',
  status,
  records: [RECORD],
  error_code: null,
  error_message: null,
  propagation: { records_propagated: [], records_non_propagated: [RECORD] },
  last_checked_at: null,
})

function runner() {
  const timers = new FakeTimers()
  const server = fakeApi()
  const notices: Notice[] = []
  const wake = new EventTarget()
  const env: Env = { api: server.api, timers, applicationId: 'app_1', returnUrl: null, popup: { current: null }, wake }
  const r = new Runner(SETTINGS, env, (n) => notices.push(n), () => undefined)
  return { r, timers, server, notices, wake }
}

/** From the domain field through its analysis (shop.example.com, answered as the manual path). */
async function toAnalysed({ r, server }: Pick<ReturnType<typeof runner>, 'r' | 'server'>) {
  r.dispatch({ type: 'start' })
  r.dispatch({ type: 'edit', field: 'domain', value: 'shop.example.com' })
  r.dispatch({ type: 'submitDomain' })
  await settle()
  server.take((c) => c.path === '/domains:check').resolve(check())
  await settle()
}

/** From the domain field to "I have added them" with the connection created, its re-check still out. */
async function toCreated(t: Pick<ReturnType<typeof runner>, 'r' | 'server'>) {
  const { r, server } = t
  await toAnalysed(t)
  server.take((c) => c.path.startsWith('/providers/')).resolve({ provider: { manual_steps: ['a'], dashboard_url: null } })
  r.dispatch({ type: 'added' })
  await settle()
  server.take((c) => c.method === 'POST' && c.path === '/connections').resolve(connectionAnswer('pending'))
  await settle()
}

/** From the domain field to the waiting screen, answering each call as the server would. */
async function toWaiting(t: ReturnType<typeof runner>) {
  await toCreated(t)
  t.server.take((c) => c.path.endsWith(':recheck')).resolve(connectionAnswer())
  await settle()
}

/** On the waiting screen with the first status read answered (version v1): the loop now long-polls after it. */
async function toFollowing(t: ReturnType<typeof runner>) {
  await toWaiting(t)
  t.server.take((c) => c.path === '/connections/con_1/status').resolve(statusOf({ version: 'v1' }))
  await settle()
}

describe('the runner: one effect per key', () => {
  test('the double-polling race: "Check now" during a poll, and going back and forth, never start a second loop', async () => {
    const t = runner()
    const { r, server } = t
    await toWaiting(t)
    expect(r.state.step).toBe('IN_PROGRESS')
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual(['follow:con_1'])
    // The first status read is answered; the loop now waits on the server (a long poll).
    server.take((c) => c.path === '/connections/con_1/status').resolve(statusOf())
    await settle()
    expect(server.open.filter((c) => c.path.includes('/status'))).toHaveLength(1)
    for (let i = 0; i < 5; i++) {
      r.dispatch({ type: 'checkNow' })
      await settle()
      const recheck = server.open.find((c) => c.path.endsWith(':recheck'))
      recheck?.resolve(connectionAnswer())
      await settle()
      r.dispatch({ type: 'back' })
      await settle()
      server.open.find((c) => c.path.endsWith('/records'))?.resolve({ manual_steps: [], dashboard_url: null })
      r.dispatch({ type: 'added' })
      await settle()
      server.open.find((c) => c.path.endsWith(':recheck'))?.resolve(connectionAnswer())
      await settle()
    }
    // However often the person went back and checked, one request follows the connection.
    expect(server.open.filter((c) => c.path.includes('/status'))).toHaveLength(1)
    expect(server.maxStatus()).toBe(1)
    expect(server.log.filter((l) => l === 'GET /connections/con_1/status')).toHaveLength(1)
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual(['follow:con_1'])
  })

  test('the token held stops reaching the connection while the person waits (getToken now hands out another application\'s or domain\'s token, or the connection was disconnected): the error screen says the setup is wrong, one ConfigurationError naming the connection and applicationId, and nothing more is asked', async () => {
    const t = runner()
    const { r, server, timers, notices } = t
    await toFollowing(t)
    server
      .take((c) => c.path.startsWith('/connections/con_1/status?after=v1'))
      .reject(new ApiFailure('GenericError', { code: 'not_found', title: 'Connection not found', details: null }, 404))
    await settle()
    expect([r.state.step, r.state.problem]).toEqual(['EXIT_WITH_ERROR', { code: 'misconfigured' }])
    const errors = notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail)
    expect(errors.map((e) => e.code)).toEqual(['ConfigurationError'])
    expect(errors[0]!.message).toContain('"con_1"')
    expect(errors[0]!.message).toContain('"app_1"')
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual([])
    const asked = server.log.length
    await timers.advance(120_000)
    expect(server.log.length).toBe(asked)
    // Nothing for the person to retry: the screen's way out is Close (tested in widget.test.ts).
    expect(transition(r.state, { type: 'retry' }, SETTINGS).state.step).toBe('EXIT_WITH_ERROR')
  })

  test('a 403 while following is the error screen once, whose words send the person back to the site: no way back from it, and nothing more is asked', async () => {
    const t = runner()
    const { r, server, timers, notices } = t
    await toWaiting(t)
    server.take((c) => c.path === '/connections/con_1/status').reject(new ApiFailure('AccessDeniedError', { code: 'forbidden', title: 'Forbidden', details: null }, 403))
    await settle()
    expect([r.state.step, r.state.problem]).toEqual(['EXIT_WITH_ERROR', { code: 'forbidden' }])
    expect(notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)).toEqual(['AccessDeniedError'])
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual([])
    r.dispatch({ type: 'retry' })
    await settle()
    const asked = server.log.length
    await timers.advance(120_000)
    expect([r.state.step, server.log.length]).toEqual(['EXIT_WITH_ERROR', asked])
  })

  test('disconnected right after "I have added them" (the re-check answers 404, and so does the follow loop): one ConfigurationError, whichever comes first', async () => {
    for (const first of ['recheck', 'follow'] as const) {
      const t = runner()
      const { r, server, notices } = t
      await toCreated(t)
      const gone = () => new ApiFailure('GenericError', { code: 'not_found', title: 'Connection not found', details: null }, 404)
      const order = first === 'recheck' ? [':recheck', '/status'] : ['/status', ':recheck']
      for (const end of order) {
        server.open.find((c) => c.path.endsWith(end))?.reject(gone())
        await settle()
      }
      expect([first, r.state.step, r.state.problem]).toEqual([first, 'EXIT_WITH_ERROR', { code: 'misconfigured' }])
      expect(notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)).toEqual(['ConfigurationError'])
      expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual([])
    }
  })

  test('a 401 the token could still recover from (revoked before its expiry, getToken failing this once) is retried with back-off, not the session\'s end; a final 401 ends it once', async () => {
    const t = runner()
    const { r, server, timers, notices } = t
    await toWaiting(t)
    const refused = (renewable: boolean) => new ApiFailure('SessionError', { code: 'unauthorized', title: 'The credential is not valid', details: null }, 401, renewable)
    server.take((c) => c.path === '/connections/con_1/status').reject(refused(true))
    await settle()
    expect([r.state.step, r.state.data.sessionEnded, notices.filter((n) => n.kind === 'error')]).toEqual(['IN_PROGRESS', false, []])
    await timers.advance(2_000)
    server.take((c) => c.path === '/connections/con_1/status').resolve(statusOf({ version: 'v2' }))
    await settle()
    expect(r.state.data.sessionEnded).toBe(false)
    server.take((c) => c.path.startsWith('/connections/con_1/status?after=v2')).reject(refused(false))
    await settle()
    expect(r.state.data.sessionEnded).toBe(true)
    expect(notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)).toEqual(['SessionError'])
  })

  test('a 403 met by "Check now" and by the follow loop is one AccessDeniedError, whichever comes first', async () => {
    for (const first of [':recheck', '/status'] as const) {
      const t = runner()
      const { r, server, notices } = t
      await toWaiting(t)
      r.dispatch({ type: 'checkNow' })
      await settle()
      const refused = () => new ApiFailure('AccessDeniedError', { code: 'forbidden', title: 'Forbidden', details: null }, 403)
      for (const end of first === ':recheck' ? [':recheck', '/status'] : ['/status', ':recheck']) {
        server.open.find((c) => c.path.endsWith(end))?.reject(refused())
        await settle()
      }
      expect([first, r.state.step, r.state.problem]).toEqual([first, 'EXIT_WITH_ERROR', { code: 'forbidden' }])
      expect(notices.filter((n) => n.kind === 'error').map((n) => (n as Extract<Notice, { kind: 'error' }>).detail.code)).toEqual(['AccessDeniedError'])
    }
  })

  test('a shared setup that could not load (offline) offers Try again, which loads it again', () => {
    const loading = transition(initialState(), { type: 'startShared' }, SETTINGS).state
    const offline = transition(loading, { type: 'failed', id: pendingId(loading), failure: new ApiFailure('NetworkError', { code: 'network_error', title: 'Failed to fetch', details: null }, 0) }, SETTINGS).state
    expect([offline.step, offline.problem]).toEqual(['EXIT_WITH_ERROR', { code: 'network' }])
    const again = transition(offline, { type: 'retry' }, SETTINGS).state
    expect([again.step, again.pending?.cmd]).toEqual(['MANUAL_CONFIGURATION', { kind: 'loadShare' }])
  })

  test('a shared setup (loadSharedFlow) whose link stops answering while it is open: the link no longer works, said once, and the page stops asking', async () => {
    const timers = new FakeTimers()
    const server = fakeApi()
    const notices: Notice[] = []
    const env: Env = { api: server.api, timers, applicationId: '', returnUrl: null, popup: { current: null }, wake: new EventTarget(), shareToken: 'tok' }
    const r = new Runner(SETTINGS, env, (n) => notices.push(n), () => undefined)
    r.dispatch({ type: 'startShared' })
    await settle()
    server.take((c) => c.path === '/share/tok').resolve({ ...connectionAnswer(), connection_id: 'con_1', manual_steps: [], dashboard_url: null, application_name: 'Acme' })
    await settle()
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual(['follow:con_1'])
    await timers.advance(60_000)
    server.take((c) => c.path === '/share/tok').reject(new ApiFailure('GenericError', { code: 'not_found', title: 'Not found', details: null }, 404))
    await settle()
    expect([r.state.step, r.state.problem]).toEqual(['EXIT_WITH_ERROR', { code: 'linkGone' }])
    expect(notices.filter((n) => n.kind === 'error')).toHaveLength(1)
    const asked = server.log.length
    await timers.advance(120_000)
    expect(server.log.length).toBe(asked)
  })

  test('a shared setup asks for its link once on load; the page then polls at the connection\'s next check, not two seconds later', async () => {
    const timers = new FakeTimers()
    const server = fakeApi()
    const env: Env = { api: server.api, timers, applicationId: '', returnUrl: null, popup: { current: null }, wake: new EventTarget(), shareToken: 'tok' }
    const r = new Runner(SETTINGS, env, () => undefined, () => undefined)
    r.dispatch({ type: 'startShared' })
    await settle()
    const nextCheck = new Date(timers.now() + 30_000).toISOString()
    server.take((c) => c.path === '/share/tok').resolve({ ...connectionAnswer(), connection_id: 'con_1', next_check_at: nextCheck, manual_steps: [], dashboard_url: null, application_name: 'Acme' })
    await settle()
    const reads = () => server.log.filter((l) => l === 'GET /share/tok').length
    expect(reads()).toBe(1)
    await timers.advance(20_000)
    expect(reads()).toBe(1)
    await timers.advance(11_000)
    expect(reads()).toBe(2)
  })

  test('a reload resumes with one status read: the loop then waits after the version it read (no second identical request), and the application\'s name comes with the resume', async () => {
    const timers = new FakeTimers()
    const server = fakeApi()
    const env: Env = { api: server.api, timers, applicationId: 'app_1', returnUrl: null, popup: { current: null }, wake: new EventTarget() }
    const r = new Runner({ ...SETTINGS, resume: () => ({ connectionId: 'con_1', rail: 'manual' }) }, env, () => undefined, () => undefined)
    await toAnalysed({ r, server })
    server.take((c) => c.path === '/connections/con_1/status').resolve(statusOf({ version: 'v7' }))
    await settle()
    expect([r.state.step, r.state.data.app?.name]).toEqual(['IN_PROGRESS', 'Acme'])
    expect(server.log.filter((l) => l.startsWith('GET /connections/con_1/status'))).toEqual(['GET /connections/con_1/status', 'GET /connections/con_1/status?after=v7&wait=8'])
  })

  test('after more than ten minutes of waiting, the widget shows live as soon as the connection goes live', async () => {
    const t = runner()
    const { r, server, timers, notices } = t
    await toFollowing(t)
    // Eleven minutes of long polls that come back with nothing new (each after its 8 s wait).
    for (let elapsed = 0; elapsed < 11 * 60_000; elapsed += 8_000) {
      await timers.advance(8_000)
      const poll = server.take((c) => c.path.startsWith('/connections/con_1/status?after=v1'))
      poll.resolve(statusOf({ version: 'v1' }))
      await settle()
    }
    expect(timers.now() - Date.parse('2026-03-01T12:00:00Z')).toBeGreaterThan(10 * 60_000)
    // After ALMOST_MS the person was told they may leave; the connection is still followed.
    expect(ALMOST_MS).toBeLessThan(10 * 60_000)
    expect(r.state.step).toBe('FINISHED_SUCCESSFULLY_MANUAL')
    expect(r.effects).toContain('follow:con_1')
    server.take((c) => c.path.startsWith('/connections/con_1/status?after=v1')).resolve(statusOf({ status: 'live', version: 'v2', records: [{ ...RECORD, state: 'found' }] }))
    await settle()
    expect(r.state.step).toBe('FINISHED_SUCCESSFULLY')
    expect(notices.filter((n) => n.kind === 'success')).toEqual([{ kind: 'success', detail: { jobId: 'con_1', domain: 'shop.example.com', setupType: 'manual' } }])
    expect(closeDetail(r.state)).toMatchObject({ lastStatus: 'FINISHED_SUCCESSFULLY', success: true, connectionId: 'con_1', rail: 'manual' })
    // Live and HTTPS settled (not served here): nothing is followed any more.
    expect(r.effects.filter((k) => k.startsWith('follow:'))).toEqual([])
  })

  test('when the status endpoint keeps failing, the connection is polled at the server\'s next check', async () => {
    const t = runner()
    const { server, timers, r } = t
    await toWaiting(t)
    for (let i = 0; i < 3; i++) {
      server.take((c) => c.path.startsWith('/connections/con_1/status')).reject(new ApiFailure('NetworkError', { code: 'network_error', title: 'down', details: null }, 0))
      await timers.advance(40_000)
    }
    const next = new Date(timers.now() + 10_000).toISOString()
    server.take((c) => c.path === '/connections/con_1').resolve({ ...connectionAnswer(), next_check_at: next })
    await settle()
    // The next poll waits for the server's next check (10 s), not a fixed interval.
    await timers.advance(9_000)
    expect(server.open.some((c) => c.path === '/connections/con_1')).toBe(false)
    await timers.advance(2_000)
    server.take((c) => c.path === '/connections/con_1').resolve(connectionAnswer('live'))
    await settle()
    expect(r.state.step).toBe('FINISHED_SUCCESSFULLY')
  })

  test('the network back while the connection is polled: "cannot reach" goes at once, not at the connection\'s next check', async () => {
    const t = runner()
    const { server, timers, r, wake } = t
    await toWaiting(t)
    const down = () => new ApiFailure('NetworkError', { code: 'network_error', title: 'down', details: null }, 0)
    for (let i = 0; i < 3; i++) {
      server.take((c) => c.path.startsWith('/connections/con_1/status')).reject(down())
      await timers.advance(40_000)
    }
    // Polled plainly now; the server's next check is a minute away.
    server.take((c) => c.path === '/connections/con_1').resolve({ ...connectionAnswer(), next_check_at: new Date(timers.now() + 60_000).toISOString() })
    await settle()
    await timers.advance(61_000)
    // The network goes: the poll fails, the person is told, the loop backs off.
    server.take((c) => c.path === '/connections/con_1').reject(down())
    await settle()
    expect(r.state.data.unreachable).toBe(true)
    // The browser is back online: the poll goes at once and the notice leaves with its answer.
    wake.dispatchEvent(new Event('wake'))
    await settle()
    await timers.advance(100)
    server.take((c) => c.path === '/connections/con_1').resolve(connectionAnswer())
    await settle()
    expect(r.state.data.unreachable).toBe(false)
  })

  test('the browser offline and back while a long poll is out: the poll\'s answer ends "cannot reach"', async () => {
    const t = runner()
    const { server, r } = t
    await toFollowing(t)
    // The long poll is out; the browser says it is offline (the page's listener), then online again.
    r.dispatch({ type: 'reach', ok: false })
    expect(r.state.data.unreachable).toBe(true)
    // The request outlived the outage and answers with nothing new.
    server.take((c) => c.path.startsWith('/connections/con_1/status?after=v1')).resolve(statusOf({ version: 'v1' }))
    await settle()
    expect(r.state.data.unreachable).toBe(false)
  })

  test('an answer that raced the outage while the browser is still offline does not say "connected again"; the next one after online does', async () => {
    const t = runner()
    const { server, r, wake, timers } = t
    await toFollowing(t)
    const nav = Object.getOwnPropertyDescriptor(globalThis, 'navigator')
    Object.defineProperty(globalThis, 'navigator', { value: { onLine: false }, configurable: true })
    try {
      r.dispatch({ type: 'reach', ok: false })
      server.take((c) => c.path.startsWith('/connections/con_1/status?after=v1')).resolve(statusOf({ version: 'v1' }))
      await settle()
      expect(r.state.data.unreachable).toBe(true)
      await timers.advance(2500)
      ;(globalThis.navigator as { onLine: boolean }).onLine = true
      wake.dispatchEvent(new Event('wake'))
      await settle()
      server.take((c) => c.path.startsWith('/connections/con_1/status?after=v1')).resolve(statusOf({ version: 'v1' }))
      await settle()
      expect(r.state.data.unreachable).toBe(false)
    } finally {
      if (nav) Object.defineProperty(globalThis, 'navigator', nav)
    }
  })

  test('leaving a state cancels its work: a late analysis answer after going back changes nothing', async () => {
    const t = runner()
    const { r, server } = t
    r.dispatch({ type: 'start' })
    r.dispatch({ type: 'edit', field: 'domain', value: 'shop.example.com' })
    r.dispatch({ type: 'submitDomain' })
    await settle()
    const slow = server.take((c) => c.path === '/domains:check')
    r.dispatch({ type: 'close' })
    slow.resolve(check())
    await settle()
    expect(r.state.step).toBe('DOMAIN_ANALYSIS')
    expect(r.effects).toEqual([])
  })
})
