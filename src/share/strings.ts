// The share page's words, per locale: one table a locale in src/share/locales/ (English is the source;
// the widget's 17 locales, test/unit/share-strings.test.ts checks they are the same). The page is in
// exactly one of these languages (its `lang`, and its `dir`: Arabic and Hebrew are right to left): the
// `?lang=` the visitor picked, else the first of their browser's languages found here, else English.
// Every table has every key of `en` (the type says so; the test checks the placeholders too). `{name}`
// placeholders are filled by `fill`; no sentence depends on a number's plural form. Provider menu names
// (Cloudflare's "DNS → Records") are English in the catalog, so only English pages show the catalog's
// own steps; other languages show the same steps in general words.
import { ar } from './locales/ar.ts'
import { da } from './locales/da.ts'
import { de } from './locales/de.ts'
import { en } from './locales/en.ts'
import { es } from './locales/es.ts'
import { fi } from './locales/fi.ts'
import { fr } from './locales/fr.ts'
import { he } from './locales/he.ts'
import { it } from './locales/it.ts'
import { ja } from './locales/ja.ts'
import { ko } from './locales/ko.ts'
import { nl } from './locales/nl.ts'
import { pl } from './locales/pl.ts'
import { pt } from './locales/pt.ts'
import { sv } from './locales/sv.ts'
import { tr } from './locales/tr.ts'
import { zh } from './locales/zh.ts'

import { acceptedLanguages, resolveLocale } from '../widget/locale.ts'

export type { Key, Strings } from './locales/en.ts'

export const LOCALES = { en, fr, de, es, pt, it, nl, pl, sv, da, fi, tr, ja, ko, zh, ar, he } as const
export type Locale = keyof typeof LOCALES
export const LOCALE_CODES = Object.keys(LOCALES) as Locale[]

/** The page's language: `?lang=` when known, else the browser's first known language, else English. */
export function pickLocale(query: string | null, acceptLanguage: string | null): Locale {
  return resolveLocale([...(query ? [query] : []), ...acceptedLanguages(acceptLanguage)], LOCALE_CODES) as Locale
}

/** `text` with `{name}` placeholders filled. */
export function fill(text: string, vars: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m))
}
