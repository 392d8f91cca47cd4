// Porkbun API v3, the parts the adapter uses (https://porkbun.com/api/json/v3/documentation): POST
// JSON with `apikey` and `secretapikey`; answers `{status: "SUCCESS", …}` or HTTP 400 with `{status:
// "ERROR", message}` ("Invalid API key. (002)", "Invalid domain.", "Domain is not opted in to API
// access."), and past the rate limit the card's HTML 503 with no wait
// (src/adapters/dns-providers/porkbun/card.ts). /domain/listAll pages by `start` (up to 1000 a call; this
// stand-in serves fewer); /dns/retrieve answers the whole zone with fully qualified names, numbers as
// strings and each record's `notes`; /dns/create takes `notes`; the lowest TTL is 600.
import { porkbun as card } from './card.ts'
import { cardThrottle, json, nextId, PAGE_CAP, servePage, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface PorkbunRecord {
  id: string
  name: string
  type: string
  content: string
  ttl: string
  prio: string
  notes: string | null
}

const TYPES = ['A', 'AAAA', 'CNAME', 'NS', 'MX', 'TXT', 'CAA', 'ALIAS', 'SRV', 'TLSA', 'HTTPS', 'SVCB']

export type PorkbunFake = Fake<PorkbunRecord> & { closed: Set<string> }

export function startPorkbunFake(apikey = 'pk1_' + nextId().padEnd(64, 'a'), secret = 'sk1_' + nextId().padEnd(64, 'b')): PorkbunFake {
  let ids = 260000000
  const error = (message: string, status = 400, headers: Record<string, string> = {}) => json(status, { status: 'ERROR', message }, headers)
  const closed = new Set<string>()
  const fake = startFake<PorkbunRecord>({
    credential: `${apikey}:${secret}`,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.method !== 'POST') return error('Requests must be POST.', 405)
      let body: any
      try {
        body = await req.json()
      } catch {
        return error('Invalid JSON.')
      }
      if (body?.apikey !== apikey || body?.secretapikey !== secret) return error('Invalid API key. (002)')
      const path = url.pathname.replace(/^\/api\/json\/v3/, '')
      if (path === '/domain/listAll') {
        const start = Number(body.start ?? 0)
        const page = Math.floor(start / PAGE_CAP) + 1
        const s = servePage(f, 'zones', f.zones, page)
        return json(200, { status: 'SUCCESS', domains: f.zones.slice(start, start + s.size).map((z) => ({ domain: z.name, status: 'ACTIVE', tld: z.name.split('.').pop(), createDate: '2025-01-01 00:00:00', expireDate: '2027-01-01 00:00:00', securityLock: '1', whoisPrivacy: '1', autoRenew: 1, notLocal: 0 })) })
      }
      const m = /^\/dns\/(?<op>retrieve|create|delete)\/(?<domain>[^/]+)(?:\/(?<id>\d+))?$/.exec(path)
      if (!m) return error(`Unknown endpoint ${path}.`, 404)
      const zone = f.zones.find((z) => z.name === decodeURIComponent(m.groups!.domain!))
      if (!zone) return error('Invalid domain.')
      if (closed.has(zone.name)) return error('Domain is not opted in to API access.')
      const fqdn = (sub: string) => (sub ? `${sub}.${zone.name}` : zone.name)
      switch (m.groups!.op) {
        case 'retrieve':
          return json(200, { status: 'SUCCESS', cloudflare: 'enabled', records: zone.records })
        case 'create': {
          const ttl = Number(body.ttl ?? 600)
          if (!TYPES.includes(body.type) || typeof body.content !== 'string' || !body.content) return error('Invalid record type or content.')
          if (!Number.isInteger(ttl) || ttl < card.ttl.min) return error(`TTL must be at least ${card.ttl.min}.`)
          const name = fqdn(String(body.name ?? '').toLowerCase())
          const same = zone.records.filter((r) => r.name === name)
          if ((body.type === 'CNAME' && same.length) || same.some((r) => r.type === 'CNAME')) return error('Could not add DNS record: a CNAME cannot stand beside other records.')
          const rec: PorkbunRecord = { id: String(++ids), name, type: body.type, content: body.content, ttl: String(ttl), prio: String(body.prio ?? 0), notes: typeof body.notes === 'string' ? body.notes : null }
          zone.records.push(rec)
          return json(200, { status: 'SUCCESS', id: Number(rec.id) })
        }
        default: {
          const i = zone.records.findIndex((r) => r.id === m.groups!.id)
          if (i === -1) return error('Invalid record ID.')
          zone.records.splice(i, 1)
          return json(200, { status: 'SUCCESS' })
        }
      }
    },
  })
  return Object.assign(fake, { closed })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = { id: 'porkbun', reference: 'https://porkbun.com/api/json/v3/documentation', unpaged: { lists: ['records'], why: '/dns/retrieve/{domain} answers the whole zone' }, start: () => startPorkbunFake(), base: (f) => f.url + '/api/json/v3', badCredential: 'pk1_wrong:sk1_wrong', foreignZone: { id: 'not-mine.example', name: 'not-mine.example' } }
