// Rewrites docs/benchmarks.md from bench/record.jsonl (after a merge of two records, say).
import { writeFileSync } from 'node:fs'
import { DOC_PATH, readRecord } from './lib/record.ts'
import { renderDoc } from './lib/benchmarks-doc.ts'

writeFileSync(DOC_PATH, renderDoc(readRecord()))
console.log(`docs/benchmarks.md rewritten from ${readRecord().length} recorded runs`)
