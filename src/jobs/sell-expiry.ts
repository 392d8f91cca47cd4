// The sell expiry sweep (the API contract, section 8: an unpaid purchase quote expires after one day). It
// runs every few minutes; expireUnpaid takes due orders under SKIP LOCKED, so sweeps side by side
// never expire an order twice or emit its event twice.
import type { Clock } from '../clock.ts'
import type { Sql } from '../db/sql.ts'
import type { Payments } from '../adapters/payments/index.ts'
import { expireUnpaid } from '../domain/sell.ts'
import type { Sweep } from './index.ts'

export const SELL_EXPIRY_QUEUE = 'sell-expiry'

export function sellExpirySweep(deps: { db: Sql; clock: Clock; payments?: Payments }): Sweep {
  return { queue: SELL_EXPIRY_QUEUE, cron: '*/5 * * * *', drain: () => expireUnpaid(deps) }
}
