// One locale rule for the whole widget: `resolveLocale` picks the table shown from what the integrator
// asked for (`locale`), else the browser's languages, by BCP 47 lookup on canonical tags (Intl): a
// regional tag falls back to its language ("fr-CA" → "fr", "zh-Hans-CN" → "zh"), anything unknown to
// English. The tag it answers is the `lang` of the dialog and the locale of every Intl formatter, so
// what is said, how it is written and how it is announced always agree. The pages served to people
// (the share page, the consent page) pick theirs by the same rule from `Accept-Language`
// (`localeForRequest`), and take their direction from `directionOf`.
import { weightOf } from './weight.ts'

/** BCP 47 "Lookup" (RFC 4647 section 3.4) of one canonical tag against the available ones. */
function lookup(tag: string, available: readonly string[]): string | null {
  const have = new Map(available.map((a) => [a.toLowerCase(), a]))
  let t = tag.toLowerCase()
  for (;;) {
    const hit = have.get(t)
    if (hit) return hit
    const cut = t.lastIndexOf('-')
    if (cut < 0) return null
    t = t.slice(0, cut)
    // A single-letter subtag (an extension or private-use singleton) goes with what follows it.
    if (t.length >= 2 && t[t.length - 2] === '-') t = t.slice(0, -2)
  }
}

function canonical(tag: string): string | null {
  try {
    return Intl.getCanonicalLocales(tag.replace(/_/g, '-'))[0] ?? null
  } catch {
    return null
  }
}

/** The first of `wanted` (then English) that one of `available` serves. */
export function resolveLocale(wanted: string | readonly string[] | undefined, available: readonly string[], fallback = 'en'): string {
  const list = typeof wanted === 'string' ? [wanted] : (wanted ?? [])
  for (const w of list) {
    const c = canonical(w)
    const hit = c ? lookup(c, available) : null
    if (hit) return hit
  }
  return fallback
}

interface Range {
  tag: string
  q: number
}

/** The ranges of an `Accept-Language` header with their weights; a range with a malformed weight counts as not sent. */
function languageRanges(header: string | null | undefined): Range[] {
  const out: Range[] = []
  for (const part of (header ?? '').split(',')) {
    const [tag, ...params] = part.split(';')
    const q = weightOf(params)
    const t = tag!.trim()
    if (t && q !== null) out.push({ tag: t, q })
  }
  return out
}

/**
 * The language ranges of an `Accept-Language` header the person accepts, best first (RFC 9110 section
 * 12.5.4; equal weights in the order sent; q=0, `*` and malformed weights left out).
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  return languageRanges(header)
    .map((r, i) => ({ ...r, i }))
    .filter((r) => r.tag !== '*' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((r) => r.tag)
}

/**
 * The locale of a page served to a person (the share page, the consent page, the widget's return page):
 * `query` (`?lang=`) when one of `available` serves it, else the best range of Accept-Language one of
 * them serves and the header does not refuse (q=0), `*` standing for the first one not refused; else
 * English, the header disregarded as RFC 9110 section 12.5.4 allows (a person who refuses English and
 * names nothing Portico has is better served by English than by a language picked for them).
 */
export function localeForRequest(header: string | null | undefined, available: readonly string[], query?: string | null): string {
  const ranges = languageRanges(header)
  const refused = new Set(ranges.filter((r) => r.q === 0 && r.tag !== '*').map((r) => (canonical(r.tag) ?? r.tag).toLowerCase()))
  const allowed = (tag: string) => !refused.has(tag.toLowerCase())
  const asked = query ? resolveLocale(query, available, '') : ''
  if (asked) return asked
  for (const w of acceptedLanguages(header)) {
    const hit = resolveLocale(w, available, '')
    if (hit && allowed(hit)) return hit
  }
  const star = ranges.find((r) => r.tag === '*')
  if (star && star.q > 0) return allowed('en') ? 'en' : (available.find(allowed) ?? 'en')
  return 'en'
}

/** What the browser says its person reads, best first. */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return []
  return navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : []
}

/** Writing direction of a locale: the dialog's `dir` (Arabic and Hebrew are shipped; Persian and Urdu would be too). */
export const directionOf = (locale: string): 'ltr' | 'rtl' => (/^(ar|he|fa|ur)(-|$)/i.test(locale) ? 'rtl' : 'ltr')
