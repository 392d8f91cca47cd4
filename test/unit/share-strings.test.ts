// The share page's words: every locale has every key with the same placeholders, and the page's
// language follows `?lang=`, then the browser's ranked languages, then English.
import { describe, test, expect } from 'bun:test'
import { LOCALES, LOCALE_CODES, pickLocale } from '../../src/share/strings.ts'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'

// A language Portico can never speak: `qaa` is ISO 639-2's reserved-for-local-use code, so no locale file
// will ever be named after it (a real language like `cs` may be added any day).
const UNSPOKEN = 'qaa'

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe('share page strings', () => {
  test('the share page speaks every locale the widget speaks', () => {
    expect([...LOCALE_CODES].sort()).toEqual([...LOCALE_TAGS].sort())
  })

  test('each locale has every English key, with the same placeholders, and no empty text', () => {
    const en = LOCALES.en as Record<string, string>
    for (const code of LOCALE_CODES) {
      const table = LOCALES[code] as Record<string, string>
      expect({ code, keys: Object.keys(table).sort() }).toEqual({ code, keys: Object.keys(en).sort() })
      for (const [k, v] of Object.entries(en)) {
        expect({ code, k, ph: placeholders(table[k]!) }).toEqual({ code, k, ph: placeholders(v) })
        expect(table[k]!.trim().length).toBeGreaterThan(0)
      }
    }
  })

  test('no locale file can take the unspoken tag', () => expect(LOCALE_TAGS as readonly string[]).not.toContain(UNSPOKEN))

  test('the language is the one asked for, else the browser\'s best known one, else English', () => {
    expect(pickLocale('ja', 'fr-FR,fr;q=0.9')).toBe('ja')
    expect(pickLocale(UNSPOKEN, 'fr-CA,fr;q=0.9,en;q=0.8')).toBe('fr')
    expect(pickLocale(null, 'nl-NL,nl;q=0.9,de;q=0.8,en;q=0.7')).toBe('nl')
    expect(pickLocale(null, `${UNSPOKEN}-CZ,${UNSPOKEN};q=0.9,he;q=0.8,en;q=0.7`)).toBe('he')
    expect(pickLocale(null, 'en;q=0.5,pt-BR;q=0.9')).toBe('pt')
    expect(pickLocale(null, 'ja;q=0,es')).toBe('es')
    expect(pickLocale(null, '*')).toBe('en')
    expect(pickLocale(null, null)).toBe('en')
  })
})
