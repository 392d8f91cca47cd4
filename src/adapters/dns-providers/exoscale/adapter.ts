// Exoscale API v2, DNS (https://openapi-v2.exoscale.com/topic/topic-api-request-signature,
// …/operation/list-dns-domain-records): the credential is `api_key:api_secret`; every request carries
// `Authorization: EXO2-HMAC-SHA256 credential=<key>,expires=<unix time>,signature=<base64 HMAC-SHA256
// of "METHOD path\nbody\n\n\nexpires">` (no query arguments or headers signed). Zones: GET /dns-domain
// (one list); records: GET /dns-domain/{id}/record (one list, `system-record` for SOA/NS), POST
// /dns-domain/{id}/record `{name, type, content, ttl, priority?}`, DELETE …/record/{record-id}; writes
// answer with an operation `{id, state: pending|success|failure|timeout, reason}`, done only when GET
// /operation/{id} says `success` (egoscale v3 Client.Wait polls it; issue 46: a write accepted and then
// failed was taken as done): `failure` or `timeout` is a refusal, `busy`/`unavailable` temporary. Names are relative (`` the apex); hostnames in `content` absolute without
// the trailing dot. Errors are `{message}`: 403 for a bad key or signature, 404, 400, 429.
// Do no harm (src/adapters/dns-providers/exoscale/card.ts): ALIAS, URL and POOL records are written back
// with their content as it is; a priority Exoscale keeps beside the content of a type other than MX
// (SRV) goes back with a restored record.
import { credentialParts } from '../credentials.ts'
import { createHmac } from 'node:crypto'
import { exchange, failureOf } from '../http.ts'
import { absoluteName, fromFields, RecordBasedProvider, relativeName, toFields, type ProviderRecord } from '../record-based.ts'
import { canonicalName, ProviderError, unquoteTxt, type Zone, type HostConventions } from '../types.ts'
import { waitForOperation } from '../async-writes.ts'

interface ExoOperation {
  id: string
  state: 'pending' | 'success' | 'failure' | 'timeout'
  reason?: string
  message?: string
}
import type { HostedProvider } from '../hosted.ts'

export const EXOSCALE_API = 'https://api-ch-gva-2.exoscale.com/v2'

/** How this host takes and gives back records (src/adapters/dns-providers/types.ts HostConventions). */
export const CONVENTIONS: HostConventions = {
  apex: null,
  names: "relative, empty the apex",
  hostnames: "absolute without the trailing dot",
  txt: "bare text",
  ttl: "any",
  temporary: "429 waited out when signalled",
  sources: {
    apex: "catalogue: no apex record offered (dnscontrol exoscale: CanUseAlias Can; ALIAS read and written back as it is)",
    names: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/exoscale/)",
    hostnames: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/exoscale/) (content `docs.example.com`)",
    txt: "lexicon cassettes (AnalogJ/lexicon@9c5eba2d tests/fixtures/cassettes/exoscale/)",
    ttl: "Exoscale OpenAPI",
    temporary: "the reference card (src/adapters/dns-providers/exoscale/card.ts)",
  },
}

export class ExoscaleProvider extends RecordBasedProvider {
  readonly id = 'exoscale'
  readonly conventions = CONVENTIONS
  private readonly key: string
  private readonly secret: string
  constructor(
    credential: string,
    private readonly base = EXOSCALE_API,
  ) {
    super()
    ;[this.key, this.secret] = credentialParts(credential, [{ name: 'key', aliases: ['api_key', 'EXOSCALE_API_KEY'] }, { name: 'secret', aliases: ['api_secret', 'EXOSCALE_API_SECRET'] }]) as [string, string]
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const url = new URL(this.base + path)
    const payload = body === undefined ? '' : JSON.stringify(body)
    const expires = Math.floor(Date.now() / 1000) + 600
    const signature = createHmac('sha256', this.secret).update(`${method} ${url.pathname}\n${payload}\n\n\n${expires}`).digest('base64')
    const r = await exchange(method, url.toString(), { authorization: `EXO2-HMAC-SHA256 credential=${this.key},expires=${expires},signature=${signature}` }, payload || undefined)
    if (r.status >= 300) throw failureOf('Exoscale', r, r.body?.message ?? `HTTP ${r.status}`, r.status === 403 && /signature|credential|api key/i.test(r.body?.message ?? '') ? 'auth' : undefined)
    if (method !== 'GET' && typeof r.body?.state === 'string') await this.waitFor(r.body)
    return r.body
  }

  /** Waits for a write's operation (src/adapters/dns-providers/async-writes.ts). */
  private async waitFor(first: ExoOperation): Promise<void> {
    await waitForOperation(
      `Exoscale operation ${first.id}`,
      first,
      (o) => {
        if (o.state === 'pending') return 'running'
        if (o.state === 'success') return 'done'
        const temporary = o.state === 'timeout' || o.reason === 'busy' || o.reason === 'unavailable' || o.reason === 'interrupted'
        return new ProviderError(temporary ? 'temporary' : 'write_failed', `Exoscale: the operation ended ${o.state} (${o.reason ?? 'no reason'}${o.message ? `: ${o.message}` : ''})`, undefined, temporary ? 5 : undefined)
      },
      async (o) => this.call('GET', `/operation/${encodeURIComponent(o.id)}`),
    )
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.call('GET', '/dns-domain'))['dns-domains'] as { id: string; 'unicode-name': string }[]).map((d) => ({ id: d.id, name: canonicalName(d['unicode-name']) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    return ((await this.call('GET', `/dns-domain/${encodeURIComponent(zone.id)}/record`))['dns-domain-records'] as any[])
      .filter((r) => !r['system-record'])
      .map((r) => ({
        id: r.id,
        name: absoluteName(r.name ?? '', zone.name),
        type: r.type,
        ttl: r.ttl,
        value: fromFields(r.type, r.content, r.priority, zone.name, unquoteTxt, true),
        // SRV keeps its priority beside the content: restored with it.
        ...(r.type !== 'MX' && typeof r.priority === 'number' && r.priority !== 0 ? { native: { priority: r.priority } } : {}),
      }))
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string, native?: unknown): Promise<void> {
    const f = toFields(type, value)
    const priority = f.priority ?? (native as { priority?: number } | undefined)?.priority
    await this.call('POST', `/dns-domain/${encodeURIComponent(zone.id)}/record`, { name: name === zone.name ? '' : relativeName(name, zone.name), type, content: f.data, ttl, ...(priority !== undefined ? { priority } : {}) })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/dns-domain/${encodeURIComponent(zone.id)}/record/${encodeURIComponent(item.id)}`)
  }
}

/** This folder's entry in the provider registry (registry.generated.ts, written by `npm run generate`). */
export const provider: HostedProvider = {
  id: 'exoscale',
  defaultBase: EXOSCALE_API,
  make: (s, o) => new ExoscaleProvider(s, o.base),
  token_url: 'https://portal.exoscale.com/iam/keys',
  token_scopes: ['dns service'],
  credential: 'IAM API key and secret (api_key:api_secret)',
}
