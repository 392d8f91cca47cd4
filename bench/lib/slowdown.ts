// A deliberate slowdown, for the test of `npm run bench:check` (test/integration/bench-check.test.ts):
// preloaded into the Portico a bench starts (bench/auth-read.ts with BENCH_SLOWDOWN=<fraction>), it
// keeps that fraction of every millisecond busy on the event loop, so the process answers that much
// slower, as a regression in the request path would make it.
const fraction = Math.min(0.95, Math.max(0, Number(process.env.BENCH_SLOWDOWN ?? 0)))
if (fraction > 0) {
  setInterval(() => {
    const end = performance.now() + fraction
    while (performance.now() < end) {
      // busy, on purpose
    }
  }, 1)
}
