// OVHcloud API v1, domain zones (https://eu.api.ovh.com/console/?section=%2Fdomain): the credential is
// `application_key:application_secret:consumer_key`; every call carries X-Ovh-Application,
// X-Ovh-Consumer, X-Ovh-Timestamp and X-Ovh-Signature = "$1$" + SHA1(secret+consumer+method+url+body+
// timestamp, joined by "+") (https://help.ovhcloud.com/csm/en-api-getting-started-ovhcloud-api).
// Zones: GET /domain/zone (a list of names); records: GET /domain/zone/{zone}/record (a list of ids)
// and GET …/record/{id} each `{id, subDomain, fieldType, target, ttl}`; POST …/record `{fieldType,
// subDomain, target, ttl}`, DELETE …/record/{id}; POST /domain/zone/{zone}/refresh publishes the
// changes. Names are relative (`` the apex); targets are zone-file text. Errors are `{message,
// errorCode?}`: 401 INVALID_CREDENTIAL / invalid signature, 403 NOT_GRANTED_CALL, 404 "This service
// does not exist", 409, 429.
import { createHash } from 'node:crypto'
import { exchange, failureOf } from './http.ts'
import { absoluteName, RecordBasedProvider, relativeName, type NewRecord, type ProviderRecord } from './record-based.ts'
import { fromZoneFile, toZoneFile } from './hetzner.ts'
import { canonicalName, type Zone } from './types.ts'

export const OVH_API = 'https://eu.api.ovh.com/1.0'

export class OvhProvider extends RecordBasedProvider {
  readonly id = 'ovh'
  private readonly ak: string
  private readonly as: string
  private readonly ck: string
  constructor(
    credential: string,
    private readonly base = OVH_API,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    super()
    const [ak = '', as = '', ck = ''] = credential.split(':')
    ;[this.ak, this.as, this.ck] = [ak, as, ck]
  }

  private async call(method: string, path: string, body?: unknown): Promise<any> {
    const url = this.base + path
    const payload = body === undefined ? '' : JSON.stringify(body)
    const ts = String(this.now())
    const sig = '$1$' + createHash('sha1').update([this.as, this.ck, method, url, payload, ts].join('+')).digest('hex')
    const r = await exchange(method, url, { 'x-ovh-application': this.ak, 'x-ovh-consumer': this.ck, 'x-ovh-timestamp': ts, 'x-ovh-signature': sig }, payload || undefined)
    if (r.status >= 300) throw failureOf('OVHcloud', r, r.body?.message ? `${r.body.errorCode ?? r.status}: ${r.body.message}` : `HTTP ${r.status}`, r.status === 403 && /credential|signature/i.test(r.body?.message ?? '') ? 'auth' : undefined)
    return r.body
  }

  async listZones(): Promise<Zone[]> {
    return ((await this.call('GET', '/domain/zone')) as string[]).map((n) => ({ id: canonicalName(n), name: canonicalName(n) }))
  }

  protected async listItems(zone: Zone): Promise<ProviderRecord[]> {
    const z = encodeURIComponent(zone.id)
    const ids = (await this.call('GET', `/domain/zone/${z}/record`)) as number[]
    const out: ProviderRecord[] = []
    for (const id of ids) {
      const r = await this.call('GET', `/domain/zone/${z}/record/${id}`)
      if (r.fieldType === 'SOA') continue
      out.push({ id: String(r.id), name: absoluteName(r.subDomain ?? '', zone.name), type: r.fieldType, ttl: r.ttl, value: fromZoneFile(r.fieldType, r.target, zone.name) })
    }
    return out
  }

  protected override async applyDiff(zone: Zone, deletes: ProviderRecord[], creates: NewRecord[]): Promise<void> {
    if (deletes.length === 0 && creates.length === 0) return
    await super.applyDiff(zone, deletes, creates)
    // Changes are staged until the zone is refreshed.
    await this.call('POST', `/domain/zone/${encodeURIComponent(zone.id)}/refresh`)
  }

  protected async createItem(zone: Zone, name: string, type: string, ttl: number, value: string): Promise<void> {
    await this.call('POST', `/domain/zone/${encodeURIComponent(zone.id)}/record`, { fieldType: type, subDomain: name === zone.name ? '' : relativeName(name, zone.name), target: toZoneFile(type, value), ttl })
  }

  protected async deleteItem(zone: Zone, item: ProviderRecord): Promise<void> {
    await this.call('DELETE', `/domain/zone/${encodeURIComponent(zone.id)}/record/${encodeURIComponent(item.id)}`)
  }
}
