// Brand-imitation check for agent registration (the API contract, section 4, Agents): a client name that
// claims a well-known brand is refused unless every redirect goes to that brand (its domains or its
// own app scheme) or to loopback. Names are compared by their confusable skeletons (Unicode UTS #39
// section 4, with the data of Unicode's confusables.txt as the `unhomoglyph` package ships it), after
// compatibility folding (NFKC: fullwidth letters, ligatures), case, accents, spacing and punctuation,
// and with digits and signs read as the letters they stand for (4→a, 0→o, 1→l, $→s): "Clɑude",
// "Ꮯlaude", "ᎪnthropiᏟ" (Cherokee), "Cursoг" (Cyrillic) and "Cl4ude" all read "claude"/"cursor".
// Redirect hosts are compared as the URL parser gives them (lowercase, punycode), never folded: a
// look-alike host is simply another host. "Verified" needs https redirects on the brand's own
// domains: a custom scheme (`claude://`, `vscode://`) is registered by any app on the machine, so it
// proves nothing (it is allowed, not verified).
import unhomoglyph from 'unhomoglyph'

export interface Brand {
  name: string
  /** Folded tokens that claim the brand. */
  tokens: string[]
  /** Registrable domains the brand owns; their subdomains belong too. */
  domains: string[]
  /** Custom URI schemes of the brand's own apps (`cursor://…`). */
  schemes?: string[]
}

export const BRANDS: readonly Brand[] = [
  { name: 'Google', tokens: ['google', 'gemini', 'gmail', 'bard'], domains: ['google.com', 'googleusercontent.com', 'gemini.google.com', 'gmail.com'] },
  {
    name: 'Microsoft',
    tokens: ['microsoft', 'vscode', 'visualstudio', 'azure', 'outlook'],
    domains: ['microsoft.com', 'visualstudio.com', 'vscode.dev', 'azure.com', 'live.com', 'office.com', 'microsoftonline.com'],
    schemes: ['vscode', 'vscode-insiders', 'ms-vscode'],
  },
  { name: 'OpenAI', tokens: ['openai', 'chatgpt', 'codex', 'sora'], domains: ['openai.com', 'chatgpt.com', 'sora.com'] },
  { name: 'Anthropic', tokens: ['anthropic', 'claude'], domains: ['anthropic.com', 'claude.ai', 'claude.com'], schemes: ['claude'] },
  { name: 'GitHub', tokens: ['github', 'copilot'], domains: ['github.com', 'github.dev', 'githubcopilot.com'] },
  { name: 'Apple', tokens: ['apple', 'icloud'], domains: ['apple.com', 'icloud.com'] },
  { name: 'Amazon', tokens: ['amazon', 'aws', 'kiro'], domains: ['amazon.com', 'amazonaws.com', 'aws.amazon.com', 'kiro.dev'] },
  { name: 'Cloudflare', tokens: ['cloudflare'], domains: ['cloudflare.com'] },
  { name: 'Stripe', tokens: ['stripe'], domains: ['stripe.com'] },
  { name: 'Slack', tokens: ['slack'], domains: ['slack.com'], schemes: ['slack'] },
  { name: 'Meta', tokens: ['meta', 'facebook', 'instagram', 'whatsapp'], domains: ['meta.com', 'facebook.com', 'instagram.com', 'whatsapp.com'] },
  { name: 'PayPal', tokens: ['paypal'], domains: ['paypal.com'] },
  { name: 'Shopify', tokens: ['shopify'], domains: ['shopify.com', 'myshopify.com'] },
  { name: 'Atlassian', tokens: ['atlassian', 'jira', 'confluence'], domains: ['atlassian.com', 'atlassian.net'] },
  { name: 'Notion', tokens: ['notion'], domains: ['notion.so', 'notion.com'] },
  { name: 'Vercel', tokens: ['vercel'], domains: ['vercel.com'] },
  { name: 'Netlify', tokens: ['netlify'], domains: ['netlify.com'] },
  { name: 'GoDaddy', tokens: ['godaddy'], domains: ['godaddy.com'] },
  { name: 'Namecheap', tokens: ['namecheap'], domains: ['namecheap.com'] },
  { name: 'Okta', tokens: ['okta', 'auth0'], domains: ['okta.com', 'auth0.com'] },
  { name: 'Dropbox', tokens: ['dropbox'], domains: ['dropbox.com'] },
  { name: 'Zoom', tokens: ['zoom'], domains: ['zoom.us', 'zoom.com'] },
  { name: 'Cursor', tokens: ['cursor', 'anysphere'], domains: ['cursor.com', 'cursor.sh', 'anysphere.co'], schemes: ['cursor'] },
  // AI assistants and coding agents people connect to MCP servers.
  { name: 'Perplexity', tokens: ['perplexity'], domains: ['perplexity.ai'] },
  { name: 'Windsurf', tokens: ['windsurf', 'codeium'], domains: ['windsurf.com', 'codeium.com'], schemes: ['windsurf'] },
  { name: 'Mistral', tokens: ['mistral', 'lechat'], domains: ['mistral.ai'] },
  { name: 'xAI', tokens: ['grok', 'xai'], domains: ['x.ai', 'grok.com'] },
  { name: 'DeepSeek', tokens: ['deepseek'], domains: ['deepseek.com'] },
  { name: 'JetBrains', tokens: ['jetbrains', 'intellij', 'junie'], domains: ['jetbrains.com'] },
  { name: 'Replit', tokens: ['replit'], domains: ['replit.com'] },
  { name: 'Sourcegraph', tokens: ['sourcegraph', 'amp code'], domains: ['sourcegraph.com', 'ampcode.com'] },
  { name: 'Raycast', tokens: ['raycast'], domains: ['raycast.com'], schemes: ['raycast'] },
  { name: 'Zed', tokens: ['zed'], domains: ['zed.dev'], schemes: ['zed'] },
  { name: 'Cline', tokens: ['cline'], domains: ['cline.bot'] },
  { name: 'Lovable', tokens: ['lovable'], domains: ['lovable.dev'] },
  { name: 'Hugging Face', tokens: ['huggingface'], domains: ['huggingface.co'] },
  { name: 'Manus', tokens: ['manus'], domains: ['manus.im'] },
  // Portico itself: no agent client is Portico's own, so the name is never approved for one.
  { name: 'Portico', tokens: ['portico'], domains: [] },
]

// ---- Names by their letters, not their bytes ----
//
// A name is judged in these steps (each one the issue of a name that passed before):
// 1. NFKC folding: fullwidth letters, ligatures and compatibility forms become their plain letters;
// 2. refused outright: default-ignorable code points (zero-width characters, U+2060, U+FEFF, variation
//    selectors) and the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which draw nothing and hide
//    inside a name ("Claude" with a filler between two letters), control and format characters, and
//    names mixing scripts beyond UTS #39's moderately restrictive level (section 5.2: one script; or
//    Latin with Han and kana, Han and Bopomofo, or Han and Hangul; or Latin with one other recommended
//    script except Cyrillic and Greek);
// 3. the UTS #39 skeleton (confusables.txt, as `unhomoglyph` ships it), then the confusable classes
//    ASCII alone allows: i, l, 1, I, | and ! read as one letter; o and 0; e and 3; a, 4 and @; s, 5
//    and $; t and 7; rn and m; vv and w;
// 4. a skeleton within one edit of a protected brand (one letter left out, added or two swapped, or
//    one letter exchanged for one that looks like it; any letter for the long names) imitates it:
//    "OpenAl", "Anthrop1c", "Geminl", "Cluade", "Mircosoft".
// Honest names must pass: test/fixtures/honest-app-names.json holds over 200 real application names,
// and every one of them registers (test/unit/brands.test.ts).

// One skeleton for the letters and the digits and letters that stand in for them (leetspeak, and the
// letters a sans-serif font draws alike); confusables.txt keeps most apart. i, l, 1, I, | and ! are one
// letter (written l), so "Gemlnl", "Gem1n1" and "Gemin1" all read as "Gemini" does; o and 0; e and 3;
// a, 4 and @; s, 5 and $; t and 7.
const READ_AS_LETTERS: Record<string, string> = { i: 'l', '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '$': 's', '@': 'a', '!': 'l', '|': 'l' }

/** Hangul fillers: letters by category, blank on screen. */
const FILLERS = /[\u115F\u1160\u3164\uFFA0]/u
/** Code points a name may not carry: invisible (default-ignorable), fillers, controls, format, private use, separators other than the space. */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu')

/** Scripts UTS #31 recommends for identifiers (Table 5); a name may mix Latin with one of them (not Cyrillic or Greek). */
const RECOMMENDED = ['Arabic', 'Armenian', 'Bengali', 'Bopomofo', 'Cyrillic', 'Devanagari', 'Ethiopic', 'Georgian', 'Greek', 'Gujarati', 'Gurmukhi', 'Han', 'Hangul', 'Hebrew', 'Hiragana', 'Kannada', 'Katakana', 'Khmer', 'Lao', 'Latin', 'Malayalam', 'Myanmar', 'Oriya', 'Sinhala', 'Tamil', 'Telugu', 'Thaana', 'Thai', 'Tibetan']
const OTHER_SCRIPTS = ['Cherokee', 'Canadian_Aboriginal', 'Coptic', 'Gothic', 'Glagolitic', 'Mongolian', 'Nko', 'Ogham', 'Old_Italic', 'Runic', 'Syriac', 'Tifinagh', 'Vai', 'Yi', 'Lisu', 'Osage', 'Adlam', 'Deseret', 'Shavian', 'Bamum', 'Javanese', 'Balinese', 'Tagalog', 'Cham', 'Tai_Le', 'Ol_Chiki', 'Samaritan', 'Mandaic']
const SCRIPT_TESTS = [...RECOMMENDED, ...OTHER_SCRIPTS].map((name) => ({ name, re: new RegExp(`\\p{Script_Extensions=${name}}`, 'u') }))
const NEUTRAL = /[\p{Script=Common}\p{Script=Inherited}]/u

/** The scripts a character may belong to (its Script_Extensions), or null for Common and Inherited. */
function scriptsOf(ch: string): Set<string> | null {
  if (NEUTRAL.test(ch) && !SCRIPT_TESTS.some((s) => s.re.test(ch))) return null
  const found = SCRIPT_TESTS.filter((s) => s.re.test(ch)).map((s) => s.name)
  // A script outside both lists counts as one of its own, never recommended.
  return new Set(found.length ? found : ['Unlisted'])
}

/** The script groups UTS #39 section 5.2 accepts at the moderately restrictive level. */
const ALLOWED_MIXES: readonly string[][] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
  ...RECOMMENDED.filter((s) => s !== 'Latin' && s !== 'Cyrillic' && s !== 'Greek').map((s) => ['Latin', s]),
]

/** Whether the name's letters stay within one script or a mix UTS #39 calls moderately restrictive. */
export function moderatelyRestrictive(name: string): boolean {
  const sets = [...name].map(scriptsOf).filter((s): s is Set<string> => s !== null)
  if (sets.length === 0) return true
  // One script shared by every letter.
  const [first, ...rest] = sets
  if ([...first!].some((sc) => sc !== 'Unlisted' && rest.every((s) => s.has(sc)))) return true
  if (sets.every((s) => s.has('Unlisted'))) return false
  return ALLOWED_MIXES.some((mix) => sets.every((s) => mix.some((sc) => s.has(sc))))
}

/** Why a client name cannot be used, or null. Registration and metadata documents refuse such names. */
export function nameProblem(name: string): string | null {
  const folded = name.normalize('NFKC')
  if (FILLERS.test(folded)) return 'client_name contains a Hangul filler, which draws nothing'
  if (INVISIBLE.test(folded)) return 'client_name contains an invisible, control or format character'
  if (/\s/u.test(folded.replace(/ /g, ''))) return 'client_name contains whitespace other than spaces'
  if (!moderatelyRestrictive(folded)) return 'client_name mixes writing systems (UTS #39 moderately restrictive allows one script, or Latin with Han and kana, Han and Bopomofo, Han and Hangul, or one other script except Cyrillic and Greek)'
  return null
}

/** The UTS #39 skeleton: decomposed, each confusable mapped to its prototype, decomposed again. */
export function skeleton(s: string): string {
  return unhomoglyph(s.normalize('NFD')).normalize('NFD')
}

function foldChars(s: string): string {
  // Invisible code points go first (a name that carries them is refused anyway; an old one is judged without them).
  const visible = s.normalize('NFKC').replace(INVISIBLE_ALL, '')
  // Skeleton on the original case first (Cherokee Ꮯ is a look-alike of capital C), then once more
  // after lowercasing and reading digits (so "I", "1" and "l" meet, and "m" reads "rn" on both sides).
  const lower = skeleton(visible).toLowerCase()
  const letters = [...lower].map((c) => READ_AS_LETTERS[c] ?? c).join('')
  // Accents and overlays go (ł → l̸ → l); what is left is compared as the skeleton gives it.
  return skeleton(letters).replace(/\p{M}/gu, '').toLowerCase()
}

/** Pairs that read as one letter once the spacing is gone: rn is m (confusables.txt writes m as rn), vv is w. */
function foldPairs(s: string): string {
  return s.replace(/rn/g, 'm').replace(/vv/g, 'w')
}

/** The name as compared: folded, letters and digits only; rn read as m, and vv as w unless `pairs` is false. */
export function foldName(name: string, pairs = true): string {
  const folded = foldChars(name).replace(/[^\p{L}\p{N}]/gu, '')
  return pairs ? foldPairs(folded) : folded.replace(/rn/g, 'm')
}

/** Each word of the name, folded the same way: split at spaces and punctuation and where a capital starts a word ("MyAnthropcHelper"). */
function foldWords(name: string, pairs = true): string[] {
  return name
    .normalize('NFKC')
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}\p{M}$@!|]+/u)
    .map((w) => foldName(w, pairs))
    .filter(Boolean)
}

/** Letters that look alike even in a clean font, after folding: exchanging one for the other is a look-alike edit. */
const LOOK_ALIKE_PAIRS = new Set(['il', 'ij', 'jl', 'ce', 'co', 'eo', 'ao', 'uv', 'vy', 'gq', 'hn', 'nr', 'bh', 'bd', 'pq'])
const lookAlike = (a: string, b: string) => LOOK_ALIKE_PAIRS.has(a < b ? a + b : b + a)

/** Brand names at least this long: any one letter exchanged still reads as the brand. */
const ANY_SUBSTITUTION_FROM = 8
/** Brand names at least this long: one letter left out, added or swapped with its neighbour reads as the brand. */
const TYPO_FROM = 6
/** Brand names at least this long: one look-alike letter exchanged reads as the brand. */
const LOOK_ALIKE_FROM = 5

/**
 * Whether `word` is within one edit of the brand token `t` (optimal string alignment distance 1), with
 * the kind of edit allowed by the token's length: short brands only by a look-alike letter, so honest
 * words near them ("Stack", "Motion", "Clause") stay usable.
 */
export function oneEditFrom(word: string, t: string): boolean {
  const n = t.length
  if (word === t || Math.abs(word.length - n) > 1) return false
  if (word.length === n) {
    const diff = [...t].map((c, i) => (c === word[i] ? -1 : i)).filter((i) => i >= 0)
    if (diff.length === 1) {
      const i = diff[0]!
      return n >= ANY_SUBSTITUTION_FROM || (n >= LOOK_ALIKE_FROM && lookAlike(t[i]!, word[i]!))
    }
    // Two neighbours swapped ("Cluade").
    return n >= TYPO_FROM && diff.length === 2 && diff[1] === diff[0]! + 1 && t[diff[0]!] === word[diff[1]!] && t[diff[1]!] === word[diff[0]!]
  }
  // One letter more or less ("Anthropc", "Claudde"), the first one kept: a word that only shares the
  // brand's tail ("Laude") or adds a letter before it reads as another word.
  if (n < TYPO_FROM || word[0] !== t[0]) return false
  const [short, long] = word.length < n ? [word, t] : [t, word]
  for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true
  return false
}

/**
 * Whether `whole` contains the token `t` as a claim: anywhere, except where the match starts on the last
 * letter of a longer word ("Temporal Cloud" reads "temporalcloud", whose "lcloud" is no iCloud: the l
 * ends "temporal"). Spaced letters ("g o o g l e") and words run together ("MyGoogleHelper", "xgoogle")
 * still claim.
 */
function containsClaim(whole: string, words: string[], t: string): boolean {
  const ends = new Set<number>()
  let at = 0
  for (const w of words) {
    at += w.length
    if (w.length > 1) ends.add(at - 1)
  }
  const aligned = at === whole.length
  for (let i = whole.indexOf(t); i >= 0; i = whole.indexOf(t, i + 1)) if (!aligned || !ends.has(i)) return true
  return false
}

function matchesToken(whole: string, words: string[], token: string): boolean {
  const t = foldName(token)
  if (whole === t || words.includes(t)) return true
  // Long tokens are claimed anywhere in the name ("MyGoogleHelper", "g o o g l e docs"); short ones
  // ("aws", "meta", "zoom") only as a whole word, so ordinary words that contain them stay usable.
  if (t.length >= 6 && containsClaim(whole, words, t)) return true
  // Within one edit: the whole name, each word, and two neighbouring words together ("Anthro pc").
  const pairs = words.slice(1).map((w, i) => words[i] + w)
  return [whole, ...words, ...pairs].some((w) => oneEditFrom(w, t))
}

/** Every brand the name claims. A capital I reads as l ("GoogIe") or as i ("Open-AI"), so both readings are tried. */
export function claimedBrands(name: string): Brand[] {
  // A doubled v may be a w or a typo ("Lovvable"), so the pairs are read both ways too.
  const readings = [...new Set([name, name.replace(/I/g, 'i')])].flatMap((n) => [true, false].map((pairs) => ({ whole: foldName(n, pairs), words: foldWords(n, pairs) })))
  return BRANDS.filter((b) => b.tokens.some((t) => readings.some((r) => matchesToken(r.whole, r.words, t))))
}

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h)
}

function parse(uri: string): URL | null {
  try {
    return new URL(uri)
  } catch {
    return null
  }
}

/** A redirect is local when it goes to this machine (RFC 8252 section 7.3 loopback redirects). */
export function isLoopbackRedirect(uri: string): boolean {
  const u = parse(uri)
  return u !== null && (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname)
}

function belongsTo(uri: string, brand: Brand): boolean {
  const u = parse(uri)
  if (!u) return false
  const scheme = u.protocol.slice(0, -1)
  if (scheme === 'https' || scheme === 'http') {
    const host = u.hostname.toLowerCase()
    return brand.domains.some((d) => host === d || host.endsWith('.' + d))
  }
  return brand.schemes?.includes(scheme) ?? false
}

export interface BrandVerdict {
  /** The brand the name claims while some redirect goes elsewhere: such a client is refused. */
  imitates: string | null
  /** The name claims a brand and every redirect belongs to it. */
  verifiedAs: string | null
  /** Every redirect goes to loopback. */
  local: boolean
}

export function judgeClient(name: string, redirectUris: readonly string[]): BrandVerdict {
  const claimed = claimedBrands(name)
  const local = redirectUris.length > 0 && redirectUris.every(isLoopbackRedirect)
  const offending = claimed.find((b) => !redirectUris.every((u) => isLoopbackRedirect(u) || belongsTo(u, b)))
  // Only https hosts of the brand verify: an app scheme is claimable by any program on the machine.
  const verified = claimed.length > 0 && claimed.every((b) => redirectUris.every((u) => u.startsWith('https:') && belongsTo(u, b)))
  return { imitates: offending?.name ?? null, verifiedAs: verified ? claimed[0]!.name : null, local }
}
