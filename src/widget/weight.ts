// The weight of an element of Accept-Encoding or Accept-Language (RFC 9110 section 12.4.2): `;q=` and a
// qvalue, 0 to 1 with at most three decimals, nothing around the `=` (section 5.6.6). Kept in the
// widget's folder, free of imports: its locale rules (locale.ts) are bundled for the browser too.

const WEIGHT = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i

/**
 * The weight among one element's parameters (its `;`-separated parts after the name): 1 when none is
 * a weight, null when the weight is malformed (spaces around its `=`, no value, above 1, more than
 * three decimals) or given twice, so that the element counts as not sent. Other parameters are ignored.
 */
export function weightOf(params: readonly string[]): number | null {
  let q: number | null = 1
  let seen = false
  for (const raw of params) {
    const p = raw.trim()
    if (!/^q\s*(=|$)/i.test(p)) continue
    const m = WEIGHT.exec(p)
    if (!m || seen) return null
    seen = true
    q = Number(m[1])
  }
  return q
}
