// Renders docs/providers/README.md from the providers' reference cards (src/adapters/dns-providers/<id>/card.ts)
// and the catalogue: one table of every provider with an automatic rail, its adapter, and its card's
// sources; then each card in full. test/unit/provider-cards.test.ts fails when the page is stale.
//
//   bun scripts/provider-cards-doc.ts   (alone; `npm run generate` writes it with every other derived file)
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderProviderDocs } from '../test/harness/provider-cards/render.ts'

const out = join(import.meta.dir, '../docs/providers/README.md')
writeFileSync(out, renderProviderDocs())
console.log(`wrote ${out}`)
