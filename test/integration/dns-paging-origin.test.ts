// Next-page links a host names with its own origin (issue 46): DigitalOcean's `links.pages.next` is
// https://api.digitalocean.com/v2/…?page=2 whatever address it was reached at (its OpenAPI's example),
// Azure's nextLink names management.azure.com, deSEC's and NS1's Link headers their own hosts. With
// DNS_PROVIDER_API_BASES pointing Portico elsewhere (an egress proxy, a stand-in), the listing stopped
// after page 1; every page is now read from the configured base (paging.ts `nextPageUrl`), and a link
// outside both the configured and the published base is refused rather than followed or taken as the end.
import { afterAll, describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { nextPageUrl } from '../../src/adapters/dns-providers/paging.ts'
import type { Fake } from '../harness/provider-fakes/common.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import { startNs1Fake } from '../../src/adapters/dns-providers/ns1/stand-in.ts'

const started: Fake<any>[] = []
afterAll(() => started.forEach((f) => f.stop()))

describe('a listing whose next link names the host\'s own origin is read whole from the configured base', () => {
  for (const id of ['digitalocean', 'azure', 'desec', 'ns1']) {
    test(id, async () => {
      const c = FAKE_CASES.find((x) => x.id === id)!
      const f = id === 'ns1' ? Object.assign(startNs1Fake(), { pageSize: 2 }) : c.start()
      started.push(f)
      const names = Array.from({ length: 7 + (c.pageFill?.zones ?? 0) }, (_, i) => `pg${i}-${id}.example`)
      for (const name of names) f.addZone(name)
      const p = makeHosted(id, f.credential, { [id]: c.base(f), ...c.extraBases })!
      const zones = await p.listZones()
      expect(zones.map((z) => z.name)).toEqual(expect.arrayContaining(names))
      expect(f.deepest.zones).toBeGreaterThanOrEqual(2)
    })
  }
})

describe('nextPageUrl', () => {
  const base = 'http://127.0.0.1:4000/v2'
  const pub = 'https://api.digitalocean.com/v2'
  test('a link on the host\'s published base is rebased onto the configured one, query kept', () => {
    expect(nextPageUrl('https://api.digitalocean.com/v2/domains/x.example/records?page=2&per_page=200', base, pub, 'DigitalOcean')).toBe('http://127.0.0.1:4000/v2/domains/x.example/records?page=2&per_page=200')
  })
  test('a link on the configured base, and a relative one, stay on it; none is the end', () => {
    expect(nextPageUrl('http://127.0.0.1:4000/v2/domains?page=3', base, pub, 'DigitalOcean')).toBe('http://127.0.0.1:4000/v2/domains?page=3')
    expect(nextPageUrl('/v2/domains?page=3', base, pub, 'DigitalOcean')).toBe('http://127.0.0.1:4000/v2/domains?page=3')
    expect(nextPageUrl(undefined, base, pub, 'DigitalOcean')).toBeNull()
    expect(nextPageUrl('', base, pub, 'DigitalOcean')).toBeNull()
  })
  test('a link anywhere else is refused, never followed and never taken as the last page', () => {
    for (const link of ['https://evil.example/v2/domains?page=2', 'https://api.digitalocean.com/v1/other?page=2', 'http://127.0.0.1:4001/v2/domains?page=2']) {
      let e: unknown
      try {
        nextPageUrl(link, base, pub, 'DigitalOcean')
      } catch (x) {
        e = x
      }
      expect(e instanceof ProviderError && e.kind === 'write_failed').toBe(true)
    }
  })
})

describe('the class: every adapter that follows an address a host names for its next page goes through nextPageUrl', () => {
  test('no adapter follows a next link, nextLink or Link header without it', () => {
    const dir = 'src/adapters/dns-providers'
    const followers: string[] = []
    // Every adapter file in the provider folders (src/adapters/dns-providers/<id>/), the stand-ins aside.
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && f !== 'paging.ts' && !f.endsWith('stand-in.ts') && !f.endsWith('card.ts'))
    expect(files.length).toBeGreaterThan(39)
    for (const file of files) {
      const src = readFileSync(`${dir}/${file}`, 'utf8')
      // A host-named address: links.pages.next, nextLink, a Link header's rel="next".
      if (/pages\?\.next|\.nextLink\b|headers\.get\('link'\)/.test(src)) {
        followers.push(file)
        expect({ file, rebased: src.includes('nextPageUrl(') }).toEqual({ file, rebased: true })
      }
    }
    // Cursors and page numbers (Vultr's meta.links.next, Vercel's pagination.next, Google's
    // nextPageToken, Linode, DNSimple, Cloudflare, Gandi, bunny.net) are sent back as parameters on
    // the configured base, never as addresses.
    expect(followers.sort()).toEqual(['azure/adapter.ts', 'desec/adapter.ts', 'digitalocean/adapter.ts', 'ns1/ns1-api.ts'])
  })
})
