// The NS1 nameserver fleet (`dnsN.pNN.nsone.net`, every shard) serves two providers' customers: NS1's
// own, and Netlify DNS's, on any shard. Nameservers cannot tell them apart, so a domain on the fleet
// is written with whichever credential its owner holds: a Netlify token (`nfp_…`, or one NS1 refuses)
// goes to Netlify's API, an NS1 API key to NS1's. A credential both refuse is reported as NS1's refusal.
import { NetlifyProvider } from '../netlify/adapter.ts'
import { CONVENTIONS as NS1_CONVENTIONS, Ns1Provider } from './ns1-api.ts'
import { ProviderError, type DnsProvider, type HostConventions, type RRset, type RRsetChange, type Zone } from '../types.ts'
import type { HostedProvider } from '../hosted.ts'
import { NETLIFY_API } from '../netlify/adapter.ts'
import { NS1_API } from './ns1-api.ts'

export class Ns1FleetProvider implements DnsProvider {
  readonly id = 'ns1'
  private chosen: DnsProvider | null = null
  constructor(
    private readonly secret: string,
    private readonly ns1Base: string,
    private readonly netlifyBase: string,
  ) {}

  /** Netlify's personal access tokens start `nfp_`; NS1 keys are plain. */
  private looksNetlify(): boolean {
    return /^(Bearer\s+)?nfp_/i.test(this.secret.trim())
  }

  private async provider(): Promise<DnsProvider> {
    if (this.chosen) return this.chosen
    const netlify = new NetlifyProvider(this.secret, this.netlifyBase)
    if (this.looksNetlify()) return (this.chosen = netlify)
    const ns1 = new Ns1Provider(this.secret, this.ns1Base)
    try {
      await ns1.listZones()
      return (this.chosen = ns1)
    } catch (e) {
      if (!(e instanceof ProviderError) || e.kind !== 'auth') throw e
      try {
        await netlify.listZones()
        return (this.chosen = netlify)
      } catch {
        // Netlify did not take it either: the answer is NS1's refusal.
        throw e
      }
    }
  }

  get minTtl(): number | undefined {
    return this.chosen?.minTtl
  }

  /** The conventions of the API the credential reached (NS1's until one is chosen; both write ALIAS at an apex). */
  get conventions(): HostConventions {
    return this.chosen?.conventions ?? NS1_CONVENTIONS
  }

  async listZones(): Promise<Zone[]> {
    return (await this.provider()).listZones()
  }

  async readRecords(zone: Zone): Promise<RRset[]> {
    return (await this.provider()).readRecords(zone)
  }

  async writeChanges(zone: Zone, changes: RRsetChange[]): Promise<void> {
    return (await this.provider()).writeChanges(zone, changes)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'ns1',
  defaultBase: NS1_API,
  // NS1's nameserver fleet serves NS1's customers and Netlify DNS's alike: either credential works.
  make: (s, o) => new Ns1FleetProvider(s, o.base, (o.bases?.netlify ?? NETLIFY_API).replace(/\/+$/, '')),
  token_url: 'https://my.nsone.net/#/account/settings',
  token_scopes: ['DNS: view zones', 'DNS: manage zones'],
  credential: 'NS1 API key, or a Netlify personal access token if your DNS is at Netlify',
}
