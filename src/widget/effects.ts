// The machine's effects (machine.ts `effectsOf`), done: API calls, following a connection, timers.
// Each runs under an AbortSignal the runner aborts when the state no longer wants it; an aborted
// effect says nothing more. Nothing here touches the page except the provider window the person
// opened with their click (`env.popup`). Time comes from `env.timers`, so tests move it.
import { ApiFailure, isAbort, notTheTokensApplication, notTheTokensConnection, type Client } from './api.ts'
import { atGateway, connFromConnection, connFromStatus, type Command, type Conn, type Data, type Effect, type Event, type ManualHelp } from './machine.ts'
import type { ConnectionStatus } from './check.ts'
import type { OpenConfig } from './types.ts'

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
  now(): number
}

export const browserTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
  now: () => Date.now(),
}

export interface Env {
  api: Client
  timers: Timers
  applicationId: string
  userId?: string
  dnsRecords?: OpenConfig['dnsRecords']
  validation?: OpenConfig['validation']
  /** The share link's token, on a share page. */
  shareToken?: string
  /** Portico's page that closes the provider's window when it comes back. */
  returnUrl: string | null
  /** The provider window the person's click opened, if any. */
  popup: { current: { location: { href: string }; close(): void } | null }
  /** Fires `wake` when waiting is no longer worth it (the browser is back online): follow loops try at once. */
  wake?: EventTarget
}

/** Seconds a status request may wait on the server for a change. */
export const LONG_POLL_S = 8
/** Polling when long polling is not answered: at the next check, within these bounds. */
const POLL_MIN_MS = 2000
const POLL_MAX_MS = 60_000
/** Retry after failures: doubling from 2 s up to 30 s. */
const RETRY_MAX_MS = 30_000

/** Waits `ms`, or less when `wake` fires; rejects when `signal` aborts. */
export function sleep(timers: Timers, ms: number, signal: AbortSignal, wake?: EventTarget): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new DOMException('aborted', 'AbortError'))
    const done = () => {
      timers.clearTimeout(h)
      signal.removeEventListener('abort', stop)
      wake?.removeEventListener('wake', done)
      resolve()
    }
    const h = timers.setTimeout(done, ms)
    const stop = () => {
      timers.clearTimeout(h)
      wake?.removeEventListener('wake', done)
      reject(new DOMException('aborted', 'AbortError'))
    }
    signal.addEventListener('abort', stop, { once: true })
    wake?.addEventListener('wake', done, { once: true })
  })
}

/** Portico's API did not answer at all (the network, or a gateway in front of it). */
const unreachable = (f: ApiFailure) => f.sdkCode === 'NetworkError' || atGateway(f.status)

/**
 * Tells the machine when Portico stops answering (once until it answers again) and each time it
 * answers: the browser's own "offline" also marks it unreachable, behind this loop's back (the loop's
 * request may well outlive the outage), so an answer always says so (unless the browser still says
 * it is offline); the machine ignores the repeats.
 */
function reachability(send: (e: Event) => void) {
  let down = false
  return (ok: boolean) => {
    // An answer that raced the outage does not mean it is over: the browser's 'online' wakes the loop.
    if ((!ok && down) || (ok && globalThis.navigator?.onLine === false)) return
    down = !ok
    send({ type: 'reach', ok })
  }
}

const failureOf = (err: unknown) =>
  err instanceof ApiFailure ? err : new ApiFailure('GenericError', { code: 'internal_error', title: String((err as Error)?.message ?? err), details: null }, 0)

/** Until when a plain poll waits: the server's next check, within bounds. */
export function pollDelay(conn: Conn | null, now: number): number {
  const next = conn?.nextCheckAt ? Date.parse(conn.nextCheckAt) - now + 500 : POLL_MIN_MS
  return Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, next))
}

function sharePath(env: Env): string {
  return `/share/${encodeURIComponent(env.shareToken ?? '')}`
}

/** A share answer (`GET /share/{token}`) as a connection. */
function connFromShare(r: any): Conn {
  return connFromConnection({ ...r, id: r.connection_id })
}

export async function runEffect(effect: Effect, env: Env, signal: AbortSignal, send: (e: Event) => void): Promise<void> {
  // Effects start after the transition that asked for them has finished.
  await Promise.resolve()
  if (signal.aborted) return
  switch (effect.kind) {
    case 'command':
      return command(effect.id, effect.cmd, effect.data, env, signal, send)
    case 'follow':
      return effect.shared ? followShare(effect.shown, env, signal, send) : follow(effect.connectionId, effect.since, env, signal, send)
    case 'timer':
      try {
        await sleep(env.timers, effect.ms, signal)
        send(effect.event)
      } catch {
        // cancelled with its state
      }
      return
    case 'help':
      return send({ type: 'help', help: await help(effect.connectionId, effect.providerId, env, signal) })
    case 'providers': {
      let list: { id: string; name: string }[] = []
      try {
        list = (await env.api.call('GET', '/providers?fields=names', undefined, signal)).providers
      } catch (err) {
        if (isAbort(err)) return
        // Without the catalog the person still gets "another provider" and the generic steps.
      }
      return send({ type: 'providers', list })
    }
  }
}

/** The manual screen's help: the provider's steps and dashboard, from the connection or its catalog entry alone. */
async function help(connectionId: string | null, providerId: string | null, env: Env, signal: AbortSignal): Promise<ManualHelp> {
  try {
    if (connectionId) {
      const r = await env.api.call('GET', `/connections/${connectionId}/records`, undefined, signal)
      return { steps: providerId ? r.manual_steps : null, dashboardUrl: r.dashboard_url ?? null }
    }
    if (providerId) {
      const p = (await env.api.call('GET', `/providers/${encodeURIComponent(providerId)}`, undefined, signal)).provider
      return { steps: p.manual_steps?.length ? p.manual_steps : null, dashboardUrl: p.dashboard_url ?? null }
    }
  } catch (err) {
    if (isAbort(err)) throw err
  }
  return { steps: null, dashboardUrl: null }
}

/**
 * A POST naming the widget's application (and its validation): a 404 means the token is another
 * application's, the integrator's setup, said as a ConfigurationError (`notTheTokensApplication`).
 */
function forApplication(env: Env, path: string, body: Record<string, unknown>, signal: AbortSignal): Promise<any> {
  const full = { ...body, application_id: env.applicationId, ...(env.validation ? { validation: env.validation } : {}) }
  return env.api.call('POST', path, full, signal).catch((err: unknown) => Promise.reject(notTheTokensApplication(err, env.applicationId)))
}

async function command(id: number, cmd: Command, data: Data, env: Env, signal: AbortSignal, send: (e: Event) => void): Promise<void> {
  let conn = data.conn
  /** The connection, created now if the person had none yet (idempotent for an open one). */
  const ensure = async (): Promise<Conn> => {
    if (conn) return conn
    const domain = data.domain!
    const records = env.dnsRecords ? (Array.isArray(env.dnsRecords) ? env.dnsRecords : env.dnsRecords[domain]) : undefined
    const created = await forApplication(env, '/connections', { domain, ...(env.userId ? { end_user_ref: env.userId } : {}), ...(records ? { records } : {}) }, signal)
    conn = connFromConnection(created)
    send({ type: 'committed', conn })
    return conn
  }
  try {
    switch (cmd.kind) {
      case 'analyse': {
        const check = await forApplication(env, '/domains:check', { domain: cmd.domain }, signal)
        return send({ type: 'analysed', id, check })
      }
      case 'commit':
        await ensure()
        break
      case 'added':
      case 'recheck': {
        // "I have added them" re-checks first: this revives a failed connection, then it is followed.
        const path = data.shared ? `${sharePath(env)}:recheck` : `/connections/${(await ensure()).id}:recheck`
        const r = await env.api.call('POST', path, {}, signal)
        send({ type: 'status', conn: data.shared ? connFromShare(r) : connFromConnection(r) })
        break
      }
      case 'apply': {
        const c = await ensure()
        await env.api.call('POST', `/connections/${c.id}/apply`, { credential: cmd.credential }, signal)
        break
      }
      case 'oneClick': {
        const popup = env.popup.current
        try {
          const c = await ensure()
          const ret = env.returnUrl ? (cmd.rail === 'oauth' ? { return_url: env.returnUrl } : { redirect_uri: env.returnUrl }) : {}
          const path = cmd.rail === 'oauth' ? 'oauth:start' : 'domainconnect:start'
          // A provider offering only the managed Domain Connect rail is asked for it; its consent page opens.
          const r = await env.api.call('POST', `/connections/${c.id}/${path}`, { ...(cmd.managedOnly ? { rail: 'async' } : {}), ...ret }, signal)
          if (popup) popup.location.href = r.apply_url ?? r.consent_url ?? r.authorize_url
        } catch (err) {
          popup?.close()
          throw err
        }
        break
      }
      case 'share': {
        const c = await ensure()
        const r = await env.api.call('POST', `/connections/${c.id}/share`, {}, signal)
        return send({ type: 'linked', url: r.url, expiresAt: r.expires_at })
      }
      case 'resume': {
        const r = (await env.api.call('GET', `/connections/${encodeURIComponent(cmd.connectionId)}/status`, undefined, signal)) as ConnectionStatus
        return send({ type: 'resumed', id, conn: connFromStatus(r), app: r.application })
      }
      case 'loadShare': {
        const r = await env.api.call('GET', sharePath(env), undefined, signal)
        return send({ type: 'shareLoaded', conn: connFromShare(r), help: { steps: r.manual_steps?.length ? r.manual_steps : null, dashboardUrl: r.dashboard_url ?? null }, app: r.application_name ?? null })
      }
    }
    send({ type: 'done', id })
  } catch (err) {
    if (isAbort(err) || signal.aborted) return
    const f = failureOf(err)
    // A call about the connection answered 404: the token no longer reaches it, as when following it.
    const lost = conn && !data.shared && cmd.kind !== 'resume' && f.status === 404 && f.sdkCode !== 'ConfigurationError'
    send({ type: 'failed', id, failure: lost ? notTheTokensConnection(f, conn!.id, env.applicationId) : f })
  }
}

/**
 * Follows a connection for as long as the state wants it: long polling `GET /connections/{id}/status`
 * (each answer comes when something changed), and when that is not answered, plain polls of the
 * connection at the server's next check. Failures are retried with back-off; one loop per connection.
 */
async function follow(id: string, since: string | null, env: Env, signal: AbortSignal, send: (e: Event) => void): Promise<void> {
  // After the version already shown (a resume read the status): the first call waits for a change.
  let version: string | null = since
  let failures = 0
  let last: Conn | null = null
  let polled = false
  /** The last call failed and its back-off was slept (or cut short by the browser coming back online). */
  let retrying = false
  const reach = reachability(send)
  try {
    for (;;) {
      try {
        if (failures < 3) {
          const q = version ? `?after=${encodeURIComponent(version)}&wait=${LONG_POLL_S}` : ''
          const started = env.timers.now()
          const s = (await env.api.call('GET', `/connections/${id}/status${q}`, undefined, signal)) as ConnectionStatus
          failures = 0
          retrying = false
          reach(true)
          if (s.version !== version) {
            version = s.version
            last = connFromStatus(s)
            send({ type: 'status', conn: last, app: s.application })
          } else if (env.timers.now() - started < 1000) {
            // Answered at once with nothing new: the wait was not honoured on the way; poll at the next check.
            await sleep(env.timers, pollDelay(last, env.timers.now()), signal, env.wake)
          }
        } else {
          // The status endpoint keeps failing: plain polls of the connection, at the server's next check.
          // (not after a failure: its back-off was the wait, and a second one would keep a person whose
          // network came back looking at "cannot reach" until the connection's next check)
          if (polled && !retrying) await sleep(env.timers, pollDelay(last, env.timers.now()), signal, env.wake)
          polled = true
          last = connFromConnection(await env.api.call('GET', `/connections/${id}`, undefined, signal))
          retrying = false
          reach(true)
          send({ type: 'status', conn: last })
          // Every tenth poll tries the long poll again.
          failures = failures >= 12 ? 0 : failures + 1
        }
      } catch (err) {
        if (isAbort(err) || signal.aborted) return
        const f = failureOf(err)
        // The token ended and no new one could be had: nothing can be followed; the screen says so. A
        // token refused before its expiry (revoked) while getToken failed this once is asked again.
        if (f.status === 401 && !f.renewable) return send({ type: 'sessionEnded' })
        // The token held no longer reaches the connection (another application's or domain's, or the
        // connection was disconnected): following cannot go on, and the page says so rather than go stale.
        if (f.status === 404) return send({ type: 'lost', failure: notTheTokensConnection(f, id, env.applicationId) })
        if (f.status === 403) return send({ type: 'lost', failure: f })
        if (unreachable(f)) reach(false)
        failures++
        await sleep(env.timers, Math.min(RETRY_MAX_MS, 1000 * 2 ** Math.min(failures, 5)), signal, env.wake)
        retrying = true
      }
    }
  } catch {
    // aborted while sleeping
  }
}

/**
 * A share page follows its link: plain polls (the link carries no long poll), each at the server's
 * next check within bounds (`pollDelay`), the first counted from what the load showed (`shown`), not a
 * second read of what was just read.
 */
async function followShare(shown: Conn, env: Env, signal: AbortSignal, send: (e: Event) => void): Promise<void> {
  let last = shown
  const reach = reachability(send)
  try {
    for (;;) {
      await sleep(env.timers, pollDelay(last, env.timers.now()), signal, env.wake)
      try {
        last = connFromShare(await env.api.call('GET', sharePath(env), undefined, signal))
        reach(true)
        send({ type: 'status', conn: last })
      } catch (err) {
        if (isAbort(err) || signal.aborted) return
        const f = failureOf(err)
        // The link expired, or its connection was disconnected, while the page was open: it says so.
        if (f.status === 404) return send({ type: 'lost', failure: f })
        if (unreachable(f)) reach(false)
      }
    }
  } catch {
    // aborted while sleeping
  }
}
