// Brand-imitation check for agent registration (CONTRACT.md section 4, Agents): a client name that
// claims a well-known brand is refused unless every redirect goes to that brand (its domains or its
// own app scheme) or to loopback. Names are compared after folding away the tricks that make one
// string look like another: case, compatibility forms (NFKC: fullwidth letters, ligatures), accents,
// spacing and punctuation, Cyrillic and Greek letters that look Latin, and digit or letter pairs that
// read as one letter (0→o, 1→l, capital I→l, rn→m, vv→w). Redirect hosts are compared as the URL parser gives them
// (lowercase, punycode), never folded: a look-alike host is simply another host.

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
  { name: 'Google', tokens: ['google', 'gemini', 'gmail'], domains: ['google.com', 'googleusercontent.com', 'gemini.google.com', 'gmail.com'] },
  {
    name: 'Microsoft',
    tokens: ['microsoft', 'vscode', 'visualstudio', 'azure', 'outlook'],
    domains: ['microsoft.com', 'visualstudio.com', 'vscode.dev', 'azure.com', 'live.com', 'office.com', 'microsoftonline.com'],
    schemes: ['vscode', 'vscode-insiders', 'ms-vscode'],
  },
  { name: 'OpenAI', tokens: ['openai', 'chatgpt'], domains: ['openai.com', 'chatgpt.com'] },
  { name: 'Anthropic', tokens: ['anthropic', 'claude'], domains: ['anthropic.com', 'claude.ai', 'claude.com'], schemes: ['claude'] },
  { name: 'GitHub', tokens: ['github', 'copilot'], domains: ['github.com', 'github.dev', 'githubcopilot.com'] },
  { name: 'Apple', tokens: ['apple', 'icloud'], domains: ['apple.com', 'icloud.com'] },
  { name: 'Amazon', tokens: ['amazon', 'aws'], domains: ['amazon.com', 'amazonaws.com', 'aws.amazon.com'] },
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
]

// Letters from other scripts that render like Latin ones (Unicode confusables, the common subset).
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', ѕ: 's', і: 'i', ї: 'i', ј: 'j',
  ԁ: 'd', ԛ: 'q', ԝ: 'w', ɡ: 'g', һ: 'h', ӏ: 'l', ո: 'n', ս: 'u',
  // Greek
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w', ϲ: 'c',
  // Latin variants NFKC keeps apart
  ı: 'i', ł: 'l', ø: 'o', đ: 'd', ß: 'ss', æ: 'ae', œ: 'oe',
  // Digits and signs read as letters
  '0': 'o', '1': 'l', '3': 'e', '5': 's', '$': 's', '@': 'a', '!': 'i', '|': 'l',
}

function foldChars(s: string): string {
  const nfkc = s.normalize('NFKC').toLowerCase()
  // Accents go (NFD splits them off as combining marks); look-alikes map to their Latin letter.
  const bare = nfkc.normalize('NFD').replace(/\p{M}/gu, '')
  return [...bare].map((c) => LOOKALIKES[c] ?? c).join('')
}

/** Pairs that read as one letter once the spacing is gone. */
function foldPairs(s: string): string {
  return s.replace(/rn/g, 'm').replace(/vv/g, 'w')
}

/** The name as compared: folded, letters and digits only. */
export function foldName(name: string): string {
  return foldPairs(foldChars(name).replace(/[^\p{L}\p{N}]/gu, ''))
}

/** Each word of the name, folded the same way. */
function foldWords(name: string): string[] {
  return foldChars(name)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map(foldPairs)
}

function matchesToken(whole: string, words: string[], token: string): boolean {
  const t = foldPairs(token)
  if (whole === t || words.includes(t)) return true
  // Long tokens are claimed anywhere in the name ("MyGoogleHelper", "g o o g l e docs"); short ones
  // ("aws", "meta", "zoom") only as a whole word, so ordinary words that contain them stay usable.
  return t.length >= 6 && whole.includes(t)
}

/** Every brand the name claims. A capital I also reads as l ("GoogIe"), so both readings are tried. */
export function claimedBrands(name: string): Brand[] {
  const readings = [...new Set([name, name.replace(/I/g, 'l')])].map((n) => ({ whole: foldName(n), words: foldWords(n) }))
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
  const verified = claimed.length > 0 && claimed.every((b) => redirectUris.every((u) => belongsTo(u, b)))
  return { imitates: offending?.name ?? null, verifiedAs: verified ? claimed[0]!.name : null, local }
}
