// The consent page's words in every locale the widget speaks: each locale's file in src/widget/locales/
// holds them (its `consent`, English the source) beside the widget's and the share page's, listed by
// `npm run generate` (test/unit/consent-strings.test.ts checks the keys and the placeholders). In
// English, what the person confirms and what each agent scope allows are the catalogue's own words,
// added here. The page is in the first of the person's browser languages (`Accept-Language`) found here,
// else English, by the widget's own rule (src/widget/locale.ts), and in that language's direction. Text
// from outside (client names, hosts, workspace names, addresses) fills placeholders escaped, and isolated
// in a right-to-left page (`<bdi>`), so it neither flips nor reads as Portico's words; placeholders are
// filled by the widget's and the share page's one rule (src/widget/fill.ts: in Japanese and Chinese no
// space where a name in their script meets the sentence).
import { directionOf, localeForRequest } from '../src/widget/locale.ts'
import { fillIn, textOfHtml } from '../src/widget/fill.ts'
import { CONSENT } from '../src/widget/locales/index.ts'
import type { ConsentStrings } from '../src/widget/locales/en.ts'
import { AGENT_SCOPES } from '../src/domain/rbac.ts'
import { PERSON_CONFIRMS } from '../src/domain/person-confirm.ts'

export type { ConsentStrings }

/** English: its file's words, with what the person confirms and each agent scope's description from the catalogue. */
const en: ConsentStrings = {
  ...CONSENT.en,
  personConfirms: PERSON_CONFIRMS,
  scopes: Object.fromEntries(AGENT_SCOPES.map((s) => [s.id, s.description])),
}

export const CONSENT_LOCALES: Record<string, ConsentStrings> = { ...CONSENT, en }

/** The language a page is shown in: its tag (`lang`), direction (`dir`) and words. */
export interface Speech {
  lang: string
  dir: 'ltr' | 'rtl'
  s: ConsentStrings
}

export function speechOf(req: Request | null): Speech {
  const lang = localeForRequest(req?.headers.get('accept-language'), Object.keys(CONSENT_LOCALES))
  return { lang, dir: directionOf(lang), s: CONSENT_LOCALES[lang]! }
}

export const ENGLISH: Speech = { lang: 'en', dir: 'ltr', s: en }

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** `text` escaped, its `{name}` placeholders filled with the HTML given (escape what came from outside first). */
export function sayHtml(text: string, html: Record<string, string> = {}): string {
  return fillIn(escape(text), html, { shown: textOfHtml })
}

/** `text` with `{name}` placeholders filled with plain values, all escaped; each value isolated (`<bdi>`). */
export function say(text: string, values: Record<string, string> = {}): string {
  return sayHtml(text, Object.fromEntries(Object.entries(values).map(([k, v]) => [k, `<bdi>${escape(v)}</bdi>`])))
}

/** `text` with `{name}` placeholders filled, as plain text (a page title, an error passed on). */
export function sayPlain(text: string, values: Record<string, string> = {}): string {
  return fillIn(text, values)
}
