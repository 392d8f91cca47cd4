// Every provider's reference card, by catalog id (test/harness/provider-cards/types.ts says what a card
// holds). docs/providers/README.md is rendered from these (`bun scripts/provider-cards-doc.ts`).
import type { ProviderCard } from './types.ts'
import { cloudflare } from './cloudflare.ts'
import { godaddy } from './godaddy.ts'
import { namecheap } from './namecheap.ts'
import { netlify } from './netlify.ts'
import { ovh } from './ovh.ts'

// Alibaba Cloud DNS, DNSPod, Constellix, DNS Made Easy, ClouDNS, Spaceship, Exoscale, Domeneshop, Simply.com, Mythic Beasts, Dynu:
import { alidns } from './alidns.ts'
import { dnspod } from './dnspod.ts'
import { constellix } from './constellix.ts'
import { dnsmadeeasy } from './dnsmadeeasy.ts'
import { cloudns } from './cloudns.ts'
import { spaceship } from './spaceship.ts'
import { exoscale } from './exoscale.ts'
import { domeneshop } from './domeneshop.ts'
import { simply } from './simply.ts'
import { mythicBeasts } from './mythic-beasts.ts'
import { dynu } from './dynu.ts'
const MORE_CARDS_C: ProviderCard[] = [alidns, dnspod, constellix, dnsmadeeasy, cloudns, spaceship, exoscale, domeneshop, simply, mythicBeasts, dynu]

export const CARDS: Record<string, ProviderCard> = Object.fromEntries([cloudflare, godaddy, namecheap, netlify, ovh].map((c) => [c.id, c]))
for (const c of MORE_CARDS_C) CARDS[c.id] = c
