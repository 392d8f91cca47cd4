// Preloaded by bun test (bunfig.toml): the default test timeout, and after the last test of the run,
// close the shared Portico and drop this run's database. Nothing starts here; the first test that needs a daemon starts it.
import '../../src/quiet-warnings.ts'
import { afterAll, setDefaultTimeout } from 'bun:test'
import { closeShared } from './portico.ts'
import { OPERATION_WAIT } from '../../src/adapters/dns-providers/async-writes.ts'

// Integration and browser tests wait on real daemons and on the widget's polling: room beyond bun's
// default 5 s on a loaded machine (bunfig.toml's [test] timeout is not applied by this bun).
setDefaultTimeout(60_000)

// Processes tests start (test/harness/processes.ts) inherit this: per-credential limits far above any
// test's traffic, as testConfig sets them in-process; the limits have their own test.
process.env.RATE_LIMITS ??= 'api_key=1000000,application=1000000,end_user=1000000,agent_grant=1000000'

// The stand-ins of hosts whose writes are asynchronous (Hetzner's actions, Exoscale's operations) end
// an operation by the first poll: polled after 5 ms here, not the 250 ms a real host is given, so a
// property test's hundreds of writes fit its time (the waiting itself has its own tests).
OPERATION_WAIT.firstMs = 5

afterAll(async () => {
  await closeShared()
})
