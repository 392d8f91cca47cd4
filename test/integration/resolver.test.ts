// The resolver adapter against a real authoritative server: values as written in a zone, and
// NXDOMAIN, no data and failure told apart.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { Resolver, createResolver, decodeResponse, encodeQuery } from '../../src/adapters/resolver.ts'
import { startPdns, type Pdns } from '../harness/pdns.ts'

let pdns: Pdns
let r: Resolver
const zone = `res${Date.now().toString(36)}.test`

beforeAll(async () => {
  pdns = await startPdns()
  r = new Resolver({ servers: [pdns.dnsAddress], timeoutMs: 1000 })
  await pdns.createZone(zone)
  await pdns.setRecords(zone, 'A', ['198.51.100.1', '198.51.100.2'])
  await pdns.setRecords(zone, 'AAAA', ['2001:db8:0:0:0:0:0:1'])
  await pdns.setRecords(zone, 'TXT', ['"v=spf1 include:_spf.example.com ~all"', '"two" "parts"'])
  await pdns.setRecords(zone, 'MX', ['10 mx1.example.com.', '20 mx2.example.com.'])
  await pdns.setRecords(zone, 'CAA', ['0 issue "letsencrypt.org"'])
  await pdns.setRecords(`www.${zone}`, 'CNAME', ['edge.portico.test.'])
  await pdns.setRecords(`chain.${zone}`, 'CNAME', [`www.${zone}.`])
  await pdns.setRecords(`app.${zone}`, 'CNAME', [`target.${zone}.`])
  await pdns.setRecords(`target.${zone}`, 'A', ['203.0.113.7'])
  await pdns.setRecords(`quote.${zone}`, 'CAA', ['0 iodef "mailto:sec@example.com"', '128 issue "ca.example; account=1"'])
  await pdns.setRecords(`long.${zone}`, 'TXT', Array.from({ length: 12 }, (_, i) => `"${String(i).padStart(2, '0')}${'x'.repeat(200)}"`))
})

afterAll(async () => {
  await r.close()
})

describe('resolver', () => {
  test('values as a person writes them', async () => {
    const a = await r.lookup(zone, 'A')
    expect(a.status === 'ok' && a.values.sort()).toEqual(['198.51.100.1', '198.51.100.2'])
    expect(await r.lookup(zone, 'AAAA')).toEqual({ status: 'ok', values: ['2001:db8::1'] })
    const txt = await r.lookup(zone, 'TXT')
    expect(txt.status === 'ok' && txt.values.sort()).toEqual(['twoparts', 'v=spf1 include:_spf.example.com ~all'])
    const mx = await r.lookup(zone, 'MX')
    expect(mx.status === 'ok' && mx.values.sort()).toEqual(['10 mx1.example.com', '20 mx2.example.com'])
    expect(await r.lookup(zone, 'CAA')).toEqual({ status: 'ok', values: ['0 issue "letsencrypt.org"'] })
    const ns = await r.lookup(zone.toUpperCase() + '.', 'NS')
    expect(ns.status === 'ok' && ns.values.sort()).toEqual(['ns1.portico-test.test', 'ns2.portico-test.test'])
  })

  test('a CNAME is reported, and an address query through it says so', async () => {
    expect(await r.lookup(`www.${zone}`, 'CNAME')).toEqual({ status: 'ok', values: ['edge.portico.test'] })
    expect(await r.lookup(`www.${zone}`, 'A')).toEqual({ status: 'ok', values: [], cname: 'edge.portico.test' })
  })

  test('an address query through a CNAME answers with the target\'s addresses and names the alias', async () => {
    expect(await r.lookup(`app.${zone}`, 'A')).toEqual({ status: 'ok', values: ['203.0.113.7'], cname: `target.${zone}` })
    // A chain is followed inside the answer; the first hop is the one reported.
    expect(await r.lookup(`chain.${zone}`, 'A')).toEqual({ status: 'ok', values: [], cname: `www.${zone}` })
  })

  test('CAA flags, tags and values as written', async () => {
    const caa = await r.lookup(`quote.${zone}`, 'CAA')
    expect(caa.status === 'ok' && caa.values.sort()).toEqual(['0 iodef "mailto:sec@example.com"', '128 issue "ca.example; account=1"'])
  })

  test('a child zone delegated to provider-looking nameservers answers NS with them', async () => {
    const child = `do${Date.now().toString(36)}.test`
    await pdns.createZone(child, { nameservers: ['ns1.digitalocean.com.', 'ns2.digitalocean.com.'] })
    const ns = await r.lookup(child, 'NS')
    expect(ns.status === 'ok' && ns.values.sort()).toEqual(['ns1.digitalocean.com', 'ns2.digitalocean.com'])
    expect(await r.lookup(child, 'SOA')).toMatchObject({ status: 'ok' })
  })

  test('an unresponsive server is a resolver error within the timeout, and answers come back after', async () => {
    const quick = createResolver({ servers: [pdns.dnsAddress], timeoutMs: 300, tries: 2 })
    await pdns.pause()
    try {
      const started = performance.now()
      const l = await quick.lookup(zone, 'A')
      expect(l.status).toBe('error')
      expect(performance.now() - started).toBeLessThan(1000)
    } finally {
      pdns.resume()
    }
    expect((await quick.lookup(zone, 'A')).status).toBe('ok')
    await quick.close()
  })

  test('a stopped server is a resolver error; a restarted one answers with the same data', async () => {
    const quick = createResolver({ servers: [pdns.dnsAddress], timeoutMs: 300, tries: 1 })
    await pdns.stopServer()
    try {
      expect((await quick.lookup(zone, 'A')).status).toBe('error')
    } finally {
      await pdns.startServer()
    }
    const a = await quick.lookup(zone, 'A')
    expect(a.status === 'ok' && a.values.sort()).toEqual(['198.51.100.1', '198.51.100.2'])
    await quick.close()
  })

  test('a second server takes over when the first does not answer', async () => {
    const failover = createResolver({ servers: ['127.0.0.1:9', pdns.dnsAddress], timeoutMs: 300, tries: 2 })
    const a = await failover.lookup(zone, 'MX')
    expect(a.status).toBe('ok')
    await failover.close()
  })

  test('NXDOMAIN, no data and failure are different answers', async () => {
    expect(await r.lookup(`missing.${zone}`, 'A')).toEqual({ status: 'nxdomain' })
    expect(await r.lookup(`nothing-${Date.now()}.test`, 'NS')).toEqual({ status: 'nxdomain' })
    expect(await r.lookup(zone, 'CNAME')).toEqual({ status: 'nodata' })
    expect(await r.lookup(`target.${zone}`, 'TXT')).toEqual({ status: 'nodata' })
    // An empty non-terminal exists: it has no records of any type, but names below it do (RFC 8020 §2).
    await pdns.setRecords(`a.b.${zone}`, 'TXT', ['"deep"'])
    expect(await r.lookup(`b.${zone}`, 'A')).toEqual({ status: 'nodata' })
    // An authoritative server refuses names outside its zones: a failure, not a verdict.
    const refused = await r.lookup('example.com', 'A')
    expect(refused.status).toBe('error')
    const dead = new Resolver({ servers: ['127.0.0.1:9'], timeoutMs: 200, tries: 2 })
    const started = performance.now()
    // Concurrent lookups: ICMP port-unreachable from one must not break the others' sends.
    const all = await Promise.all([dead.lookup(zone, 'A'), dead.lookup(zone, 'NS'), dead.lookup(zone, 'TXT')])
    expect(all.map((l) => l.status)).toEqual(['error', 'error', 'error'])
    expect(performance.now() - started).toBeLessThan(2000)
    await dead.close()
  })

  test('a truncated UDP answer is retried over TCP', async () => {
    const l = await r.lookup(`long.${zone}`, 'TXT')
    expect(l.status).toBe('ok')
    expect(l.status === 'ok' && l.values.length).toBe(12)
  })

  test('many lookups in flight are matched to their questions', async () => {
    const names = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? zone : i % 3 === 1 ? `www.${zone}` : `missing${i}.${zone}`))
    const results = await Promise.all(names.map((n) => r.lookup(n, 'A')))
    results.forEach((res, i) => {
      const want = i % 3 === 0 ? 'ok' : i % 3 === 1 ? 'ok' : 'nxdomain'
      expect(res.status).toBe(want)
    })
  })

  test('beyond its in-flight limit, lookups wait for a slot and are still answered', async () => {
    const narrow = new Resolver({ servers: [pdns.dnsAddress], timeoutMs: 1000, maxInFlight: 3 })
    const names = Array.from({ length: 60 }, (_, i) => (i % 2 ? `www.${zone}` : `missing${i}.${zone}`))
    const results = await Promise.all(names.map((n) => narrow.lookup(n, 'A')))
    expect(results.map((l) => l.status)).toEqual(names.map((_, i) => (i % 2 ? 'ok' : 'nxdomain')))
    await narrow.close()
  })

  test('time spent waiting for a slot counts against the timeout: a dead server fails them all in one timeout', async () => {
    const dead = new Resolver({ servers: ['127.0.0.1:9'], timeoutMs: 300, tries: 1, maxInFlight: 2 })
    const started = performance.now()
    const all = await Promise.all(Array.from({ length: 10 }, (_, i) => dead.lookup(`n${i}.${zone}`, 'A')))
    expect(all.every((l) => l.status === 'error')).toBe(true)
    // Five rounds of two would take 1.5 s; the waiting ones give up with the first.
    expect(performance.now() - started).toBeLessThan(900)
    await dead.close()
  })

  test('a name DNS cannot carry is an error, not a query', async () => {
    const l = await r.lookup(`${'x'.repeat(64)}.${zone}`, 'A')
    expect(l).toMatchObject({ status: 'error' })
  })

  test('the codec round-trips a question', () => {
    const q = encodeQuery(4242, 'Shop.Example.com', 16)
    const d = decodeResponse(q)
    expect(d).toMatchObject({ id: 4242, qname: 'shop.example.com', qtype: 16, rcode: 0, answers: [] })
  })
})

describe('answers read from the wire', () => {
  // A minimal authoritative stand-in: answers every question with one CNAME, its owner compressed
  // to the question and its target given by `target(qname)` as labels ending in a pointer to it.
  async function fakeServer(opts: { upcase: boolean; prefix: string }) {
    const socket = await Bun.udpSocket({
      hostname: '127.0.0.1',
      socket: {
        data(s, q, port, address) {
          let end = 12
          while (q[end]! !== 0) end += q[end]! + 1
          end += 5 // root label, QTYPE, QCLASS
          const question = Buffer.from(q.subarray(12, end))
          if (opts.upcase) for (let i = 0; i < question.length - 5; i++) if (question[i]! >= 0x61 && question[i]! <= 0x7a) question[i]! -= 0x20
          const label = Buffer.from(opts.prefix)
          const rdata = Buffer.concat([Buffer.from([label.length]), label, Buffer.from([0xc0, 12])])
          const answer = Buffer.alloc(12)
          answer.writeUInt16BE(0xc00c, 0)
          answer.writeUInt16BE(5, 2) // CNAME
          answer.writeUInt16BE(1, 4)
          answer.writeUInt32BE(300, 6)
          answer.writeUInt16BE(rdata.length, 10)
          const header = Buffer.alloc(12)
          header.writeUInt16BE(q.readUInt16BE(0), 0)
          header.writeUInt16BE(0x8580, 2) // response, authoritative, RD, RA
          header.writeUInt16BE(1, 4)
          header.writeUInt16BE(1, 6)
          s.send(Buffer.concat([header, question, answer, rdata]), port, address)
        },
      },
    })
    return socket
  }

  test('a compressed answer reads the same whether the question came back byte for byte or in another case', async () => {
    for (const upcase of [false, true]) {
      const server = await fakeServer({ upcase, prefix: 'edge' })
      const fake = new Resolver({ servers: [`127.0.0.1:${server.port}`], timeoutMs: 1000 })
      try {
        expect(await fake.lookup('Shop.Example.test', 'CNAME')).toEqual({ status: 'ok', values: ['edge.shop.example.test'] })
      } finally {
        await fake.close()
        server.close()
      }
    }
  })
})
