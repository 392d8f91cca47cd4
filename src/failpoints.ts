// Failpoints let a test break one step inside a multi-step operation to prove that nothing
// half-written is left behind. Arming is refused outside APP_ENV=test.
const armed = new Set<string>()
let allowed = false

/** Called once by a Portico started with APP_ENV=test; there is no way to arm them otherwise. */
export function allowFailpoints(on: true): void {
  allowed = on
}

export function arm(name: string): void {
  if (!allowed) throw new Error('failpoints are only available in tests')
  armed.add(name)
}

export function disarm(name: string): void {
  armed.delete(name)
}

export function failpoint(name: string): void {
  if (armed.size > 0 && armed.has(name)) throw new Error(`failpoint ${name}`)
}
