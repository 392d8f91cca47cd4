// npm run bench: every benchmark in bench/ (not this runner, bench:check or bench:docs, not lib/), one after another, each in
// its own process so one's daemons and database are gone before the next starts. Each prints its
// figures next to a baseline measured in the same run; this prints which ran and which failed.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const dir = import.meta.dir
const only = process.argv.slice(2)
const scripts = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !['run.ts', 'check.ts', 'docs.ts'].includes(f))
  .filter((f) => only.length === 0 || only.includes(f.replace(/\.ts$/, '')))
  .sort()
const failed: string[] = []
for (const script of scripts) {
  console.log(`\n== bench/${script}`)
  const started = performance.now()
  const proc = Bun.spawn([process.execPath, join(dir, script)], { stdout: 'inherit', stderr: 'inherit', env: process.env })
  const code = await proc.exited
  console.log(`== bench/${script}: ${code === 0 ? 'done' : `exit ${code}`} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  if (code !== 0) failed.push(script)
}
console.log(`\nbenchmarks: ${scripts.length - failed.length} of ${scripts.length} ran${failed.length ? `; failed: ${failed.join(', ')}` : ''}`)
process.exit(failed.length ? 1 : 0)
