// A credential as the provider issues it. Providers that issue one token take it as it is; those that
// issue several parts (GoDaddy's key and secret, an AWS access key, OVH's three keys, Namecheap's API
// user and key) are accepted in each form a person is likely to have them in:
// - joined with `:` in the order the adapter names (`key:secret`), the form Portico documents;
// - a JSON object with the provider's own field names (`{"key": …, "secret": …}`, an AWS
//   `{"AccessKeyId", "SecretAccessKey"}` block, Azure's `az ad sp create-for-rbac` output);
// - `NAME=value` lines (an .env or .ini snippet: `GODADDY_API_KEY=…`);
// - the CSV file AWS offers to download (`Access key ID,Secret access key` and one row);
// - the parts on separate lines, or separated by spaces or commas.
// Field names are matched without regard to case, `_`, `-` or spaces.

export interface CredentialField {
  /** The adapter's name for the part. */
  name: string
  /** The names providers and tools give it (`api_key`, `AccessKeyId`, `GODADDY_API_KEY`). */
  aliases: string[]
  /** A part the credential may leave out. */
  optional?: boolean
}

const norm = (s: string) => s.toLowerCase().replace(/[\s_\-.]/g, '')

function byName(entries: [string, string][], fields: CredentialField[]): string[] | null {
  const map = new Map(entries.map(([k, v]) => [norm(k), v.trim()]))
  const out = fields.map((f) => [f.name, ...f.aliases].map(norm).map((a) => map.get(a)).find((v) => v !== undefined) ?? '')
  return out.some((v, i) => v === '' && !fields[i]!.optional) ? null : out
}

/**
 * The parts of a multi-part credential, in the order of `fields` (a part left out is ''). A form that
 * names its parts is read by name; otherwise the parts are taken in order.
 */
export function credentialParts(secret: string, fields: CredentialField[], opts: { strip?: RegExp } = {}): string[] {
  let s = secret.trim()
  if (opts.strip) s = s.replace(opts.strip, '').trim()
  if (s.startsWith('{')) {
    try {
      const o = JSON.parse(s) as Record<string, unknown>
      const flat: [string, string][] = []
      const walk = (v: Record<string, unknown>) => {
        for (const [k, x] of Object.entries(v)) {
          if (typeof x === 'string' || typeof x === 'number') flat.push([k, String(x)])
          else if (x && typeof x === 'object' && !Array.isArray(x)) walk(x as Record<string, unknown>)
        }
      }
      walk(o)
      const named = byName(flat, fields)
      if (named) return named
    } catch {
      // not JSON after all: read it as text below
    }
  }
  const lines = s.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#') && !/^\[.*\]$/.test(l))
  // AWS's downloadable CSV: a header row of names and one row of values.
  if (lines.length === 2 && lines[0]!.includes(',') && lines[1]!.includes(',')) {
    const names = lines[0]!.split(',')
    const values = lines[1]!.split(',')
    const named = byName(names.map((n, i) => [n, values[i] ?? ''] as [string, string]), fields)
    if (named) return named
  }
  // NAME=value lines (an .env or .ini snippet); `export` and quotes allowed.
  const assignments = lines.map((l) => /^(?:export\s+)?([A-Za-z][\w.\- ]*?)\s*[=:]\s*"?([^"]*)"?$/.exec(l))
  if (lines.length >= 2 && assignments.every(Boolean)) {
    const named = byName(assignments.map((m) => [m![1]!, m![2]!] as [string, string]), fields)
    if (named) return named
  }
  const parts = lines.length >= 2 ? lines : s.includes(':') ? s.split(':') : s.split(/[\s,]+/)
  // The last named part takes the rest (a secret may itself hold the separator).
  const n = fields.length
  const head = parts.slice(0, n - 1)
  const tail = parts.slice(n - 1).join(lines.length >= 2 ? '' : s.includes(':') ? ':' : ' ')
  return [...head, tail].map((p) => p.trim()).concat(Array(Math.max(0, n - parts.length)).fill('')).slice(0, n)
}
