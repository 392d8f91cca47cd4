// Every provider's reference card, by catalog id (src/adapters/dns-providers/card-types.ts says what a
// card holds; each provider's folder keeps its own, src/adapters/dns-providers/<id>/card.ts, and the list
// is written from the folders by `npm run generate`: test/harness/provider-folders.generated.ts).
// docs/providers/README.md is rendered from these (`bun scripts/provider-cards-doc.ts`).
import type { ProviderCard } from '../../../src/adapters/dns-providers/card-types.ts'
import { CARD_LIST } from '../provider-folders.generated.ts'

export const CARDS: Record<string, ProviderCard> = Object.fromEntries(CARD_LIST.map((c) => [c.id, c]))
