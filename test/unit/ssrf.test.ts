import { describe, test, expect } from 'bun:test'
import { classifyAddress, guardUrl, isUrlSyntacticallyAllowed, parseHostLiteral } from '../../src/adapters/ssrf.ts'

describe('address literals', () => {
  test.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['[::1]', '::1'],
    ['example.com', null],
    ['1.2.3.4.5', null],
    ['256.1.1.1', null],
  ])('%s reads as %s', (host, want) => {
    expect(parseHostLiteral(host)).toBe(want)
  })

  test.each([
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['100.64.0.1', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['224.0.0.1', 'multicast'],
    ['93.184.216.34', 'public'],
    ['2606:4700::1111', 'public'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip)).toBe(cls)
  })
})

describe('URL guard', () => {
  const resolveTo = (table: Record<string, string[]>) => async (h: string) => table[h] ?? []
  const opts = (allowLoopback = false) => ({ allowLoopback, requireHttps: true, resolve: resolveTo({ 'good.example': ['93.184.216.34'], 'evil.example': ['10.0.0.1'], 'mixed.example': ['93.184.216.34', '169.254.169.254'], 'local.example': ['127.0.0.1'] }) })

  test('literal and named private targets are refused; the checked address is the one returned', async () => {
    for (const url of ['https://10.0.0.1/h', 'https://169.254.169.254/latest', 'https://[::1]/h', 'https://2130706433/h', 'https://0x7f.1/h', 'https://evil.example/h', 'https://mixed.example/h', 'https://local.example/h', 'http://good.example/h', 'https://user:pw@good.example/h', 'ftp://good.example/']) {
      const r = await guardUrl(url, opts())
      expect({ url, ok: r.ok }).toEqual({ url, ok: false })
    }
    const ok = await guardUrl('https://good.example/h', opts())
    expect(ok).toMatchObject({ ok: true, address: '93.184.216.34' })
  })

  test('loopback only with the explicit test setting, and never private ranges', async () => {
    expect((await guardUrl('http://127.0.0.1:8080/h', opts(true))).ok).toBe(true)
    expect((await guardUrl('https://local.example/h', opts(true))).ok).toBe(true)
    expect((await guardUrl('http://local.example/h', opts(true))).ok).toBe(false)
    expect((await guardUrl('http://10.0.0.1/h', opts(true))).ok).toBe(false)
    expect((await guardUrl('https://169.254.169.254/', opts(true))).ok).toBe(false)
    expect(isUrlSyntacticallyAllowed('http://127.0.0.1:9/h', { allowLoopback: false, requireHttps: true }).ok).toBe(false)
    expect(isUrlSyntacticallyAllowed('http://127.0.0.1:9/h', { allowLoopback: true, requireHttps: true }).ok).toBe(true)
    expect(isUrlSyntacticallyAllowed('https://hooks.example.com/x', { allowLoopback: false, requireHttps: true }).ok).toBe(true)
  })
})
