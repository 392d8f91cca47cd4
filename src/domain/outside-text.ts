// Text that came from outside Portico: DNS answers, a DNS provider's or CA's messages, names and labels
// set by integrators, their end users and agents' clients. Such text is data (DESIGN.md, rules of the
// house): it reaches an agent with every character that draws nothing or changes how text around it
// reads shown escaped, never raw, and Portico's own sentences quote it, never let it run on as their
// own words. The characters (`HIDDEN`):
// - default-ignorable code points (zero-width space and joiners, word joiner, BOM, variation
//   selectors, the Unicode tag characters U+E0000-E007F that can spell a whole hidden sentence);
// - format characters (Cf), among them the bidirectional controls U+202A-U+202E, U+2066-U+2069 and the
//   marks U+200E, U+200F, U+061C, which reorder what a reader sees;
// - control characters other than tab, line feed and carriage return (JSON shows those escaped
//   already; HTML shows them as spaces), private-use code points, line and paragraph separators;
// - the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 and the blank Braille cell U+2800: letters or
//   symbols by category, blank on screen.
// Names Portico stores (branding, clients) refuse them at the door (`hiddenProblem`).

const HIDDEN_CLASS = '\\p{Default_Ignorable_Code_Point}\\p{Cf}\\p{Co}\\p{Zl}\\p{Zp}\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\u115F\\u1160\\u2800\\u3164\\uFFA0'
const HIDDEN = new RegExp(`[${HIDDEN_CLASS}]`, 'u')
const HIDDEN_ALL = new RegExp(`[${HIDDEN_CLASS}]`, 'gu')

/** Whether `s` carries a character that draws nothing or reorders the text around it. */
export const hasHidden = (s: string): boolean => HIDDEN.test(s)

/** `U+XXXX` of each hidden character of `s`, in order. */
export const hiddenIn = (s: string): string[] => [...s.matchAll(HIDDEN_ALL)].map((m) => `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)

/** `s` with each hidden character written as its escape (`\u200B`, `\u{E0064}`), so it shows. */
export function showHidden(s: string): string {
  return s.replace(HIDDEN_ALL, (ch) => {
    const cp = ch.codePointAt(0)!
    return cp > 0xffff ? `\\u{${cp.toString(16).toUpperCase()}}` : `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`
  })
}

/** Every string in `value` (object keys too) with its hidden characters shown; other values as they are. */
export function showHiddenDeep<T>(value: T): T {
  if (typeof value === 'string') return showHidden(value) as T
  if (Array.isArray(value)) return value.map(showHiddenDeep) as T
  if (value instanceof Date || value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [showHidden(k), showHiddenDeep(v)])) as T
}

/** Outside text as Portico's own sentences carry it: in quotation marks, hidden characters shown, cut at `max`. */
export function quoteOutside(s: string, max = 200): string {
  const shown = showHidden(s)
  const cut = [...shown].length > max ? `${[...shown].slice(0, max).join('')}…` : shown
  return `“${cut.replace(/[“”]/g, '"')}”`
}

/** Why a name Portico would show to people and agents cannot be stored, or null: it may not hide characters. */
export function hiddenProblem(s: string): string | null {
  const found = hiddenIn(s)
  return found.length ? `must not contain invisible, bidirectional-control or tag characters (found ${[...new Set(found)].slice(0, 5).join(', ')})` : null
}
