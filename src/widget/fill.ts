// Filling `{name}` placeholders in a sentence, one rule for the widget (src/widget/i18n.ts), the share
// page (src/share: the server's page and its script) and the consent page (oauth/strings.ts), so a name
// reads the same in each.
// Japanese and Chinese put no space between two words of their own script: the space a sentence keeps
// around a placeholder for a Latin name ("Acme から") is dropped where the value and the sentence meet
// in Han, kana or full-width forms ("このページを開いたサイトから"). A sentence in any other language
// never has such a character beside a placeholder, so the rule needs no locale.
const UNSPACED = /[\u3000-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/

const glued = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && UNSPACED.test(a) && UNSPACED.test(b)

export interface FillOptions {
  /** Set each string value apart with first-strong isolates (U+2068 … U+2069): a right-to-left sentence. */
  isolate?: boolean
  /** The text a value shows, when the value is markup (its first and last characters meet the sentence). */
  shown?: (value: string) => string
}

/** What markup shows of itself at its edges: the text without its tags. */
export const textOfHtml = (html: string) => html.replace(/<[^>]*>/g, '')

/** `text` with its `{name}` placeholders filled from `vars`; a placeholder without a value is left as it is. */
export function fillIn(text: string, vars: Record<string, string | number> = {}, o: FillOptions = {}): string {
  return text.replace(/( ?)\{(\w+)\}( ?)/g, (m, before: string, name: string, after: string, at: number) => {
    if (!(name in vars)) return m
    const value = String(vars[name])
    const seen = o.shown ? o.shown(value) : value
    const out = o.isolate && typeof vars[name] === 'string' ? `\u2068${value}\u2069` : value
    return (before && glued(text[at - 1], seen[0]) ? '' : before) + out + (after && glued(seen[seen.length - 1], text[at + m.length]) ? '' : after)
  })
}
