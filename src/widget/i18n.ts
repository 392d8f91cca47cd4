// Saying things in the person's language: a translator over one locale's table (plurals through
// Intl.PluralRules, dates through Intl.DateTimeFormat, "2 minutes ago" through Intl.RelativeTimeFormat,
// lists through Intl.ListFormat), and the loading of a table other than English, which is served as
// JSON beside the bundle (`localesUrl`) and fetched only for the locale shown.
import { widget as en, type Key, type Messages, type Plural } from './locales/en.ts'
import { LOCALE_TAGS } from './locales/tags.ts'
import { directionOf, resolveLocale } from './locale.ts'
import { fillIn } from './fill.ts'

export type { Key, Messages }

/** Every locale the widget speaks (one file each in ./locales/, listed by `npm run generate`); all but English are fetched when needed. */
export { LOCALE_TAGS }

export interface Translator {
  /** The locale actually shown: the dialog's `lang`. */
  readonly locale: string
  t(key: Key, vars?: Record<string, string | number>): string
  /** A date in the person's words ("12 March 2026"). */
  date(iso: string): string
  /** How long ago `iso` was, relative to `now` (ms). */
  ago(iso: string, now: number): string
  list(items: string[]): string
}

export function translator(locale: string, table: Messages = en as Messages): Translator {
  const plural = new Intl.PluralRules(locale)
  // In a right-to-left sentence a name or domain (left-to-right) is set apart with first-strong
  // isolates, so it neither flips nor pulls its neighbours along (Unicode bidi algorithm).
  const isolate = directionOf(locale) === 'rtl'
  const fill = (m: string, vars: Record<string, string | number>) => fillIn(m, vars, { isolate })
  return {
    locale,
    t(key, vars = {}) {
      const m = (table[key] ?? (en as Messages)[key]) as string | Plural
      if (typeof m === 'string') return fill(m, vars)
      const form = m[plural.select(Number(vars.count ?? 0)) as keyof Plural] ?? m.other
      return fill(form, vars)
    },
    date: (iso) => new Intl.DateTimeFormat(locale, { dateStyle: 'long' }).format(new Date(iso)),
    ago(iso, now) {
      const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
      const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
      if (s < 60) return rtf.format(-s, 'second')
      if (s < 7200) return rtf.format(-Math.round(s / 60), 'minute')
      return rtf.format(-Math.round(s / 3600), 'hour')
    },
    list: (items) => new Intl.ListFormat(locale, { type: 'conjunction' }).format(items),
  }
}

/**
 * The translator for what was asked (`locale`, else the browser's languages): English at once; any
 * other table fetched from `base` (`<base>/<tag>.json`). A table that cannot be fetched leaves
 * English, with `lang="en"`: the page never claims a language it does not show.
 */
export async function loadTranslator(wanted: string | readonly string[], base: string | null, fetcher: typeof fetch = fetch): Promise<Translator> {
  const locale = resolveLocale(wanted, LOCALE_TAGS)
  if (locale === 'en' || !base) return translator('en')
  try {
    const r = await fetcher(`${base.replace(/\/+$/, '')}/${locale}.json`)
    if (!r.ok) return translator('en')
    return translator(locale, (await r.json()) as Messages)
  } catch {
    return translator('en')
  }
}
