// A hosted provider is one folder, src/adapters/dns-providers/<id>/: its adapter (with the `provider`
// descriptor the registry lists), its reference card and its stand-in. The registries are written from
// the folders (scripts/provider-registry.ts, run by `npm run generate`), so the adapters the service
// runs, the cards the docs render and the stand-ins the shared tests drive are the same set, and the
// catalogue takes each adapter's credential page and scopes from its folder alone.
import { describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HOSTED } from '../../src/adapters/dns-providers/index.ts'
import { PROVIDERS, ROWS } from '../../src/domain/providers.ts'
import { CARDS } from '../harness/provider-cards/index.ts'
import { FAKE_CASES } from '../harness/provider-fakes/index.ts'
import { PROVIDERS_DIR, readFolders, registryFiles } from '../../scripts/provider-registry.ts'

const ROOT = join(import.meta.dir, '../..')
const folders = readdirSync(join(ROOT, PROVIDERS_DIR), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort()

describe('provider folders', () => {
  test('every folder is one hosted provider: its adapter, card and stand-in, under the folder\'s name', () => {
    expect(folders.length).toBeGreaterThan(30)
    expect(readFolders().problems).toEqual([])
    expect(Object.keys(HOSTED).sort()).toEqual(folders)
    for (const [id, p] of Object.entries(HOSTED)) expect({ folder: id, id: p.id }).toEqual({ folder: id, id })
    expect(Object.keys(CARDS).sort()).toEqual(folders)
    expect(FAKE_CASES.map((c) => c.id).sort()).toEqual(folders)
  })

  test('every folder is a provider of the catalogue, which takes its credential, its page and its scopes from the folder', () => {
    for (const id of folders) {
      const row = ROWS.find((r) => r.id === id)
      const p = PROVIDERS.find((x) => x.id === id)
      expect({ id, catalogued: !!p }).toEqual({ id, catalogued: true })
      // One source: a row of a provider with an adapter names neither.
      expect({ id, token_url: row?.token_url, token_scopes: row?.token_scopes, credential: row?.credential }).toEqual({ id, token_url: undefined, token_scopes: undefined, credential: undefined })
      expect({ id, token_url: p!.token_url, token_scopes: p!.token_scopes, credential: p!.credential, api_apply: p!.capabilities.api_apply, built: p!.built.api_credential }).toEqual({
        id,
        token_url: HOSTED[id]!.token_url,
        token_scopes: HOSTED[id]!.token_scopes,
        credential: HOSTED[id]!.credential,
        api_apply: true,
        built: true,
      })
      expect(HOSTED[id]!.token_url).toMatch(/^https:\/\//)
      expect(HOSTED[id]!.token_scopes.length).toBeGreaterThan(0)
      expect(HOSTED[id]!.credential.length).toBeGreaterThan(2)
    }
  })

  test('a folder that is not whole is named, and the registry is not written from it', () => {
    const root = mkdtempSync(join(tmpdir(), 'provider-folders-'))
    try {
      const dir = (id: string) => join(root, PROVIDERS_DIR, id)
      const card = (name: string) => `import { defineCard } from '../card-types.ts'\nexport const ${name} = defineCard({ id: 'x' })\n`
      mkdirSync(dir('acme-dns'), { recursive: true })
      writeFileSync(join(dir('acme-dns'), 'adapter.ts'), 'export const provider = {}\n')
      writeFileSync(join(dir('acme-dns'), 'card.ts'), card('acmeDns'))
      writeFileSync(join(dir('acme-dns'), 'stand-in.ts'), 'export const fakeCase = {}\n')
      expect(readFolders(root)).toEqual({ folders: [{ id: 'acme-dns', cardExport: 'acmeDns' }], problems: [] })
      const files = registryFiles(root)
      expect(files['src/adapters/dns-providers/registry.generated.ts']).toContain("import { provider as acmeDns } from './acme-dns/adapter.ts'")
      expect(files['test/harness/provider-folders.generated.ts']).toContain("import { acmeDns as acmeDnsCard } from '../../src/adapters/dns-providers/acme-dns/card.ts'")
      expect(files['test/harness/provider-folders.generated.ts']).toContain("import { fakeCase as acmeDnsCase } from '../../src/adapters/dns-providers/acme-dns/stand-in.ts'")

      mkdirSync(dir('halfway'), { recursive: true })
      writeFileSync(join(dir('halfway'), 'adapter.ts'), 'export class HalfwayProvider {}\n')
      writeFileSync(join(dir('halfway'), 'card.ts'), card('halfway') + card('again'))
      mkdirSync(dir('no-stand-in'), { recursive: true })
      writeFileSync(join(dir('no-stand-in'), 'adapter.ts'), 'export const provider = {}\n')
      writeFileSync(join(dir('no-stand-in'), 'card.ts'), card('noStandIn'))
      writeFileSync(join(dir('halfway'), 'stand-in.ts'), 'export function startHalfwayFake() {}\n')
      expect(readFolders(root).problems).toEqual([
        'src/adapters/dns-providers/halfway/adapter.ts: exports no `provider`',
        'src/adapters/dns-providers/halfway/stand-in.ts: exports no `fakeCase`',
        'src/adapters/dns-providers/halfway/card.ts: exports 2 cards (`export const <name> = defineCard(`), not one',
        'src/adapters/dns-providers/no-stand-in/: missing stand-in.ts',
      ])
      expect(() => registryFiles(root)).toThrow('src/adapters/dns-providers/no-stand-in/: missing stand-in.ts')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
