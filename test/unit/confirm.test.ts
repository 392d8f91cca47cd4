// The agent disconnect confirmation (the API contract, section 7: matching ignores case, scheme, path and a
// trailing dot).
import { describe, test, expect } from 'bun:test'
import fc from 'fast-check'
import { confirmMatches } from '../../src/domain/confirm.ts'

describe('confirmMatches', () => {
  test.each([
    ['shop.example.com', 'shop.example.com'],
    ['SHOP.Example.COM', 'shop.example.com'],
    ['shop.example.com.', 'shop.example.com'],
    ['https://shop.example.com/', 'shop.example.com'],
    ['http://Shop.Example.com/path?q=1#x', 'shop.example.com'],
    ['https://shop.example.com:8443/admin', 'shop.example.com'],
    ['  shop.example.com  ', 'shop.example.com.'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])('%s names %s', (confirm, domain) => {
    expect(confirmMatches(confirm, domain)).toBe(true)
  })

  test.each([
    ['example.com', 'shop.example.com'],
    ['shop.example.co', 'shop.example.com'],
    ['https://evil.example/shop.example.com', 'shop.example.com'],
    ['', 'shop.example.com'],
    ['shop', 'shop'],
  ])('%s does not name %s', (confirm, domain) => {
    expect(confirmMatches(confirm, domain)).toBe(false)
  })

  test('any casing, scheme, path and trailing dot of a domain still names it', () => {
    const label = fc.stringMatching(/^[a-z0-9]{1,12}$/)
    fc.assert(
      fc.property(fc.array(label, { minLength: 2, maxLength: 4 }), fc.boolean(), fc.boolean(), fc.boolean(), (labels, upper, scheme, dot) => {
        const domain = labels.join('.')
        let confirm = upper ? domain.toUpperCase() : domain
        if (dot) confirm += '.'
        if (scheme) confirm = `https://${confirm}/some/path`
        return confirmMatches(confirm, domain)
      }),
    )
  })
})
