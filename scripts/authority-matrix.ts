// Writes docs/authority-matrix.md from the operation registry: `bun scripts/authority-matrix.ts` (alone;
// `npm run generate` writes it with every other derived file).
// test/integration/authority-matrix.test.ts fails while the file is not current.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import '../src/quiet-warnings.ts'
import { OPERATIONS } from '../src/ops/index.ts'
import { authorityMarkdown } from '../src/ops/authority.ts'

const file = join(import.meta.dir, '../docs/authority-matrix.md')
writeFileSync(file, authorityMarkdown(OPERATIONS))
console.log(`wrote ${file} (${OPERATIONS.length} operations)`)
