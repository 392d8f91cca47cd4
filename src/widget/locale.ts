// One locale rule for the whole widget: `resolveLocale` picks the table shown from what the integrator
// asked for (`locale`), else the browser's languages, by BCP 47 lookup on canonical tags (Intl): a
// regional tag falls back to its language ("fr-CA" → "fr", "zh-Hans-CN" → "zh"), anything unknown to
// English. The tag it answers is the `lang` of the dialog and the locale of every Intl formatter, so
// what is said, how it is written and how it is announced always agree. The pages served to people
// (the share page, the consent page) pick theirs by the same rule from `Accept-Language`
// (`acceptedLanguages`), and take their direction from `directionOf`.

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

/**
 * The language ranges of an `Accept-Language` header, best first (RFC 9110 section 12.5.4; q=0 and `*`
 * left out): a weight is 0 to 1 with at most three decimals, and a range with a malformed one counts as
 * not sent (as in Accept-Encoding, src/http/encoded.ts).
 */
export function acceptedLanguages(header: string | null | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';')
      const weight = params.find((p) => /^\s*q\s*=/i.test(p))
      const q = weight === undefined ? 1 : /^\s*q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)\s*$/i.exec(weight) ? Number(weight.split('=')[1]) : 0
      return { tag: tag?.trim() ?? '', q, i }
    })
    .filter((x) => x.tag && x.tag !== '*' && x.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((x) => x.tag)
}

/** What the browser says its person reads, best first. */
export function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return []
  return navigator.languages?.length ? navigator.languages : navigator.language ? [navigator.language] : []
}

/** Writing direction of a locale: the dialog's `dir` (Arabic and Hebrew are shipped; Persian and Urdu would be too). */
export const directionOf = (locale: string): 'ltr' | 'rtl' => (/^(ar|he|fa|ur)(-|$)/i.test(locale) ? 'rtl' : 'ltr')
