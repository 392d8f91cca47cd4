// Delegated DCV: the zone Portico controls (DCV_ZONE) on a PowerDNS authoritative server, driven
// through its HTTP API (DCV_PDNS_API_URL, DCV_PDNS_API_KEY). A hostname's `_acme-challenge` name is
// delegated here once by the customer (`_acme-challenge.<host> CNAME <label>.<DCV_ZONE>`), one label
// per hostname; Portico then answers every ACME DNS-01 challenge for it, renewals included, by
// writing the TXT answer at `<label>.<DCV_ZONE>` and removing it when the order is done.
// Invariants:
// - Only names under DCV_ZONE are ever written; nothing else of the server is touched.
// - Several answers at one label (a wildcard and its apex in one order) are kept side by side: the
//   writes of one process go one at a time and each replaces the set with what is wanted now.
// - A server that does not answer is a DcvUnavailable (the order waits for it), never a CA failure.

export interface DcvSettings {
  /** The zone, without a trailing dot (it must exist on the server). */
  zone: string
  /** `http://host:port/api/v1/servers/<server id>`. */
  apiUrl: string
  apiKey: string
}

export class DcvUnavailable extends Error {}

/** How long one call to the DCV server's API may take. */
const CALL_TIMEOUT_MS = 3_000

export class DcvZone {
  private writing: Promise<unknown> = Promise.resolve()
  /** The TXT values wanted now at each label (what this process put there). */
  private readonly wanted = new Map<string, Set<string>>()

  constructor(readonly settings: DcvSettings) {}

  /** The name a hostname's `_acme-challenge` CNAME points at. */
  target(label: string): string {
    return `${label}.${this.settings.zone}`
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response
    try {
      res = await fetch(`${this.settings.apiUrl}${path}`, {
        method,
        headers: { 'X-API-Key': this.settings.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      })
    } catch (err) {
      throw new DcvUnavailable(`the DCV zone's server (${new URL(this.settings.apiUrl).host}) does not answer: ${(err as Error).message}`)
    }
    const text = await res.text()
    if (res.status >= 500) throw new DcvUnavailable(`the DCV zone's server answered ${res.status}: ${text.slice(0, 200)}`)
    if (!res.ok) throw new Error(`DCV zone ${method} ${path}: ${res.status} ${text.slice(0, 300)}`)
    return text ? JSON.parse(text) : null
  }

  /** Answers when the server's API answers for the zone; throws DcvUnavailable when it does not. */
  async ping(): Promise<void> {
    await this.call('GET', `/zones/${this.settings.zone}.?rrsets=false`)
  }

  private write(label: string): Promise<void> {
    const values = [...(this.wanted.get(label) ?? [])]
    const name = `${this.target(label)}.`
    const rrset = values.length
      ? { name, type: 'TXT', ttl: 1, changetype: 'REPLACE', records: values.map((v) => ({ content: `"${v}"`, disabled: false })) }
      : { name, type: 'TXT', changetype: 'DELETE' }
    const next = this.writing.then(() => this.call('PATCH', `/zones/${this.settings.zone}.`, { rrsets: [rrset] }))
    this.writing = next.catch(() => {})
    return next.then(() => undefined)
  }

  /** Puts the DNS-01 answer `value` (the key authorization's digest) at `label`, beside any other. */
  async answer(label: string, value: string): Promise<void> {
    const set = this.wanted.get(label) ?? new Set()
    set.add(value)
    this.wanted.set(label, set)
    await this.write(label)
  }

  /** Takes the answer `value` away again (the label's other answers stay). */
  async withdraw(label: string, value: string): Promise<void> {
    const set = this.wanted.get(label)
    set?.delete(value)
    if (set && set.size === 0) this.wanted.delete(label)
    await this.write(label)
  }
}
