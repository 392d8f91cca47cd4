// Writes docs/events.md from the event registry: `bun scripts/events-doc.ts` (alone; `npm run generate`
// writes it with every other derived file).
// test/unit/events-doc.test.ts fails while the file is not current.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import '../src/quiet-warnings.ts'
import { eventsMarkdown } from '../src/ops/events-doc.ts'

const file = join(import.meta.dir, '../docs/events.md')
writeFileSync(file, eventsMarkdown())
console.log(`wrote ${file}`)
