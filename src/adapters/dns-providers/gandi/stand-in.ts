// Gandi LiveDNS v5, the parts the adapter uses, answering as the card says
// (src/adapters/dns-providers/gandi/card.ts): `Bearer` personal access token (or the deprecated `Apikey`);
// errors `{code, message, object, cause}` (401 Unauthorized, 404 "Domain not found" / "Record not
// found", 400 with `errors` [{location, name, description}], 409), 429 as the card's rate limit. Lists
// are bare arrays paged by `page`/`per_page` as asked (a page past the last is empty) with
// `Total-Count` and a `Link` to the next page. Record sets `{rrset_name, rrset_type, rrset_ttl,
// rrset_values, rrset_href}`; PUT on a set creates or replaces it (201), POST creates it (201), GET
// reads it (404 "Can't find the DNS record …"), DELETE removes it (204). A bare TXT value is stored
// quoted (test/fixtures/provider-recordings/gandi.json); rrset_ttl 300–2592000; an ALIAS only at the apex.
import { gandi as card } from './card.ts'
import { askedPage, cardThrottle, json, nextId, startFake, type Fake } from '../../../../test/harness/provider-fakes/common.ts'
import type { FakeCase } from '../../../../test/harness/provider-fakes/common.ts'

export interface GandiRRset {
  rrset_name: string
  rrset_type: string
  rrset_ttl: number
  rrset_values: string[]
  rrset_href?: string
}

const err = (code: number, message: string, cause: string, headers: Record<string, string> = {}) => json(code, { code, message, object: 'HTTP' + cause.replace(/ /g, ''), cause }, headers)
const invalid = (name: string, description: string) => json(400, { code: 400, message: 'Bad Request', object: 'HTTPBadRequest', cause: 'Bad Request', errors: [{ location: 'body', name, description }] })

/**
 * Gandi's own refusals of one call, for `refuseNext` (issue 46), in its error shape `{code, message,
 * object, cause}` (api.gandi.net/docs/reference, "Errors"; the card): the 409 an apex ALIAS write gets
 * when it clashes with what stands there, and its 500.
 */
export const GANDI_REFUSALS = {
  conflict: () => err(409, 'A record of this name and type conflicts with another record', 'Conflict'),
  serverError: () => err(500, 'Internal Server Error', 'Internal Server Error'),
}

export function startGandiFake(token = 'pat_' + nextId().padEnd(36, '0')): Fake<GandiRRset> {
  return startFake<GandiRRset>({
    credential: token,
    zoneId: (name) => name,
    throttled: cardThrottle(card, 0),
    async handle(req, url, f) {
      if (req.headers.get('authorization') !== `Bearer ${token}`) return err(401, 'The server could not verify that you authorized to access the document you requested.', 'Unauthorized')
      const list = (kind: 'zones' | 'records', rows: unknown[]) => {
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1))
        const perPage = Math.max(1, Number(url.searchParams.get('per_page') ?? 100))
        const items = askedPage(f, kind, rows, (page - 1) * perPage, perPage)
        const last = Math.max(1, Math.ceil(rows.length / perPage))
        const headers: Record<string, string> = { 'total-count': String(rows.length), 'filtered-count': String(items.length) }
        if (page < last) headers.link = `<${f.url}${url.pathname}?page=${page + 1}&per_page=${perPage}>; rel="next", <${f.url}${url.pathname}?page=${last}&per_page=${perPage}>; rel="last"`
        return json(200, items, headers)
      }
      if (req.method === 'GET' && url.pathname === '/v5/livedns/domains') return list('zones', f.zones.map((z) => ({ fqdn: z.name, domain_href: `${f.url}/v5/livedns/domains/${z.name}`, domain_records_href: `${f.url}/v5/livedns/domains/${z.name}/records` })))
      const m = /^\/v5\/livedns\/domains\/([^/]+)\/records(?:\/([^/]+)(?:\/([A-Z]+))?)?$/.exec(url.pathname)
      const zone = m && f.zones.find((z) => z.name === m[1])
      if (!m || !zone) return err(404, 'Domain not found', 'Not Found')
      if (req.method === 'GET' && !m[2]) return list('records', zone.records.map((s) => ({ ...s, rrset_href: `${f.url}/v5/livedns/domains/${zone.name}/records/${encodeURIComponent(s.rrset_name)}/${s.rrset_type}` })))
      const name = decodeURIComponent(m[2] ?? '')
      const i = zone.records.findIndex((s) => s.rrset_name === name && s.rrset_type === m[3])
      const missing = () => json(404, { code: 404, message: `Can't find the DNS record ${name}/${m[3]} in the zone`, object: 'dns-record', cause: 'Not Found' })
      if (req.method === 'GET' && m[2]) return i === -1 ? missing() : json(200, { ...zone.records[i], rrset_href: `${f.url}/v5/livedns/domains/${zone.name}/records/${encodeURIComponent(name)}/${m[3]}` })
      if ((req.method === 'PUT' || req.method === 'POST') && m[2]) {
        const b = (await req.json()) as Partial<GandiRRset>
        // A bare TXT value is taken and stored quoted (lexicon's recording: `challengetoken` written,
        // `"challengetoken"` listed).
        const values = b.rrset_values?.map((v) => (m[3] === 'TXT' && !v.startsWith('"') ? `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : v))
        if (!Array.isArray(values) || values.length === 0) return invalid('rrset_values', 'required')
        if (req.method === 'POST' && i !== -1) return err(409, 'A record of this name and type already exists', 'Conflict')
        if (m[3] === 'ALIAS' && name !== '@') return invalid('rrset_type', 'ALIAS records are only allowed at the apex')
        // The apex holds the zone's SOA and NS: a CNAME there clashes (RFC 1034 §3.6.2); ALIAS is Gandi's apex record.
        if (m[3] === 'CNAME' && name === '@') return err(409, 'A CNAME record cannot coexist with other records', 'Conflict')
        const ttl = b.rrset_ttl ?? card.ttl.default
        if (ttl < card.ttl.min || ttl > card.ttl.max!) return invalid('rrset_ttl', `must be between ${card.ttl.min} and ${card.ttl.max}`)
        const others = zone.records.filter((s) => s.rrset_name === name && s.rrset_type !== m[3])
        if ((m[3] === 'CNAME' && others.length) || others.some((s) => s.rrset_type === 'CNAME')) return err(409, 'A CNAME record cannot coexist with other records', 'Conflict')
        const set = { rrset_name: name, rrset_type: m[3]!, rrset_ttl: ttl, rrset_values: values }
        if (i === -1) zone.records.push(set)
        else zone.records[i] = set
        return json(201, { message: 'DNS Record Created' })
      }
      // DELETE on a name alone removes every set there (lexicon's recording).
      if (req.method === 'DELETE' && m[2] && !m[3]) {
        zone.records = zone.records.filter((s) => s.rrset_name !== name)
        return new Response(null, { status: 204 })
      }
      if (req.method === 'DELETE' && m[2]) {
        if (i === -1) return err(404, 'Record not found', 'Not Found')
        zone.records.splice(i, 1)
        return new Response(null, { status: 204 })
      }
      return err(405, 'Method not allowed', 'Method Not Allowed')
    },
  })
}

/** This stand-in's case in the shared contract, do-no-harm and host-property tests (the test harness lists every folder's: test/harness/provider-folders.generated.ts). */
export const fakeCase: FakeCase = {
  id: 'gandi',
  reference: 'https://api.gandi.net/docs/livedns/',
  start: () => startGandiFake(),
  base: (f) => f.url + '/v5',
  badCredential: 'pat_wrong',
  foreignZone: { id: 'not-mine.example', name: 'not-mine.example' },
  // The adapter asks 500 a page; Gandi answers as many as asked.
  pageFill: { zones: 501, records: { count: 500, row: (_z, i) => ({ rrset_name: `filler${i}`, rrset_type: 'TXT', rrset_ttl: 300, rrset_values: [`"filler-${i}"`] }) } },
}
