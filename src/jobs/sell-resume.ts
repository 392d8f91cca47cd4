// The sell resume sweep: every minute, orders a crashed process left in flight (`authorized`,
// `registering`, `registered`) are carried to their end: the registrar is asked whether the name was
// registered, then the payment is captured once or released (domain/sell.ts resumeStalled).
import { resumeStalled, type SellDeps } from '../domain/sell.ts'
import type { Sweep } from './index.ts'

export const SELL_RESUME_QUEUE = 'sell-resume'

export function sellResumeSweep(deps: SellDeps): Sweep {
  return { queue: SELL_RESUME_QUEUE, cron: '* * * * *', drain: () => resumeStalled(deps) }
}
