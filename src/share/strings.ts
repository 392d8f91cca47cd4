// The share page's words, per locale: each locale's file in src/widget/locales/ holds them beside the
// widget's (its `share`; English the source), so the page speaks exactly the widget's locales. The page is in
// exactly one of these languages (its `lang`, and its `dir`: Arabic and Hebrew are right to left): the
// `?lang=` the visitor picked, else the first of their browser's languages found here, else English.
// Every table has every key of `en` (the type says so; the test checks the placeholders too). `{name}`
// placeholders are filled by `fill`; no sentence depends on a number's plural form. Provider menu names
// (Cloudflare's "DNS → Records") are English in the catalog, so only English pages show the catalog's
// own steps; other languages show the same steps in general words.
import { SHARE } from '../widget/locales/index.ts'
import { localeForRequest } from '../widget/locale.ts'
import { fillIn } from '../widget/fill.ts'

export type { ShareKey as Key, ShareStrings as Strings } from '../widget/locales/en.ts'

export const LOCALES = SHARE
export type Locale = keyof typeof LOCALES
export const LOCALE_CODES = Object.keys(LOCALES) as Locale[]

/** The page's language: `?lang=` when known, else the browser's best known language, else English (`localeForRequest`). */
export function pickLocale(query: string | null, acceptLanguage: string | null): Locale {
  return localeForRequest(acceptLanguage, LOCALE_CODES, query) as Locale
}

/** `text` with `{name}` placeholders filled (src/widget/fill.ts). */
export const fill = fillIn
