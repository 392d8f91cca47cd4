// One locale, one file: src/widget/locales/<tag>.ts holds the widget's words, the share page's and the
// consent page's, and every list of locales (the widget's tags, its tables, the share page's and the
// consent page's languages, the playground's picker, the documents' counts) is written or derived from
// the files there (scripts/locales.ts).
import { describe, test, expect } from 'bun:test'
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'
import { CONSENT, SHARE, TABLES } from '../../src/widget/locales/index.ts'
import { consent as englishConsent, share as englishShare } from '../../src/widget/locales/en.ts'
import { LOCALE_CODES } from '../../src/share/strings.ts'
import { CONSENT_LOCALES } from '../../oauth/strings.ts'
import { widgetBundle } from '../../src/widget/build.ts'
import { localeFiles, localeTagsOnDisk } from '../../scripts/locales.ts'

const ROOT = join(import.meta.dir, '../..')

describe('the locale files', () => {
  test('the widget speaks exactly the locales with a file, English first; the share page and the consent page the same', () => {
    expect([...LOCALE_TAGS] as string[]).toEqual(localeTagsOnDisk(ROOT))
    expect(Object.keys(TABLES)).toEqual([...LOCALE_TAGS])
    expect([...LOCALE_CODES]).toEqual([...LOCALE_TAGS])
    expect(Object.keys(CONSENT)).toEqual([...LOCALE_TAGS])
    expect(Object.keys(CONSENT_LOCALES)).toEqual([...LOCALE_TAGS])
    for (const tag of LOCALE_TAGS) expect({ tag, named: typeof SHARE[tag].languageName }).toEqual({ tag, named: 'string' })
  })

  test('in every locale, only the last of the steps names the "I have added them" button, in its own words (the records screen drops it once the session has ended)', () => {
    for (const tag of LOCALE_TAGS) {
      const words = TABLES[tag]! as unknown as Record<string, string>
      for (const key of ['stepsGeneric', 'stepsProvider']) {
        const steps = words[key]!.split('|')
        expect({ tag, key, naming: steps.map((x) => x.includes(words.added!)) }).toEqual({ tag, key, naming: steps.map((_, i) => i === steps.length - 1) })
      }
    }
  })

  test('a file added to the folder is listed: tags, widget tables, share tables and consent tables', () => {
    const dir = mkdtempSync(join(tmpdir(), 'locales-'))
    try {
      for (const f of ['en.ts', 'fr.ts', 'pt-BR.ts', 'index.ts', 'tags.ts']) writeFileSync(join(dir, f), '')
      const tags = localeTagsOnDisk('/', dir)
      expect(tags).toEqual(['en', 'fr', 'pt-BR'])
      const files = localeFiles(tags, 'x')
      expect(files['x/tags.ts']).toContain("export const LOCALE_TAGS = ['en', 'fr', 'pt-BR'] as const")
      expect(files['x/index.ts']).toContain("import * as l_pt_BR from './pt-BR.ts'")
      expect(files['x/index.ts']).toContain("'pt-BR': l_pt_BR.widget")
      expect(files['x/index.ts']).toContain("'pt-BR': l_pt_BR.share")
      expect(files['x/index.ts']).toContain("'pt-BR': l_pt_BR.consent")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('the bundle carries the widget\'s English words, never the share page\'s or the consent page\'s beside them', async () => {
    const b = await widgetBundle()
    expect(b.code).toContain(TABLES.en!.buyGo as string)
    expect(b.code).not.toContain(englishShare.stepSignInUnknown.split('{')[0]!)
    expect(b.code).not.toContain(englishConsent.goneHeading)
    expect(b.code).not.toContain(englishConsent.errLeaveOne)
  })
})
