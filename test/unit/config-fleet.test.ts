// The settings of the edge fleet and the registrar: what each variable becomes, and the clear
// message a bad value stops the process with.
import { describe, test, expect } from 'bun:test'
import { ConfigError } from '../../src/config.ts'
import { nodeSettings } from '../../src/adapters/edge.ts'
import { testConfig } from '../harness/portico.ts'

const edge = { EDGE_AUTH_SECRET: 'secret' }

describe('EDGE_ADMIN_URLS', () => {
  test('EDGE_ADMIN_URL is a fleet of one, named by its host', () => {
    const c = testConfig({ ...edge, EDGE_ADMIN_URL: 'http://10.0.0.5:2019/' }).edgeServer!
    expect(c.adminUrl).toBe('http://10.0.0.5:2019')
    expect(c.nodes).toEqual([{ name: '10.0.0.5:2019', adminUrl: 'http://10.0.0.5:2019', bindHost: null }])
  })

  test('a list, with names where given; EDGE_BIND_ADMIN_HOST binds each node on its own address', () => {
    const c = testConfig({ ...edge, EDGE_ADMIN_URLS: 'eu-1=http://127.0.0.2:2019, http://127.0.0.3:2019', EDGE_BIND_ADMIN_HOST: '1', EDGE_HTTPS_LISTEN: ':8443', EDGE_ASK_LISTEN: '127.0.0.1:5555' }).edgeServer!
    expect(c.nodes.map((n) => [n.name, n.bindHost])).toEqual([['eu-1', '127.0.0.2'], ['127.0.0.3:2019', '127.0.0.3']])
    const node = nodeSettings(c, c.nodes[0]!)
    expect(node).toMatchObject({ adminUrl: 'http://127.0.0.2:2019', httpsListen: '127.0.0.2:8443', askListen: '127.0.0.2:5555', httpListen: '127.0.0.2:80' })
  })

  test('bad values are refused with the variable named', () => {
    expect(() => testConfig({ ...edge, EDGE_ADMIN_URLS: 'http://a:1', EDGE_ADMIN_URL: 'http://b:1' })).toThrow(ConfigError)
    expect(() => testConfig({ ...edge, EDGE_ADMIN_URLS: 'a=http://a:1,a=http://b:1' })).toThrow(/two nodes have one name/)
    expect(() => testConfig({ ...edge, EDGE_ADMIN_URLS: 'ftp://a' })).toThrow(/EDGE_ADMIN_URLS/)
    expect(() => testConfig({ EDGE_AUTH_SECRET: '', EDGE_ADMIN_URLS: 'http://a:1' })).toThrow(/EDGE_AUTH_SECRET/)
    expect(() => testConfig({ ...edge, EDGE_ADMIN_URL: 'http://a:1', EDGE_STORAGE: '{"root":"/x"}' })).toThrow(/EDGE_STORAGE/)
    expect(() => testConfig({ ...edge, EDGE_ADMIN_URL: 'http://a:1', EDGE_STORAGE: 'not json' })).toThrow(/EDGE_STORAGE/)
    expect(testConfig({ ...edge, EDGE_ADMIN_URL: 'http://a:1', EDGE_STORAGE: '{"module":"file_system","root":"/x"}' }).edgeServer!.storage).toEqual({ module: 'file_system', root: '/x' })
  })
})

describe('REGISTRAR', () => {
  test('sandbox by default; namecom needs its credentials', () => {
    expect(testConfig().registrar).toBe('sandbox')
    expect(() => testConfig({ REGISTRAR: 'namecom' })).toThrow(/NAMECOM_USERNAME and NAMECOM_API_TOKEN/)
    expect(() => testConfig({ REGISTRAR: 'godaddy' })).toThrow(/REGISTRAR/)
    const c = testConfig({ REGISTRAR: 'namecom', NAMECOM_USERNAME: 'u', NAMECOM_API_TOKEN: 't' })
    expect(c.namecom).toEqual({ apiUrl: 'https://api.name.com', username: 'u', token: 't' })
  })
})
