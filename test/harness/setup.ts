// Preloaded by bun test (bunfig.toml): after the last test of the run, close the shared Portico and
// drop this run's database. Nothing starts here; the first test that needs a daemon starts it.
import { afterAll } from 'bun:test'
import { closeShared } from './portico.ts'

afterAll(async () => {
  await closeShared()
})
