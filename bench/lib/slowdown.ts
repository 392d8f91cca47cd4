// A deliberate slowdown, for the test of `npm run bench:check` (test/integration/bench-check.test.ts):
// preloaded into the Portico a bench starts (bench/auth-read.ts with BENCH_SLOWDOWN=<microseconds>),
// every answer costs that much more CPU before it is built, as a regression in the request path would.
// (A busy slice of every millisecond on a timer, as before, slowed a loaded event loop by a varying
// amount: its timer fires less often the busier the loop is, and CI once read the slowed run faster.)
const extraUs = Math.max(0, Number(process.env.BENCH_SLOWDOWN ?? 0))
if (extraUs > 0) {
  const Plain = globalThis.Response
  globalThis.Response = class SlowedResponse extends Plain {
    constructor(body?: BodyInit | null, init?: ResponseInit) {
      const end = performance.now() + extraUs / 1000
      while (performance.now() < end) {
        // busy, on purpose
      }
      super(body, init)
    }
  } as typeof Response
}
