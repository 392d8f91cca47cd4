// Accept-Encoding, If-None-Match, Accept-Language and the method read by their grammar (RFC 9110 sections 12.5.3, 12.4.2,
// 12.5.4, 13.1.2 and 9.3.2), as clients actually send them: browsers, curl, Bun's and Node's fetch, proxies that rewrite
// the header with spaces, and clients that send weights nobody should trust.
import { describe, test, expect } from 'bun:test'
import { chooseCoding, heldAlready, type Coding } from '../../src/http/encoded.ts'
import { Router } from '../../src/http/router.ts'
import { acceptedLanguages, localeForRequest } from '../../src/widget/locale.ts'

const STATIC: Coding[] = ['br', 'zstd', 'gzip']
const DYNAMIC: Coding[] = ['zstd', 'gzip']

describe('Accept-Encoding', () => {
  const cases: [header: string | null, forStatic: Coding | null, forDynamic: Coding | null][] = [
    // What clients send.
    ['gzip, deflate, br, zstd', 'br', 'zstd'], // Chromium
    ['gzip, deflate, br', 'br', 'gzip'], // Firefox, Safari
    ['deflate, gzip, br, zstd', 'br', 'zstd'], // curl --compressed
    ['gzip, deflate', 'gzip', 'gzip'], // Node's fetch
    // No header, an empty one, nothing offered.
    [null, null, null],
    ['', null, null],
    ['identity', null, null],
    ['deflate, compress', null, null],
    // Whitespace and case where the grammar allows it.
    ['gzip ;q=1', 'gzip', 'gzip'],
    ['zstd ; q=0.1', 'zstd', 'zstd'],
    ['  GZIP ; Q=0.5 ', 'gzip', 'gzip'],
    ['gzip;q=1.000', 'gzip', 'gzip'],
    // `*` weighs what is not named; x-gzip is gzip.
    ['*', 'br', 'zstd'],
    ['*;q=0.5, br;q=0', 'zstd', 'zstd'],
    ['*;q=0', null, null],
    ['x-gzip', 'gzip', 'gzip'],
    ['X-GZIP;q=0.8, br;q=0.1', 'gzip', 'gzip'],
    // q=0 refuses; a weight is honoured; ties go to the server's order.
    ['gzip;q=0, zstd;q=0', null, null],
    ['br;q=0.5, gzip', 'gzip', 'gzip'],
    ['gzip;q=0.9, zstd;q=0.9, br;q=0.9', 'br', 'zstd'],
    ['zstd;q=0.2, gzip;q=0.3', 'gzip', 'gzip'],
    // Identity wins only when named above every offered coding.
    ['identity;q=1, gzip;q=0.5', null, null],
    ['identity;q=0.5, gzip', 'gzip', 'gzip'],
    ['identity;q=0, gzip', 'gzip', 'gzip'],
    // A malformed weight is not a yes; a malformed element does not spoil the rest.
    ['gzip;q=1.5', null, null],
    ['gzip;q=abc', null, null],
    ['gzip;q=0.0001', null, null],
    ['gzip;q=', null, null],
    ['gzip;q', null, null],
    ['gzip;q=-1', null, null],
    ['gzip;q=1.5, zstd', 'zstd', 'zstd'],
    ['g zip, zstd', 'zstd', 'zstd'],
    [',,, gzip ,', 'gzip', 'gzip'],
    ['"gzip"', null, null],
    // No whitespace around a weight's `=` (RFC 9110 section 5.6.6), and one weight an element.
    ['gzip;q= 0.5', null, null],
    ['gzip;q =0.5', null, null],
    ['gzip;q=0.5;q=0.9', null, null],
    ['br;q=1;q=0, gzip;q=0.5', 'gzip', 'gzip'],
    ['gzip;level=9', 'gzip', 'gzip'], // a parameter that is not a weight is no reason to refuse
  ]
  for (const [header, forStatic, forDynamic] of cases) {
    test(`${JSON.stringify(header)} → ${forStatic ?? 'identity'} (static), ${forDynamic ?? 'identity'} (per request)`, () => {
      expect(chooseCoding(header, STATIC)).toBe(forStatic)
      expect(chooseCoding(header, DYNAMIC)).toBe(forDynamic)
    })
  }
  test('asked again (answers are remembered per header and per list offered), in another order and past what is remembered, every header gets its own answer', () => {
    // 300 more distinct headers: more than the answers remembered, so some are read again.
    const more = Array.from({ length: 300 }, (_, i) => [`gzip;q=0.${String(i + 1).padStart(3, '0')}, zstd;q=0.5`, 'zstd'] as const)
    for (let round = 0; round < 3; round++) {
      for (const [header, forStatic, forDynamic] of round === 1 ? [...cases].reverse() : cases) {
        expect(chooseCoding(header, DYNAMIC)).toBe(forDynamic)
        expect(chooseCoding(header, STATIC)).toBe(forStatic)
      }
      for (const [header, want] of more) expect(chooseCoding(header, DYNAMIC)).toBe(want)
    }
  })
})

describe('If-None-Match', () => {
  const tag = '"abc-gzip"'
  const cases: [header: string | null, held: boolean][] = [
    [null, false],
    ['', false],
    ['"abc-gzip"', true],
    ['W/"abc-gzip"', true],
    [' "x", "abc-gzip" ', true],
    ['"x",W/"abc-gzip"', true],
    ['*', true],
    [' * ', true],
    ['"abc"', false], // the identity representation's tag names another representation
    ['"abc-br"', false],
    ['abc-gzip', false], // not an entity tag without its quotes
    ['"abc-gzip', false],
    ['"x, "abc-gzip"', false],
    [', ,"abc-gzip",', true], // empty list elements are allowed
    ['w/"abc-gzip"', false], // the weak marker is `W/`, case-sensitive
    ['W/ "abc-gzip"', false],
    ['W/W/"abc-gzip"', false],
    ['"abc-gzip"x', false],
    ['"abc-gzip" "x"', false],
    ['"abc-gzip";"x"', false],
    ['"x" "abc-gzip"', false],
  ]
  for (const [header, held] of cases) test(`${JSON.stringify(header)} ${held ? 'names' : 'does not name'} ${tag}`, () => expect(heldAlready(header, tag)).toBe(held))
})

describe('HEAD', () => {
  const r = new Router<string>()
  r.add('GET', '/v1/connections', 'list')
  r.add('POST', '/v1/connections', 'create')
  r.add('GET', '/v1/connections/{id}', 'get')
  r.add('POST', '/v1/connections/{id}:recheck', 'recheck')

  test('is answered wherever GET is, by the GET route, and is listed in Allow beside it', () => {
    expect(r.match('HEAD', '/v1/connections')).toEqual({ value: 'list', params: {} })
    expect(r.match('HEAD', '/v1/connections/con_1')).toEqual({ value: 'get', params: { id: 'con_1' } })
    expect(r.match('HEAD', '/v1/connections/con_1:recheck')).toBe('method')
    expect(r.match('HEAD', '/v1/nope')).toBeNull()
    expect(r.allowed('/v1/connections')).toEqual(['GET', 'HEAD', 'POST'])
    expect(r.allowed('/v1/connections/x:recheck')).toEqual(['POST'])
  })
})

describe('Accept-Language', () => {
  const cases: [header: string | null, ranges: string[]][] = [
    [null, []],
    ['fr-CA, fr;q=0.9, en;q=0.8', ['fr-CA', 'fr', 'en']],
    ['de;q=0.2, fr;q=0.9', ['fr', 'de']],
    ['fr;q=0, de', ['de']],
    ['fr ; Q=0.5, de;q=0.4', ['fr', 'de']],
    ['*, ar', ['ar']],
    ['fr;q=abc, de;q=0.1', ['de']], // a malformed weight is not a yes
    ['fr;q=1.5, de;q=0.1', ['de']],
    ['fr;q=0.0001, de;q=0.1', ['de']],
    ['fr;q= 0.9, de;q=0.1', ['de']],
    ['fr;q=0.9;q=0.1, de;q=0.1', ['de']],
  ]
  for (const [header, ranges] of cases) test(`${JSON.stringify(header)} → ${JSON.stringify(ranges)}`, () => expect(acceptedLanguages(header)).toEqual(ranges))
})

describe('the language of a page served to a person', () => {
  const available = ['en', 'fr', 'de', 'ar']
  const cases: [header: string | null, query: string | null, locale: string][] = [
    [null, null, 'en'],
    ['de;q=0.2, fr;q=0.9', null, 'fr'],
    ['fr;q=0, de', null, 'de'],
    ['fr-CA', null, 'fr'],
    ['*, en;q=0', null, 'fr'], // English refused and anything else welcome: not English
    ['*;q=0.5, en;q=0', null, 'fr'],
    ['ja, en;q=0', null, 'en'], // nothing asked for is served: the header is disregarded
    ['en;q=0', null, 'en'],
    ['en;q=0, *;q=0', null, 'en'],
    ['ja', null, 'en'],
    ['fr;q= 0.9, de;q=0.5', null, 'de'], // a malformed weight is not a yes
    ['fr;q=0.9;q=0.1, de;q=0.5', null, 'de'],
    ['fr;q=0', 'fr', 'fr'], // `?lang=` is the person's own choice on the page
    ['de', 'xx', 'de'],
  ]
  for (const [header, query, locale] of cases) test(`${JSON.stringify(header)}${query ? ` ?lang=${query}` : ''} → ${locale}`, () => expect(localeForRequest(header, available, query)).toBe(locale))
})
