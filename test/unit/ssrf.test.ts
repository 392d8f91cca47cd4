import { describe, test, expect } from 'bun:test'
import { classifyAddress, guardUrl, isUrlSyntacticallyAllowed, parseHostLiteral } from '../../src/adapters/ssrf.ts'

describe('address literals', () => {
  test.each([
    ['2130706433', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7F.0.0.0x1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['192.168.257', '192.168.1.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['[::1]', '::1'],
    ['[0:0:0:0:0:0:0:1]', '::1'],
    ['::FFFF:7f00:1', '::ffff:127.0.0.1'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['example.com', null],
    ['0xdeadbeef.example', null],
    ['1.2.3.4.5', null],
    ['256.1.1.1', null],
    ['08.1.1.1', null],
    ['4294967296', null],
    ['1:2:3:4:5:6:7:8:9', null],
    ['1::2::3', null],
    ['::ffff:127.0.0.01', null],
  ])('%s reads as %s', (host, want) => {
    expect(parseHostLiteral(host)).toBe(want)
  })

  test.each([
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['100.64.0.1', 'shared'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::10.1.2.3', 'private'],
    ['64:ff9b:1::1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378::1', 'reserved'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link_local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'reserved'],
    ['93.184.216.34', 'public'],
    ['172.32.0.1', 'public'],
    ['2606:4700::1111', 'public'],
    ['64:ff9b::5db8:d822', 'public'],
    ['example.com', 'invalid'],
  ])('%s is %s', (ip, cls) => {
    expect(classifyAddress(ip) as string).toBe(cls)
  })
})

describe('URL guard', () => {
  const names: Record<string, string[]> = {
    'good.example': ['93.184.216.34', '2606:2800:220:1::248'],
    'evil.example': ['10.0.0.1'],
    'meta.example': ['::ffff:169.254.169.254'],
    'mixed.example': ['93.184.216.34', '169.254.169.254'],
    'local.example': ['127.0.0.1'],
    'junk.example': ['not-an-address'],
  }
  const resolve = async (h: string) => {
    if (h === 'broken.example') throw new Error('SERVFAIL')
    return names[h] ?? []
  }
  const rules = (allowLoopback = false) => ({ allowLoopback, resolve })

  test.each([
    ['https://10.0.0.1/h', '10.0.0.1 is a private address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a metadata address'],
    ['https://[::1]/h', '::1 is a loopback address'],
    ['https://127.0.0.1/h', '127.0.0.1 is a loopback address'],
    ['https://2130706433/h', '127.0.0.1 is a loopback address'],
    ['https://0x7f.1/h', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/h', '127.0.0.1 is a loopback address'],
    ['https://127.1/h', '127.0.0.1 is a loopback address'],
    ['https://[::ffff:127.0.0.1]/h', '::ffff:127.0.0.1 is a loopback address'],
    ['https://[::ffff:7f00:1]/h', '::ffff:127.0.0.1 is a loopback address'],
    ['https://100.64.0.1/h', '100.64.0.1 is a shared address'],
    ['https://0.0.0.0/h', '0.0.0.0 is an unspecified address'],
    ['https://[fe80::1]/h', 'fe80::1 is a link_local address'],
    ['https://[fc00::1]/h', 'fc00::1 is a unique_local address'],
    ['https://[fd00:ec2::254]/h', 'fd00:ec2::254 is a metadata address'],
    ['https://192.168.1.1/h', '192.168.1.1 is a private address'],
    ['https://172.16.0.1/h', '172.16.0.1 is a private address'],
    ['https://localhost/h', 'localhost is a loopback name'],
    ['https://evil.example/h', 'evil.example resolves to a private address (10.0.0.1)'],
    ['https://meta.example/h', 'meta.example resolves to a metadata address (::ffff:169.254.169.254)'],
    ['https://mixed.example/h', 'mixed.example resolves to a metadata address (169.254.169.254)'],
    ['https://local.example/h', 'local.example resolves to a loopback address (127.0.0.1)'],
    ['https://junk.example/h', 'junk.example resolved to something that is not an address: not-an-address'],
    ['https://nowhere.example/h', 'nowhere.example has no address'],
    ['https://broken.example/h', 'broken.example could not be resolved: SERVFAIL'],
    ['http://good.example/h', 'https is required'],
    ['https://user:pw@good.example/h', 'credentials in the URL are not allowed'],
    ['ftp://good.example/', 'scheme ftp: is not http(s)'],
    ['not a url', 'not a valid absolute URL'],
  ])('%s is refused: %s', async (url, reason) => {
    expect(await guardUrl(url, rules())).toEqual({ ok: false, reason })
  })

  test('a public name is allowed and the checked address is the one to connect to', async () => {
    const r = await guardUrl('https://good.example:8443/hooks?x=1', rules())
    expect(r).toMatchObject({ ok: true, address: '93.184.216.34' })
    expect(r.ok && r.url.href).toBe('https://good.example:8443/hooks?x=1')
    expect(await guardUrl('https://93.184.216.34/h', rules())).toMatchObject({ ok: true, address: '93.184.216.34' })
  })

  test('loopback only with the explicit test setting, and never private ranges or metadata', async () => {
    expect(await guardUrl('http://127.0.0.1:8080/h', rules(true))).toMatchObject({ ok: true, address: '127.0.0.1' })
    expect(await guardUrl('http://[::1]:8080/h', rules(true))).toMatchObject({ ok: true, address: '::1' })
    expect(await guardUrl('http://localhost:8080/h', rules(true))).toMatchObject({ ok: true, address: '127.0.0.1' })
    expect(await guardUrl('https://local.example/h', rules(true))).toMatchObject({ ok: true, address: '127.0.0.1' })
    expect(await guardUrl('http://local.example/h', rules(true))).toEqual({ ok: false, reason: 'https is required' })
    expect((await guardUrl('http://local.example/h', { ...rules(true), requireHttps: false })).ok).toBe(true)
    expect((await guardUrl('http://10.0.0.1/h', rules(true))).ok).toBe(false)
    expect((await guardUrl('https://169.254.169.254/', rules(true))).ok).toBe(false)
    expect((await guardUrl('https://[fd00:ec2::254]/', rules(true))).ok).toBe(false)
    expect((await guardUrl('https://evil.example/h', rules(true))).ok).toBe(false)
  })
})

describe('registration check', () => {
  const strict = { allowLoopback: false, requireHttps: true }
  const loose = { allowLoopback: true, requireHttps: true }

  test('https names pass without any DNS; literal non-public addresses and credentials do not', () => {
    expect(isUrlSyntacticallyAllowed('https://hooks.example.com/x', strict).ok).toBe(true)
    expect(isUrlSyntacticallyAllowed('https://93.184.216.34/x', strict).ok).toBe(true)
    expect(isUrlSyntacticallyAllowed('http://hooks.example.com/x', strict)).toEqual({ ok: false, reason: 'https is required' })
    expect(isUrlSyntacticallyAllowed('https://10.0.0.1/x', strict)).toEqual({ ok: false, reason: '10.0.0.1 is a private address' })
    expect(isUrlSyntacticallyAllowed('https://0x7f.1/x', strict)).toEqual({ ok: false, reason: '127.0.0.1 is a loopback address' })
    expect(isUrlSyntacticallyAllowed('https://a:b@hooks.example.com/x', strict).ok).toBe(false)
  })

  test('plain http only to a loopback host, and only when loopback is allowed', () => {
    expect(isUrlSyntacticallyAllowed('http://127.0.0.1:9/h', strict).ok).toBe(false)
    expect(isUrlSyntacticallyAllowed('http://127.0.0.1:9/h', loose).ok).toBe(true)
    expect(isUrlSyntacticallyAllowed('http://localhost:9/h', loose).ok).toBe(true)
    expect(isUrlSyntacticallyAllowed('http://hooks.example.com/h', loose).ok).toBe(false)
    expect(isUrlSyntacticallyAllowed('http://192.168.1.1/h', loose).ok).toBe(false)
  })
})
