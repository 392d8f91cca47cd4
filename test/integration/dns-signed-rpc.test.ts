// The two signed RPC-style adapters (DNSPod's TC3-HMAC-SHA256, Alibaba Cloud DNS's HMAC-SHA1 query
// signature) beyond the shared contract: the signature matches the provider's published worked
// example, and the stand-ins check the signature itself (a right key id with a wrong secret, a body or
// parameter changed after signing and a replayed nonce are refused), not only the key id.
import { describe, test, expect, afterAll } from 'bun:test'
import { rpcSignature } from '../../src/adapters/dns-providers/alibaba-cloud-dns/adapter.ts'
import { tc3Signature } from '../../src/adapters/dns-providers/dnspod/adapter.ts'
import { makeHosted, ProviderError } from '../../src/adapters/dns-providers/index.ts'
import { startAlidnsFake } from '../../src/adapters/dns-providers/alibaba-cloud-dns/stand-in.ts'
import { startDnspodFake } from '../../src/adapters/dns-providers/dnspod/stand-in.ts'

const ali = startAlidnsFake()
const pod = startDnspodFake()
afterAll(() => [ali, pod].forEach((f) => f.stop()))
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => (e instanceof ProviderError ? e : Promise.reject(e)))
const [aliId, aliSecret] = ali.credential.split(':') as [string, string]
const [podId, podKey] = pod.credential.split(':') as [string, string]

describe('Alibaba Cloud DNS signature', () => {
  test('matches the worked example of the RPC signing page (DescribeRegions, key testid/testsecret)', () => {
    // https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism (signature version 1.0 example).
    const q = { AccessKeyId: 'testid', Action: 'DescribeRegions', Format: 'XML', SignatureMethod: 'HMAC-SHA1', SignatureNonce: '3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf', SignatureVersion: '1.0', Timestamp: '2016-02-23T12:46:24Z', Version: '2014-05-26' }
    expect(rpcSignature('testsecret', q).signature).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=')
  })

  test('the stand-in refuses a wrong secret, a changed parameter and a replayed nonce', async () => {
    expect((await errorOf(makeHosted('alibaba-cloud-dns', `${aliId}:wrong`, { 'alibaba-cloud-dns': ali.url })!.listZones()))?.kind).toBe('auth')
    const q: Record<string, string> = { Action: 'DescribeDomains', Version: '2015-01-09', Format: 'JSON', AccessKeyId: aliId, SignatureMethod: 'HMAC-SHA1', SignatureVersion: '1.0', SignatureNonce: crypto.randomUUID(), Timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), PageNumber: '1', PageSize: '10' }
    const { canonical, signature } = rpcSignature(aliSecret, q)
    const send = async (query: string) => (await fetch(`${ali.url}/?${query}&Signature=${encodeURIComponent(signature)}`)).json()
    expect((await send(canonical.replace('PageSize=10', 'PageSize=11'))).Code).toBe('SignatureDoesNotMatch')
    expect((await send(canonical)).Domains).toBeDefined()
    expect((await send(canonical)).Code).toBe('SignatureNonceUsed')
  })
})

describe('DNSPod signature', () => {
  test('the stand-in refuses a wrong SecretKey and a body changed after signing', async () => {
    expect((await errorOf(makeHosted('dnspod', `${podId}:wrong`, { dnspod: pod.url })!.listZones()))?.kind).toBe('auth')
    const ts = Math.floor(Date.now() / 1000)
    const s = tc3Signature(podKey, new URL(pod.url).host, ts, '{"Offset":0,"Limit":3}')
    const send = async (body: string) =>
      (
        await fetch(pod.url + '/', {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json; charset=utf-8', 'x-tc-action': 'DescribeDomainList', 'x-tc-version': '2021-03-23', 'x-tc-timestamp': String(ts), authorization: `TC3-HMAC-SHA256 Credential=${podId}/${s.scope}, SignedHeaders=${s.signedHeaders}, Signature=${s.signature}` },
        })
      ).json()
    expect((await send('{"Offset":0,"Limit":100}')).Response.Error.Code).toBe('AuthFailure.SignatureFailure')
    pod.addZone('signed-pod.example')
    expect((await send('{"Offset":0,"Limit":3}')).Response.DomainList.length).toBeGreaterThan(0)
  })

  test('an empty zone reads as no records (DNSPod answers ResourceNotFound.NoDataOfRecord)', async () => {
    pod.addZone('empty-pod.example')
    const p = makeHosted('dnspod', pod.credential, { dnspod: pod.url })!
    const zone = (await p.listZones()).find((z) => z.name === 'empty-pod.example')!
    expect(await p.readRecords(zone)).toEqual([])
  })
})

describe('in-place updates', () => {
  // A new address or TTL for a one-value set is one update call: the record keeps its id and the set is never empty.
  for (const [id, f, idOf] of [
    ['dnspod', pod, (r: any) => r.RecordId],
    ['alibaba-cloud-dns', ali, (r: any) => r.RecordId],
  ] as const) {
    test(`${id}: a changed one-value set is updated in place`, async () => {
      const name = `update-${id}.example`
      const z = f.addZone(name)
      const p = makeHosted(id, f.credential, { [id]: f.url })!
      const zone = (await p.listZones()).find((x) => x.name === name)!
      await p.writeChanges(zone, [{ name, type: 'A', ttl: 600, values: ['198.51.100.1'] }])
      const before = idOf((z.records as any[])[0])
      // Both refuse a TTL under 600 (their cards): the new TTL stays above the floor.
      await p.writeChanges(zone, [{ name, type: 'A', ttl: 900, values: ['203.0.113.7'] }])
      expect(await p.readRecords(zone)).toEqual([{ name, type: 'A', ttl: 900, values: ['203.0.113.7'] }])
      expect((z.records as any[]).map(idOf)).toEqual([before])
    })
  }
})
