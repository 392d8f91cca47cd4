import { describe, test, expect } from 'bun:test'
import { generateKeyPairSync } from 'node:crypto'
import { readFileSync, readdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import Ajv from 'ajv'
import { parseTemplate, loadTemplatesFromDir, templateVariables, type Template } from '../../src/domain/domain-connect/template.ts'
import { applyTemplate, type ZoneRecord } from '../../src/domain/domain-connect/apply.ts'
import { compatibleGroups, fillVariables } from '../harness/dc-variables.ts'
import { planForConnection } from '../../src/domain/domain-connect/connection.ts'
import { apiBase, parseSettings } from '../../src/domain/domain-connect/discovery.ts'
import {
  signApplyQuery,
  verifyApplyQuery,
  publicKeyTxtRecords,
  publicKeyFromTxt,
  buildSyncApplyUrl,
  splitSignedQuery,
  canonicalQuery,
} from '../../src/domain/domain-connect/signing.ts'

const FIXTURES = join(import.meta.dir, '../fixtures/domain-connect')
const PUBLIC_DIR = join(FIXTURES, 'templates')
const OWN_DIR = join(import.meta.dir, '../../templates')
const DOMAIN = 'example.test'

// The schema carries annotation keywords of its generator (qt-uri-*), unknown to Ajv's strict mode.
const ajv = new Ajv({ strict: false, allErrors: true })
const validateSchema = ajv.compile(JSON.parse(readFileSync(join(FIXTURES, 'template.schema'), 'utf8')))

function readJson(dir: string, file: string): unknown {
  return JSON.parse(readFileSync(join(dir, file), 'utf8'))
}

function mustParse(json: unknown): Template {
  const parsed = parseTemplate(json)
  if (!parsed.ok) throw new Error(parsed.errors.join('; '))
  return parsed.template
}

const ZONE: ZoneRecord[] = [
  { type: 'NS', name: DOMAIN, data: 'ns1.dns.test', ttl: 86400 },
  { type: 'NS', name: DOMAIN, data: 'ns2.dns.test', ttl: 86400 },
  { type: 'A', name: DOMAIN, data: '192.0.2.10', ttl: 3600 },
  { type: 'A', name: `www.${DOMAIN}`, data: '192.0.2.10', ttl: 3600 },
  { type: 'MX', name: DOMAIN, data: 'mx.old-mail.test', ttl: 3600, priority: 10 },
  { type: 'TXT', name: DOMAIN, data: 'v=spf1 include:_spf.old-mail.test ~all', ttl: 3600 },
  { type: 'TXT', name: DOMAIN, data: 'site-verification=abc123', ttl: 3600 },
  { type: 'TXT', name: `_dmarc.${DOMAIN}`, data: 'v=DMARC1; p=none', ttl: 3600 },
  { type: 'CAA', name: DOMAIN, data: '0 issue "letsencrypt.org"', ttl: 3600 },
  { type: 'CAA', name: DOMAIN, data: '0 iodef "mailto:security@example.test"', ttl: 3600 },
]

const sameRecord = (a: ZoneRecord, b: ZoneRecord) => a.type === b.type && a.name === b.name && a.data === b.data && a.priority === b.priority

// ---------------------------------------------------------------- the published sample

const publicFiles = readdirSync(PUBLIC_DIR).filter((f) => f.endsWith('.json')).sort()

describe('published templates', () => {
  test('the sample is there (60 files)', () => {
    expect(publicFiles.length).toBe(60)
  })

  for (const file of publicFiles) {
    test(`${file}: schema-valid, parses, applies and re-applies without change`, () => {
      const json = readJson(PUBLIC_DIR, file)
      expect(validateSchema(json), JSON.stringify(validateSchema.errors)).toBe(true)
      const parsed = parseTemplate(json, file)
      if (!parsed.ok) throw new Error(parsed.errors.join('; '))
      const template = parsed.template
      const params = fillVariables(template)
      const hosts = template.hostRequired ? ['shop'] : [undefined, 'shop']
      for (const host of hosts) {
        const groupIds = compatibleGroups(template, DOMAIN, host, params)
        const first = applyTemplate({ template, domain: DOMAIN, host, params, groupIds, zone: ZONE })
        if (!first.ok) throw new Error(`${host ?? '(apex)'}: ${first.error}`)
        for (const rec of first.records) {
          if (rec.type === 'SPFM') {
            const spf = first.result.find((r) => r.type === 'TXT' && r.name === rec.name && r.data.startsWith('v=spf1 '))
            expect(spf, `SPF at ${rec.name}`).toBeDefined()
            for (const term of rec.data.split(' ')) expect(spf!.data.split(' ')).toContain(term)
          } else {
            expect(first.result.some((r) => sameRecord(r, rec)), `${rec.type} ${rec.name} ${rec.data}`).toBe(true)
          }
        }
        for (const caa of ZONE.filter((r) => r.type === 'CAA')) expect(first.result).toContainEqual(caa)
        for (const ns of ZONE.filter((r) => r.type === 'NS')) expect(first.result).toContainEqual(ns)
        expect(first.result.length).toBe(ZONE.length - first.toDelete.length + first.toAdd.length)
        const second = applyTemplate({ template, domain: DOMAIN, host, params, groupIds, zone: first.result })
        if (!second.ok) throw new Error(second.error)
        expect(second.toAdd).toEqual([])
        expect(second.toDelete).toEqual([])
        expect(second.result).toEqual(first.result)
      }
    })
  }

  test('loadTemplatesFromDir loads the whole sample with no failure', () => {
    const { templates, failures } = loadTemplatesFromDir(PUBLIC_DIR)
    expect(failures).toEqual([])
    expect(templates.length).toBe(60)
  })
})

describe("Portico's own templates", () => {
  const files = readdirSync(OWN_DIR).filter((f) => f.endsWith('.json'))

  test('every file validates against the public schema and our parser', () => {
    expect(files).toContain('portico.io.connect.json')
    for (const file of files) {
      const json = readJson(OWN_DIR, file)
      expect(validateSchema(json), `${file}: ${JSON.stringify(validateSchema.errors)}`).toBe(true)
      expect(parseTemplate(json, file).ok).toBe(true)
    }
    expect(loadTemplatesFromDir(OWN_DIR).failures).toEqual([])
  })

  test('connect points the host at the target', () => {
    const template = mustParse(readJson(OWN_DIR, 'portico.io.connect.json'))
    expect(templateVariables(template)).toEqual(['target'])
    const r = applyTemplate({ template, domain: DOMAIN, host: 'app', params: { target: 'edge.portico.test' }, zone: ZONE })
    if (!r.ok) throw new Error(r.error)
    expect(r.toAdd).toEqual([{ type: 'CNAME', name: `app.${DOMAIN}`, data: 'edge.portico.test', ttl: 300 }])
    expect(r.toDelete).toEqual([])
    expect(applyTemplate({ template, domain: DOMAIN, params: { target: 'edge.portico.test' }, zone: ZONE })).toMatchObject({ ok: false, code: 'host_required' })
  })

  test('connect-apex writes only the groups asked for', () => {
    const template = mustParse(readJson(OWN_DIR, 'portico.io.connect-apex.json'))
    const params = { ip1: '203.0.113.1', ip2: '203.0.113.2', token: 'tok-1', target: 'edge.portico.test' }
    const r = applyTemplate({ template, domain: DOMAIN, params, groupIds: ['core', 'ip2'], zone: [] })
    if (!r.ok) throw new Error(r.error)
    expect(r.toAdd.map((x) => `${x.type} ${x.name} ${x.data}`).sort()).toEqual(
      [`A ${DOMAIN} 203.0.113.1`, `A ${DOMAIN} 203.0.113.2`, `TXT _portico-challenge.${DOMAIN} portico-verify=tok-1`].sort(),
    )
    // Every record at once needs every variable.
    expect(applyTemplate({ template, domain: DOMAIN, params, zone: [] })).toMatchObject({ ok: false, code: 'missing_variable' })
  })
})

describe('which template sets a connection', () => {
  const own = loadTemplatesFromDir(OWN_DIR).templates
  const connection = (domain: string, apex: string, records: { type: string; host: string; value: string }[], ips = ['203.0.113.1']) => ({
    domain,
    apex_domain: apex,
    planned_target: { cname_target: 'edge.portico.test', apex_ipv4: ips },
    verification_token: 'tok',
    desired_records: records.map((r) => ({ ...r, ttl: 300 })) as never,
  })
  const firstFit = (c: ReturnType<typeof connection>) => {
    for (const t of own) {
      const r = planForConnection(t, c)
      if (r.ok) return r.plan
    }
    return null
  }

  test('a subdomain: connect, with only the variable it uses', () => {
    const plan = firstFit(connection('shop.example.test', 'example.test', [{ type: 'CNAME', host: 'shop', value: 'edge.portico.test' }]))
    expect(plan).toMatchObject({ template: { serviceId: 'connect' }, host: 'shop', params: { target: 'edge.portico.test' } })
    expect(plan!.groupIds).toBeUndefined()
  })

  test('an apex on A records: connect-apex with the groups its records need', () => {
    const one = firstFit(connection('example.test', 'example.test', [
      { type: 'A', host: '@', value: '203.0.113.1' },
      { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
    ]))
    expect(one).toMatchObject({ template: { serviceId: 'connect-apex' }, groupIds: ['core'], params: { ip1: '203.0.113.1', token: 'tok' } })
    const two = firstFit(connection('example.test', 'example.test', [
      { type: 'A', host: '@', value: '203.0.113.1' },
      { type: 'A', host: '@', value: '203.0.113.2' },
      { type: 'TXT', host: '_portico-challenge', value: 'portico-verify=tok' },
      { type: 'CNAME', host: 'www', value: 'edge.portico.test' },
    ], ['203.0.113.1', '203.0.113.2']))
    expect(two).toMatchObject({ template: { serviceId: 'connect-apex' }, groupIds: ['core', 'ip2', 'www'] })
  })

  test('an apex on an ALIAS-capable provider: connect-apex-alias (APEXCNAME)', () => {
    const plan = firstFit(connection('example.test', 'example.test', [{ type: 'CNAME', host: '@', value: 'edge.portico.test' }], []))
    expect(plan).toMatchObject({ template: { serviceId: 'connect-apex-alias' }, groupIds: ['core'] })
    expect(plan!.records).toEqual([{ type: 'APEXCNAME', name: 'example.test', data: 'edge.portico.test', ttl: 300, essential: 'Always', groupId: 'core' }])
  })

  test('records no template sets: none fits, and a named one says what it misses', () => {
    const c = connection('shop.example.test', 'example.test', [{ type: 'TXT', host: 'shop', value: 'hello' }])
    expect(firstFit(c)).toBeNull()
    const r = planForConnection(own.find((t) => t.serviceId === 'connect')!, c)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error).toContain('TXT shop.example.test hello')
  })
})

describe('discovery', () => {
  test('the _domainconnect value is an authority with an optional path; http only for loopback under the test setting', () => {
    expect(apiBase('api.example.com', true)).toBe('https://api.example.com')
    expect(apiBase('api.example.com/dc', false)).toBe('https://api.example.com/dc')
    expect(apiBase('127.0.0.1:8080/dc/', true)).toBe('http://127.0.0.1:8080/dc')
    expect(apiBase('127.0.0.1:8080', false)).toBe('https://127.0.0.1:8080')
    expect(apiBase('[::1]:99', true)).toBe('http://[::1]:99')
  })

  test('settings: providerId is required, unknown properties are ignored, URLs are kept only when they are URLs', () => {
    expect(parseSettings({ providerName: 'X' })).toBe('settings lack providerId')
    expect(parseSettings([])).toBe('settings are not a JSON object')
    expect(parseSettings({ providerId: 'dns.test', providerName: 'DNS', urlSyncUX: 'https://sync.dns.test', urlAPI: 'not a url at all', vendorThing: 1 })).toEqual({
      providerId: 'dns.test',
      providerName: 'DNS',
      urlSyncUX: 'https://sync.dns.test',
    })
  })
})

// ---------------------------------------------------------------- parser and loader

describe('parseTemplate', () => {
  const minimal = { providerId: 'p.test', providerName: 'P', serviceId: 's', serviceName: 'S', records: [] as unknown[] }

  test('reports what the schema refuses, with the file name', () => {
    const bad = { ...minimal, version: '1', records: [{ type: 'MX', host: '@', pointsTo: 'mx.test', ttl: 3600 }, { type: 'A', host: '@', pointsTo: '192.0.2.1', ttl: '%t1%' }] }
    expect(validateSchema(bad)).toBe(false)
    const r = parseTemplate(bad, 'bad.json')
    expect(r.ok).toBe(false)
    if (r.ok) return
    expect(r.errors).toContain('bad.json: version: must be an integer')
    expect(r.errors).toContain('bad.json: records[0] (MX): missing required field "priority"')
    expect(r.errors.some((e) => e.includes('records[1].ttl'))).toBe(true)
  })

  test('a CNAME at the root needs hostRequired, as in the schema', () => {
    const t = { ...minimal, records: [{ type: 'CNAME', host: '@', pointsTo: 'x.test', ttl: 60 }] }
    expect(validateSchema(t)).toBe(false)
    expect(parseTemplate(t).ok).toBe(false)
    expect(validateSchema({ ...t, hostRequired: true })).toBe(true)
    expect(parseTemplate({ ...t, hostRequired: true }).ok).toBe(true)
  })

  test('generic types need host, data and ttl; unknown fields are ignored; essential and modes are normalised', () => {
    const t = {
      ...minimal,
      vendorThing: { any: 1 },
      records: [
        { type: 'CAA', host: '@', data: '0 issue "ca.test"', ttl: 300, essential: 'onApply' },
        { type: 'TXT', host: '@', data: 'x', ttl: 300, txtConflictMatchingMode: 'prefix', txtConflictMatchingPrefix: 'x' },
      ],
    }
    expect(validateSchema(t)).toBe(true)
    const parsed = mustParse(t)
    expect(parsed.records[0]!.essential).toBe('OnApply')
    expect(parsed.records[1]!.txtConflictMatchingMode).toBe('Prefix')
    expect(parsed.hostRequired).toBe(false)
    expect(parseTemplate({ ...minimal, records: [{ type: 'CAA', host: '@', ttl: 300 }] }).ok).toBe(false)
  })

  test('a template marking an unknown property critical is refused', () => {
    expect(parseTemplate({ ...minimal, crit: ['vnd.example.thing'] }).ok).toBe(false)
    expect(parseTemplate({ ...minimal, crit: ['hostRequired'] }).ok).toBe(true)
  })

  test('templateVariables lists what the caller supplies, not the built-ins', () => {
    const t = mustParse({
      ...minimal,
      records: [
        { type: 'TXT', host: '%sel%._domainkey', data: 'k=%key% d=%domain% h=%host% f=%fqdn%', ttl: 60 },
        { type: 'MX', host: '@', pointsTo: 'mx.%domain%', priority: '%prio%', ttl: 60 },
        { type: 'SPFM', host: '@', spfRules: 'exists:%{i}._spf.%domain%' },
      ],
    })
    expect(templateVariables(t)).toEqual(['sel', 'key', 'prio'])
  })

  test('the loader names every failing file and refuses duplicates', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dc-templates-'))
    const good = { ...minimal, records: [{ type: 'A', host: '@', pointsTo: '%ip%', ttl: 60 }] }
    writeFileSync(join(dir, 'a.good.json'), JSON.stringify(good))
    writeFileSync(join(dir, 'b.copy.json'), JSON.stringify({ ...good, serviceId: 'S' }))
    writeFileSync(join(dir, 'c.broken.json'), '{ nope')
    writeFileSync(join(dir, 'd.invalid.json'), JSON.stringify({ providerId: 'p' }))
    writeFileSync(join(dir, 'README.md'), 'not a template')
    const { templates, failures } = loadTemplatesFromDir(dir)
    expect(templates.map((t) => t.fileName)).toEqual(['a.good.json'])
    expect(failures.map((f) => f.file)).toEqual(['b.copy.json', 'c.broken.json', 'd.invalid.json'])
    expect(failures[0]!.errors[0]).toContain('a.good.json')
  })
})

// ---------------------------------------------------------------- application rules

function tpl(records: unknown[], extra: Record<string, unknown> = {}): Template {
  return mustParse({ providerId: 'p.test', providerName: 'P', serviceId: 's', serviceName: 'S', records, ...extra })
}

function applyOk(template: Template, zone: ZoneRecord[], params: Record<string, string> = {}, host?: string, groupIds?: string[]) {
  const r = applyTemplate({ template, domain: DOMAIN, host, params, zone, groupIds })
  if (!r.ok) throw new Error(r.error)
  return r
}

describe('applyTemplate rules', () => {
  test('a CNAME removes the A (and everything else) at its host, not elsewhere', () => {
    const zone: ZoneRecord[] = [
      { type: 'A', name: `www.${DOMAIN}`, data: '192.0.2.1', ttl: 300 },
      { type: 'TXT', name: `www.${DOMAIN}`, data: 'hello', ttl: 300 },
      { type: 'A', name: DOMAIN, data: '192.0.2.1', ttl: 300 },
    ]
    const r = applyOk(tpl([{ type: 'CNAME', host: 'www', pointsTo: 'edge.test.', ttl: 600 }]), zone)
    expect(r.toDelete).toEqual(zone.slice(0, 2))
    expect(r.toAdd).toEqual([{ type: 'CNAME', name: `www.${DOMAIN}`, data: 'edge.test', ttl: 600 }])
    expect(r.result).toEqual([zone[2]!, r.toAdd[0]!])
  })

  test('an A record replaces CNAME, A and AAAA at its host but keeps MX and TXT', () => {
    const zone: ZoneRecord[] = [
      { type: 'CNAME', name: `shop.${DOMAIN}`, data: 'old.test', ttl: 300 },
      { type: 'AAAA', name: DOMAIN, data: '2001:db8::1', ttl: 300 },
      { type: 'A', name: DOMAIN, data: '192.0.2.1', ttl: 300 },
      { type: 'A', name: DOMAIN, data: '192.0.2.2', ttl: 300 },
      { type: 'MX', name: DOMAIN, data: 'mx.test', ttl: 300, priority: 5 },
    ]
    const r = applyOk(tpl([{ type: 'A', host: '@', pointsTo: '192.0.2.2', ttl: 600 }]), zone)
    expect(r.toDelete).toEqual([zone[1]!, zone[2]!])
    expect(r.toAdd).toEqual([])
    const sub = applyOk(tpl([{ type: 'A', host: '@', pointsTo: '%ip%', ttl: 600 }]), zone, { ip: '192.0.2.9' }, 'shop')
    expect(sub.toDelete).toEqual([zone[0]!])
    expect(sub.toAdd).toEqual([{ type: 'A', name: `shop.${DOMAIN}`, data: '192.0.2.9', ttl: 600 }])
  })

  test('MX replaces MX at the host; the new records join the TTL of records they share an RRset with', () => {
    const zone: ZoneRecord[] = [
      { type: 'MX', name: DOMAIN, data: 'mx1.old.test', ttl: 300, priority: 10 },
      { type: 'TXT', name: DOMAIN, data: 'keep me', ttl: 120 },
    ]
    const r = applyOk(
      tpl([
        { type: 'MX', host: '@', pointsTo: 'mx1.new.test', priority: 10, ttl: 3600 },
        { type: 'MX', host: '@', pointsTo: 'mx2.new.test', priority: '%second%', ttl: 3600 },
        { type: 'TXT', host: '@', data: 'new txt', ttl: 3600 },
      ]),
      zone,
      { second: '20' },
    )
    expect(r.toDelete).toEqual([zone[0]!])
    expect(r.toAdd).toEqual([
      { type: 'MX', name: DOMAIN, data: 'mx1.new.test', ttl: 3600, priority: 10 },
      { type: 'MX', name: DOMAIN, data: 'mx2.new.test', ttl: 3600, priority: 20 },
      { type: 'TXT', name: DOMAIN, data: 'new txt', ttl: 120 },
    ])
  })

  describe('TXT conflict modes', () => {
    const zone: ZoneRecord[] = [
      { type: 'TXT', name: DOMAIN, data: 'svc-verify=old', ttl: 300 },
      { type: 'TXT', name: DOMAIN, data: 'other=1', ttl: 300 },
      { type: 'TXT', name: `sub.${DOMAIN}`, data: 'svc-verify=elsewhere', ttl: 300 },
    ]
    const record = (mode?: string) => ({
      type: 'TXT',
      host: '@',
      data: 'svc-verify=%token%',
      ttl: 300,
      ...(mode ? { txtConflictMatchingMode: mode, txtConflictMatchingPrefix: 'svc-verify=' } : {}),
    })

    test('None (the default) adds beside every other TXT', () => {
      for (const mode of [undefined, 'None']) {
        const r = applyOk(tpl([record(mode)]), zone, { token: 'new' })
        expect(r.toDelete).toEqual([])
        expect(r.toAdd).toEqual([{ type: 'TXT', name: DOMAIN, data: 'svc-verify=new', ttl: 300 }])
      }
    })

    test('All replaces every TXT at the host', () => {
      const r = applyOk(tpl([record('All')]), zone, { token: 'new' })
      expect(r.toDelete).toEqual([zone[0]!, zone[1]!])
    })

    test('Prefix replaces only TXT at the host starting with the prefix', () => {
      const r = applyOk(tpl([record('Prefix')]), zone, { token: 'new' })
      expect(r.toDelete).toEqual([zone[0]!])
      expect(r.result).toContainEqual(zone[1]!)
      expect(r.result).toContainEqual(zone[2]!)
    })
  })

  describe('SPFM', () => {
    const spfm = tpl([{ type: 'SPFM', host: '@', spfRules: 'include:spf.new.test %extra%' }])

    test('merges into the existing v=spf1 record without duplicating terms and keeps its all', () => {
      const zone: ZoneRecord[] = [
        { type: 'TXT', name: DOMAIN, data: 'v=spf1 mx include:spf.new.test -all', ttl: 600 },
        { type: 'TXT', name: DOMAIN, data: 'unrelated', ttl: 600 },
      ]
      const r = applyOk(spfm, zone, { extra: 'ip4:192.0.2.0/24' })
      expect(r.toDelete).toEqual([zone[0]!])
      expect(r.toAdd).toEqual([{ type: 'TXT', name: DOMAIN, data: 'v=spf1 mx include:spf.new.test ip4:192.0.2.0/24 -all', ttl: 600 }])
      expect(r.records).toEqual([{ type: 'SPFM', name: DOMAIN, data: 'include:spf.new.test ip4:192.0.2.0/24', ttl: 3600, essential: 'Always' }])
      const again = applyOk(spfm, r.result, { extra: 'ip4:192.0.2.0/24' })
      expect([again.toAdd, again.toDelete]).toEqual([[], []])
    })

    test('a rule already present changes nothing; a less restrictive qualifier wins', () => {
      const zone: ZoneRecord[] = [{ type: 'TXT', name: DOMAIN, data: 'v=spf1 include:spf.new.test ~all', ttl: 600 }]
      expect(applyOk(spfm, zone, { extra: 'include:spf.new.test' }).toAdd).toEqual([])
      const r = applyOk(spfm, [{ type: 'TXT', name: DOMAIN, data: 'v=spf1 -mx ~all', ttl: 600 }], { extra: '?mx' })
      expect(r.toAdd[0]!.data).toBe('v=spf1 ?mx include:spf.new.test ~all')
    })

    test('creates the record when the host has none', () => {
      const r = applyOk(spfm, [{ type: 'TXT', name: DOMAIN, data: 'unrelated', ttl: 900 }], { extra: 'a' }, 'mail')
      expect(r.toDelete).toEqual([])
      expect(r.toAdd).toEqual([{ type: 'TXT', name: `mail.${DOMAIN}`, data: 'v=spf1 include:spf.new.test a ~all', ttl: 3600 }])
    })

    test('refuses rules that are not SPF terms', () => {
      const r = applyTemplate({ template: spfm, domain: DOMAIN, params: { extra: 'rm -rf' }, zone: [] })
      expect(r).toMatchObject({ ok: false, code: 'invalid_value' })
    })
  })

  describe('host rendering', () => {
    const t = tpl([
      { type: 'A', host: '@', pointsTo: '192.0.2.1', ttl: 60 },
      { type: 'CNAME', host: 'www', pointsTo: '@', ttl: 60 },
      { type: 'TXT', host: '_v', data: 'h=%host% d=%domain% f=%fqdn%', ttl: 60 },
      { type: 'CAA', host: '%domain%.', data: '0 issue "ca.test"', ttl: 60 },
    ])
    const names = (r: ReturnType<typeof applyOk>) => r.toAdd.map((x) => `${x.type} ${x.name} ${x.data}`)

    test('without a host, "@" is the domain', () => {
      expect(names(applyOk(t, []))).toEqual([
        `A ${DOMAIN} 192.0.2.1`,
        `CNAME www.${DOMAIN} ${DOMAIN}`,
        `TXT _v.${DOMAIN} h= d=${DOMAIN} f=${DOMAIN}`,
        `CAA ${DOMAIN} 0 issue "ca.test"`,
      ])
    })

    test('with a host, "@" and relative hosts move below it; an absolute host stays', () => {
      expect(names(applyOk(t, [], {}, 'Shop'))).toEqual([
        `A shop.${DOMAIN} 192.0.2.1`,
        `CNAME www.shop.${DOMAIN} shop.${DOMAIN}`,
        `TXT _v.shop.${DOMAIN} h=shop d=${DOMAIN} f=shop.${DOMAIN}`,
        `CAA ${DOMAIN} 0 issue "ca.test"`,
      ])
    })

    test('hostRequired refuses an apply without a host; APEXCNAME stays at the apex', () => {
      const needsHost = tpl([{ type: 'CNAME', host: '@', pointsTo: 'edge.test', ttl: 60 }], { hostRequired: true })
      expect(applyTemplate({ template: needsHost, domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'host_required' })
      const apex = tpl([{ type: 'APEXCNAME', pointsTo: 'edge.test', ttl: 60 }])
      const r = applyOk(apex, [{ type: 'A', name: DOMAIN, data: '192.0.2.1', ttl: 60 }], {}, 'shop')
      expect(r.toAdd).toEqual([{ type: 'APEXCNAME', name: DOMAIN, data: 'edge.test', ttl: 60 }])
      expect(r.toDelete.map((x) => x.type)).toEqual(['A'])
    })

    test('a host outside the zone is refused', () => {
      const out = tpl([{ type: 'TXT', host: 'evil.test.', data: 'x', ttl: 60 }])
      expect(applyTemplate({ template: out, domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'not_applicable' })
    })
  })

  test('missing and invalid variables are errors that name the problem', () => {
    const t = tpl([{ type: 'A', host: '@', pointsTo: '%ip%', ttl: 60 }])
    expect(applyTemplate({ template: t, domain: DOMAIN, params: {}, zone: [] })).toEqual({ ok: false, code: 'missing_variable', error: 'missing variable "ip"' })
    const bad = applyTemplate({ template: t, domain: DOMAIN, params: { ip: 'not-an-ip' }, zone: [] })
    expect(bad).toMatchObject({ ok: false, code: 'invalid_value' })
    const cname = tpl([{ type: 'CNAME', host: 'www', pointsTo: '%t%', ttl: 60 }])
    expect(applyTemplate({ template: cname, domain: DOMAIN, params: { t: 'bad host!' }, zone: [] })).toMatchObject({ ok: false, code: 'invalid_value' })
  })

  test('a substituted value is not substituted again', () => {
    const t = tpl([{ type: 'TXT', host: '@', data: '%a%', ttl: 60 }])
    expect(applyOk(t, [], { a: '%b%' }).toAdd[0]!.data).toBe('%b%')
  })

  test('groups select records; ungrouped records always apply; an unknown group is an error', () => {
    const t = tpl([
      { type: 'TXT', host: '_verify', data: 'v', ttl: 60, groupId: 'verify' },
      { type: 'MX', host: '@', pointsTo: 'mx.test', priority: 10, ttl: 60, groupId: 'mail' },
      { type: 'TXT', host: '_always', data: 'a', ttl: 60 },
    ])
    expect(applyOk(t, [], {}, undefined, ['verify']).toAdd.map((r) => r.name)).toEqual([`_verify.${DOMAIN}`, `_always.${DOMAIN}`])
    expect(applyOk(t, []).toAdd.length).toBe(3)
    expect(applyTemplate({ template: t, domain: DOMAIN, params: {}, zone: [], groupIds: ['nope'] })).toMatchObject({ ok: false, code: 'no_matching_group' })
  })

  test('NS delegates: records at and below the new zone cut go, the apex NS set stays', () => {
    const zone: ZoneRecord[] = [
      { type: 'NS', name: DOMAIN, data: 'ns1.dns.test', ttl: 60 },
      { type: 'TXT', name: `_num.${DOMAIN}`, data: 'x', ttl: 60 },
      { type: 'A', name: `a._num.${DOMAIN}`, data: '192.0.2.1', ttl: 60 },
      { type: 'A', name: `num.${DOMAIN}`, data: '192.0.2.1', ttl: 60 },
    ]
    const r = applyOk(tpl([{ type: 'NS', host: '_num', pointsTo: 'ns.other.test', ttl: 60 }]), zone)
    expect(r.toDelete).toEqual([zone[1]!, zone[2]!])
    const below = applyOk(tpl([{ type: 'TXT', host: 'x._num', data: 'y', ttl: 60 }]), r.result)
    expect(below.toDelete).toEqual([r.toAdd[0]!])
  })

  test('redirects are kept as REDIR301/302 records for the edge and replace addresses at the host', () => {
    const zone: ZoneRecord[] = [{ type: 'A', name: DOMAIN, data: '192.0.2.1', ttl: 60 }]
    const r = applyOk(tpl([{ type: 'REDIR301', host: '@', target: 'https://www.%domain%/' }]), zone)
    expect(r.toAdd).toEqual([{ type: 'REDIR301', name: DOMAIN, data: `https://www.${DOMAIN}/`, ttl: 3600 }])
    expect(r.toDelete).toEqual(zone)
    const notUrl = tpl([{ type: 'REDIR302', host: '@', target: 'javascript:alert(1)' }])
    expect(applyTemplate({ template: notUrl, domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'invalid_value' })
  })

  test('SRV owner and data, and identical records are shared rather than conflicts', () => {
    const t = tpl([{ type: 'SRV', service: '_sip', protocol: '_tls', name: '@', target: 'sip.test', priority: 100, weight: 1, port: 443, ttl: 60 }])
    const r = applyOk(t, [{ type: 'SRV', name: `_sip._tls.${DOMAIN}`, data: '1 443 sip.test.', ttl: 30, priority: 100 }])
    expect([r.toAdd, r.toDelete]).toEqual([[], []])
    const other = applyOk(t, [{ type: 'SRV', name: `_sip._tls.${DOMAIN}`, data: '1 443 old.test', ttl: 30, priority: 100 }])
    expect(other.toAdd).toEqual([{ type: 'SRV', name: `_sip._tls.${DOMAIN}`, data: '1 443 sip.test', ttl: 60, priority: 100 }])
  })

  test('a CNAME at the zone apex cannot be written', () => {
    const t = tpl([{ type: 'CNAME', host: '%domain%.', pointsTo: 'edge.test', ttl: 60 }])
    expect(applyTemplate({ template: t, domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'not_applicable' })
  })

  test('two different redirects for one name cannot both be served; one of them can', () => {
    const t = tpl([
      { groupId: 'a', type: 'REDIR301', host: '@', target: 'https://one.test/' },
      { groupId: 'b', type: 'REDIR302', host: '@', target: 'https://two.test/' },
    ])
    expect(applyTemplate({ template: t, domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'not_applicable' })
    const one = applyTemplate({ template: t, domain: DOMAIN, params: {}, groupIds: ['b'], zone: [] })
    expect(one.ok && one.toAdd).toEqual([{ type: 'REDIR302', name: DOMAIN, data: 'https://two.test/', ttl: 3600 }])
  })

  test('CAA data is checked as flags, tag and value; other unknown types pass their data through', () => {
    const caa = (data: string) => tpl([{ type: 'CAA', host: '@', data, ttl: 300 }])
    expect(applyTemplate({ template: caa('%f% issue "ca.test"'), domain: DOMAIN, params: { f: 'x' }, zone: [] })).toMatchObject({ ok: false, code: 'invalid_value' })
    expect(applyTemplate({ template: caa('256 issue "ca.test"'), domain: DOMAIN, params: {}, zone: [] })).toMatchObject({ ok: false, code: 'invalid_value' })
    expect(applyTemplate({ template: caa('0 issuewild ";"'), domain: DOMAIN, params: {}, zone: [] }).ok).toBe(true)
    const tlsa = applyTemplate({ template: tpl([{ type: 'TLSA', host: '_443._tcp', data: '3 1 1 %hash%', ttl: 300 }]), domain: DOMAIN, params: { hash: 'ab12' }, zone: [] })
    expect(tlsa.ok && tlsa.toAdd).toEqual([{ type: 'TLSA', name: `_443._tcp.${DOMAIN}`, data: '3 1 1 ab12', ttl: 300 }])
  })
})

// ---------------------------------------------------------------- signing

describe('request signing', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })

  test('TXT fragments reassemble to the key and verify a signed query; tampering fails', () => {
    const txts = publicKeyTxtRecords(publicKey)
    expect(txts.length).toBeGreaterThan(1)
    for (const [i, txt] of txts.entries()) {
      expect(txt).toMatch(new RegExp(`^p=${i + 1},a=RS256,d=[A-Za-z0-9+/=]+$`))
      expect(txt.length).toBeLessThanOrEqual(255)
    }
    const key = publicKeyFromTxt([...txts].reverse())
    const pemBody = publicKey.replace(/-----[^-]+-----|\s/g, '')
    expect(key).toBe(pemBody)
    const query = canonicalQuery({ domain: 'example.net', ip: '10.10.10.10', text: 'a+b', b: '2', a: '1' })
    expect(query).toBe('a=1&b=2&domain=example.net&ip=10.10.10.10&text=a%2Bb')
    const sig = signApplyQuery(query, privateKey)
    expect(verifyApplyQuery(query, sig, key!)).toBe(true)
    expect(verifyApplyQuery(query.replace('10.10.10.10', '10.10.10.11'), sig, key!)).toBe(false)
    expect(verifyApplyQuery(query, sig, key!.slice(0, -8) + 'AAAAAAAA')).toBe(false)
  })

  test('malformed key records are refused', () => {
    expect(publicKeyFromTxt([])).toBeNull()
    expect(publicKeyFromTxt(['p=1,a=RS256,d=AAAA', 'p=1,a=RS256,d=BBBB'])).toBeNull()
    expect(publicKeyFromTxt(['p=1,a=ES256,d=AAAA'])).toBeNull()
    expect(publicKeyFromTxt(['v=spf1 -all'])).toBeNull()
    expect(publicKeyFromTxt(['p=2,d=CC', 'p=1,d=AA'])).toBe('AACC')
  })

  test('buildSyncApplyUrl builds the spec URL and signs what a DNS Provider verifies', () => {
    const url = buildSyncApplyUrl({
      providerBase: 'connect.dns.test/',
      providerId: 'portico.io',
      serviceId: 'connect',
      domain: 'example.net',
      host: 'shop',
      params: { target: 'edge.portico.test', token: 'a b&c' },
      redirectUri: 'https://portico.io/done',
      state: 's1',
      keyHost: '_dcpubkeyv1',
      privateKeyPem: privateKey,
    })
    const parsed = new URL(url)
    expect(parsed.origin + parsed.pathname).toBe('https://connect.dns.test/v2/domainTemplates/providers/portico.io/services/connect/apply')
    expect(parsed.searchParams.get('token')).toBe('a b&c')
    expect(parsed.searchParams.get('redirect_uri')).toBe('https://portico.io/done')
    expect(parsed.searchParams.get('key')).toBe('_dcpubkeyv1')
    const { signed, sig, key } = splitSignedQuery(parsed.search)
    expect(key).toBe('_dcpubkeyv1')
    const publicKeyB64 = publicKeyFromTxt(publicKeyTxtRecords(publicKey))!
    expect(verifyApplyQuery(signed, sig!, publicKeyB64)).toBe(true)
    expect(verifyApplyQuery(signed.replace('shop', 'evil'), sig!, publicKeyB64)).toBe(false)
    expect(() => buildSyncApplyUrl({ providerBase: 'x.test', providerId: 'p', serviceId: 's', domain: 'd.test', params: { domain: 'x' } })).toThrow()
    const unsigned = buildSyncApplyUrl({ providerBase: 'https://x.test', providerId: 'p', serviceId: 's', domain: 'd.test', params: {}, groupId: ['a', 'b'] })
    expect(unsigned).toBe('https://x.test/v2/domainTemplates/providers/p/services/s/apply?domain=d.test&groupId=a%2Cb')
  })
})
