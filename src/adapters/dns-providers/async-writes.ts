// Hosts whose writes are asynchronous (issue 46): the write is answered at once with an operation still
// running, and whether it was carried out is known only by asking for the operation again; it may end
// in failure with the zone unchanged. Hetzner's Cloud API (an Action: running, success or error;
// https://docs.hetzner.cloud/reference/cloud#actions, hcloud-go's Action WaitFor) and Exoscale v2 (an
// Operation: pending, success, failure or timeout; egoscale v3 Client.Wait) are waited for here, each
// operation polled until it is no longer running; a failure is a refusal like any other, so a write
// refused midway is put back by restore.ts. Hosts whose "pending" is publication to their name servers
// after the change was taken (Route 53 PENDING→INSYNC, Google Cloud DNS pending→done) are not waited
// for: the change cannot fail after it was accepted (their cards say so).
import { ProviderError } from './types.ts'

/** How long one write's operation is waited for: polled 0.25 s, then twice as long each time up to 2 s apart, 30 s at most. */
export const OPERATION_WAIT = { budgetMs: 30_000, firstMs: 250, maxMs: 2_000 }

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms))

/**
 * Waits until `state` of the operation is no longer `running`: `done` returns, a ProviderError (the
 * host's failure, typed by the adapter) is thrown; still running after OPERATION_WAIT is temporary
 * with a retry hint (the caller reads the zone again before it answers).
 */
export async function waitForOperation<T>(what: string, first: T, state: (op: T) => 'running' | 'done' | ProviderError, poll: (op: T) => Promise<T>): Promise<void> {
  let op = first
  const until = Date.now() + OPERATION_WAIT.budgetMs
  for (let delay = OPERATION_WAIT.firstMs; ; delay = Math.min(delay * 2, OPERATION_WAIT.maxMs)) {
    const s = state(op)
    if (s === 'done') return
    if (s instanceof ProviderError) throw s
    if (Date.now() + delay > until) throw new ProviderError('temporary', `${what} has not finished yet`, undefined, 5)
    await sleep(delay)
    op = await poll(op)
  }
}
