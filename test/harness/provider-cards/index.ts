// Every provider's reference card, by catalog id (test/harness/provider-cards/types.ts says what a card
// holds). docs/providers/README.md is rendered from these (`bun scripts/provider-cards-doc.ts`).
import type { ProviderCard } from './types.ts'
import { alidns } from './alidns.ts'
import { azure } from './azure.ts'
import { bunny } from './bunny.ts'
import { cloudflare } from './cloudflare.ts'
import { cloudns } from './cloudns.ts'
import { constellix } from './constellix.ts'
import { desec } from './desec.ts'
import { digitalocean } from './digitalocean.ts'
import { dnsimple } from './dnsimple.ts'
import { dnsmadeeasy } from './dnsmadeeasy.ts'
import { dnspod } from './dnspod.ts'
import { domeneshop } from './domeneshop.ts'
import { dynadot } from './dynadot.ts'
import { dynu } from './dynu.ts'
import { exoscale } from './exoscale.ts'
import { gandi } from './gandi.ts'
import { gcore } from './gcore.ts'
import { godaddy } from './godaddy.ts'
import { googleCloudDns } from './google-cloud-dns.ts'
import { hetzner } from './hetzner.ts'
import { hostinger } from './hostinger.ts'
import { infomaniak } from './infomaniak.ts'
import { ionos } from './ionos.ts'
import { linode } from './linode.ts'
import { mythicBeasts } from './mythic-beasts.ts'
import { namecheap } from './namecheap.ts'
import { namecom } from './namecom.ts'
import { namesilo } from './namesilo.ts'
import { netlify } from './netlify.ts'
import { ns1 } from './ns1.ts'
import { ovh } from './ovh.ts'
import { porkbun } from './porkbun.ts'
import { route53 } from './route53.ts'
import { scaleway } from './scaleway.ts'
import { simply } from './simply.ts'
import { spaceship } from './spaceship.ts'
import { vercel } from './vercel.ts'
import { vultr } from './vultr.ts'
import { wix } from './wix.ts'

const ALL: ProviderCard[] = [
  alidns, azure, bunny, cloudflare, cloudns, constellix, desec, digitalocean, dnsimple, dnsmadeeasy, dnspod,
  domeneshop, dynadot, dynu, exoscale, gandi, gcore, godaddy, googleCloudDns, hetzner, hostinger, infomaniak,
  ionos, linode, mythicBeasts, namecheap, namecom, namesilo, netlify, ns1, ovh, porkbun, route53, scaleway,
  simply, spaceship, vercel, vultr, wix,
]

export const CARDS: Record<string, ProviderCard> = Object.fromEntries(ALL.map((c) => [c.id, c]))
