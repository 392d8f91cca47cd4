// Every provider's reference card, by catalog id (test/harness/provider-cards/types.ts says what a card
// holds). docs/providers/README.md is rendered from these (`bun scripts/provider-cards-doc.ts`).
import type { ProviderCard } from './types.ts'
import { cloudflare } from './cloudflare.ts'
import { godaddy } from './godaddy.ts'
import { namecheap } from './namecheap.ts'
import { netlify } from './netlify.ts'
import { ovh } from './ovh.ts'
// Gandi, Name.com, DNSimple, Porkbun, IONOS, bunny.net, deSEC, Gcore, NameSilo, Scaleway, Infomaniak, Dynadot
import { dynadot } from './dynadot.ts'
import { gandi } from './gandi.ts'
import { porkbun } from './porkbun.ts'
import { namecom } from './namecom.ts'
import { dnsimple } from './dnsimple.ts'
import { ionos } from './ionos.ts'
import { bunny } from './bunny.ts'
import { desec } from './desec.ts'
import { scaleway } from './scaleway.ts'
import { gcore } from './gcore.ts'
import { namesilo } from './namesilo.ts'
import { infomaniak } from './infomaniak.ts'

const REGISTRARS_AND_HOSTS: ProviderCard[] = [dynadot, gandi, porkbun, namecom, dnsimple, ionos, bunny, desec, scaleway, gcore, namesilo, infomaniak]

export const CARDS: Record<string, ProviderCard> = Object.fromEntries([cloudflare, godaddy, namecheap, netlify, ovh, ...REGISTRARS_AND_HOSTS].map((c) => [c.id, c]))
