// Runs the machine: holds the state, feeds events through `transition`, hands notices to the host and
// keeps the running effects equal to `effectsOf(state)` by key: an effect starts when its key appears
// and is aborted when its key goes, so leaving a state cancels its work, and a key never runs twice
// at once (one connection, one follow loop). Events are handled one at a time, in order. No DOM.
import { runEffect, type Env } from './effects.ts'
import { effectsOf, initialState, transition, type Event, type Notice, type Settings, type State } from './machine.ts'

export class Runner {
  state: State = initialState()
  private readonly running = new Map<string, AbortController>()
  private readonly queue: Event[] = []
  private busy = false

  constructor(
    private readonly settings: Settings,
    private readonly env: Env,
    private readonly onNotice: (n: Notice, state: State) => void,
    private readonly onChange: (state: State, prev: State) => void,
  ) {}

  /** Keys of the effects running now (for tests and diagnostics). */
  get effects(): string[] {
    return [...this.running.keys()]
  }

  dispatch(event: Event): void {
    this.queue.push(event)
    if (this.busy) return
    this.busy = true
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        const prev = this.state
        const out = transition(prev, e, this.settings)
        this.state = out.state
        for (const n of out.notices) this.onNotice(n, this.state)
        if (this.state !== prev) {
          this.reconcile()
          this.onChange(this.state, prev)
        }
      }
    } finally {
      this.busy = false
    }
  }

  private reconcile(): void {
    const wanted = effectsOf(this.state)
    const keys = new Set(wanted.map((w) => w.key))
    for (const [key, ac] of this.running) {
      if (!keys.has(key)) {
        ac.abort()
        this.running.delete(key)
      }
    }
    for (const effect of wanted) {
      if (this.running.has(effect.key)) continue
      const ac = new AbortController()
      // A finished effect keeps its key until the state lets go of it, so it is not run again.
      this.running.set(effect.key, ac)
      void runEffect(effect, this.env, ac.signal, (e) => {
        if (!ac.signal.aborted) this.dispatch(e)
      }).catch(() => undefined)
    }
  }

  /** Stops every effect (the widget closed). */
  stop(): void {
    for (const ac of this.running.values()) ac.abort()
    this.running.clear()
  }
}
