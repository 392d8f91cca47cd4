// Development starts usable at once: unset operator secrets are generated into DATA_DIR and kept;
// test and production never generate them.
import { describe, test, expect } from 'bun:test'
import { mkdtempSync, statSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config.ts'

const base = (dir: string) => ({ DATA_DIR: dir, SECRETS_KEY: '11'.repeat(32), DNS_RESOLVERS: '127.0.0.1:53' })

describe('operator secrets', () => {
  test('development generates PROVISION_SECRET and MANAGEMENT_KEY into DATA_DIR, mode 600, the same on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-dev-'))
    const a = loadConfig({ ...base(dir), APP_ENV: 'development' })
    expect(a.provisionSecret).toMatch(/^prov_[0-9a-f]{48}$/)
    expect(a.managementKey).toMatch(/^mgmt_[0-9a-f]{48}$/)
    expect(a.generatedSecrets).toEqual({ provisionSecret: join(dir, 'provision-secret'), managementKey: join(dir, 'management-key') })
    expect(readFileSync(join(dir, 'provision-secret'), 'utf8').trim()).toBe(a.provisionSecret!)
    expect(statSync(join(dir, 'provision-secret')).mode & 0o777).toBe(0o600)
    const b = loadConfig({ ...base(dir), APP_ENV: 'development' })
    expect([b.provisionSecret, b.managementKey]).toEqual([a.provisionSecret, a.managementKey])
  })

  test('a set value is used as it is and nothing is generated for it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-dev-'))
    const c = loadConfig({ ...base(dir), APP_ENV: 'development', PROVISION_SECRET: 'mine' })
    expect(c.provisionSecret).toBe('mine')
    expect(c.generatedSecrets.provisionSecret).toBeUndefined()
  })

  test('production and test leave them unset', () => {
    for (const APP_ENV of ['production', 'test']) {
      const dir = mkdtempSync(join(tmpdir(), 'portico-dev-'))
      const c = loadConfig({ ...base(dir), APP_ENV })
      expect([c.provisionSecret, c.managementKey, c.generatedSecrets]).toEqual([null, null, {}])
    }
  })
})
