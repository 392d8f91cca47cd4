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

export const CARDS: Record<string, ProviderCard> = Object.fromEntries([cloudflare, godaddy, namecheap, netlify, ovh].map((c) => [c.id, c]))

// Route 53, Google Cloud DNS, Azure DNS, DigitalOcean, Linode, Vultr, Vercel, Hetzner, Hostinger, NS1, Wix.
import { wix } from './wix.ts'
for (const c of [wix]) CARDS[c.id] = c
import { ns1 } from './ns1.ts'
for (const c of [ns1]) CARDS[c.id] = c
import { route53 } from './route53.ts'
for (const c of [route53]) CARDS[c.id] = c
import { googleCloudDns } from './google-cloud-dns.ts'
for (const c of [googleCloudDns]) CARDS[c.id] = c
import { azure } from './azure.ts'
for (const c of [azure]) CARDS[c.id] = c
import { digitalocean } from './digitalocean.ts'
for (const c of [digitalocean]) CARDS[c.id] = c
import { vercel } from './vercel.ts'
for (const c of [vercel]) CARDS[c.id] = c
import { hetzner } from './hetzner.ts'
import { hostinger } from './hostinger.ts'
import { linode } from './linode.ts'
import { vultr } from './vultr.ts'
for (const c of [hetzner, hostinger, linode, vultr]) CARDS[c.id] = c

const REGISTRARS_AND_HOSTS: ProviderCard[] = [dynadot, gandi, porkbun, namecom, dnsimple, ionos, bunny, desec, scaleway, gcore, namesilo, infomaniak]
for (const c of REGISTRARS_AND_HOSTS) CARDS[c.id] = c
