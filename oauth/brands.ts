// Brand-imitation check for agent registration (CONTRACT.md section 4, Agents): a client name that
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

// Digits and signs read as the letters they stand for (leetspeak); confusables.txt keeps most apart.
const READ_AS_LETTERS: Record<string, string> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '$': 's', '@': 'a', '!': 'i', '|': 'l' }

/** The UTS #39 skeleton: decomposed, each confusable mapped to its prototype, decomposed again. */
export function skeleton(s: string): string {
  return unhomoglyph(s.normalize('NFD')).normalize('NFD')
}

function foldChars(s: string): string {
  // Skeleton on the original case first (Cherokee Ꮯ is a look-alike of capital C), then once more
  // after lowercasing and reading digits (so "I", "1" and "l" meet, and "m" reads "rn" on both sides).
  const lower = skeleton(s.normalize('NFKC')).toLowerCase()
  const letters = [...lower].map((c) => READ_AS_LETTERS[c] ?? c).join('')
  // Accents and overlays go (ł → l̸ → l); what is left is compared as the skeleton gives it.
  return skeleton(letters).replace(/\p{M}/gu, '').toLowerCase()
}

/** Pairs that read as one letter once the spacing is gone (confusables.txt maps m to rn already). */
function foldPairs(s: string): string {
  return s.replace(/vv/g, 'w')
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
  const t = foldName(token)
  if (whole === t || words.includes(t)) return true
  // Long tokens are claimed anywhere in the name ("MyGoogleHelper", "g o o g l e docs"); short ones
  // ("aws", "meta", "zoom") only as a whole word, so ordinary words that contain them stay usable.
  return t.length >= 6 && whole.includes(t)
}

/** Every brand the name claims. A capital I reads as l ("GoogIe") or as i ("Open-AI"), so both readings are tried. */
export function claimedBrands(name: string): Brand[] {
  const readings = [...new Set([name, name.replace(/I/g, 'i')])].map((n) => ({ whole: foldName(n), words: foldWords(n) }))
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
