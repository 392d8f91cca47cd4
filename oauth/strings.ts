// The consent page's words in every locale the widget speaks (one table a locale in oauth/locales/,
// English the source; test/unit/consent-strings.test.ts checks the set, the keys and the placeholders).
// The page is in the first of the person's browser languages (`Accept-Language`) found here, else
// English, by the widget's own rule (src/widget/locale.ts), and in that language's direction. Text from
// outside (client names, hosts, workspace names, addresses) fills placeholders escaped, and isolated in
// a right-to-left page (`<bdi>`), so it neither flips nor reads as Portico's words.
import { acceptedLanguages, directionOf, resolveLocale } from '../src/widget/locale.ts'
import { ar } from './locales/ar.ts'
import { da } from './locales/da.ts'
import { de } from './locales/de.ts'
import { en, type ConsentStrings } from './locales/en.ts'
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

export type { ConsentStrings }

export const CONSENT_LOCALES: Record<string, ConsentStrings> = { en, fr, de, es, pt, it, nl, pl, sv, da, fi, tr, ja, ko, zh, ar, he }

/** The language a page is shown in: its tag (`lang`), direction (`dir`) and words. */
export interface Speech {
  lang: string
  dir: 'ltr' | 'rtl'
  s: ConsentStrings
}

export function speechOf(req: Request | null): Speech {
  const lang = resolveLocale(acceptedLanguages(req?.headers.get('accept-language')), Object.keys(CONSENT_LOCALES))
  return { lang, dir: directionOf(lang), s: CONSENT_LOCALES[lang]! }
}

export const ENGLISH: Speech = { lang: 'en', dir: 'ltr', s: en }

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** `text` escaped, its `{name}` placeholders filled with the HTML given (escape what came from outside first). */
export function sayHtml(text: string, html: Record<string, string> = {}): string {
  return escape(text).replace(/\{(\w+)\}/g, (m, k: string) => html[k] ?? m)
}

/** `text` with `{name}` placeholders filled with plain values, all escaped; each value isolated (`<bdi>`). */
export function say(text: string, values: Record<string, string> = {}): string {
  return sayHtml(text, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, `<bdi>${escape(v)}</bdi>`])))
}

/** `text` with `{name}` placeholders filled, as plain text (a page title, an error passed on). */
export function sayPlain(text: string, values: Record<string, string> = {}): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => values[k] ?? m)
}
