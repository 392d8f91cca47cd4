// The one clock. Lifecycle rules (24 hours to failure, six-hourly late checks, 30-day share links)
// read time only from here, so tests move it forward instead of sleeping.
export interface Clock {
  now(): Date
}

export class MovableClock implements Clock {
  private offsetMs = 0
  now(): Date {
    return new Date(Date.now() + this.offsetMs)
  }
  advance(ms: number): void {
    this.offsetMs += ms
  }
  reset(): void {
    this.offsetMs = 0
  }
}

export const HOUR = 3_600_000
export const DAY = 24 * HOUR
