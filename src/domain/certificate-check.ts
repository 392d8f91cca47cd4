// What in a domain's DNS stands between a connection and its HTTPS certificate, for the domain check
// (POST /domains:check, `conflicts` with `kind: certificate`). Two things, each with its fix:
// - A CAA record set that does not let Portico's certificate authority issue (RFC 8659). The relevant
//   set is the first found climbing from the name towards the zone apex (§3); it permits issuance
//   when one of its `issue` properties names one of the CA's identities (ACME_CAA_IDENTITIES, or the
//   one known for ACME_DIRECTORY_URL), with no `validationmethods` parameter leaving out the challenge
//   Portico uses (RFC 8657 §4); an empty or ";" issuer forbids every CA; an unknown property marked
//   critical (flag 128) forbids issuance (§4.1). `issuewild` is left out: Portico orders no wildcard.
//   A set with no `issue` property permits every CA. The fix adds `0 issue "<identity>"` beside the
//   existing values (CAA sets are unions: the CAs already allowed stay allowed). When Portico's CA is
//   not known (no ACME_DIRECTORY_URL: the edge's own issuers), only a set that permits no CA at all is
//   judged: every `issue` issuer empty (";") or a special-use name that no CA can be (RFC 6761:
//   .invalid, .test, .example, .localhost); its fix is to remove the set.
// - An `_acme-challenge` record that puts the challenge elsewhere: a CNAME delegating it to another
//   service. With HTTP-01 (what Portico uses) it does not stop issuance, but that service can still
//   obtain certificates for the name; with DNS-01 it would break the challenge. `blocks_certificate`
//   tells the two apart.
// A name that will be a CNAME to the target is judged without its current CNAME: that one is a
// routing conflict and will be replaced. CAA sets above the zone apex (the registry's) are not read.
import type { Dns } from '../adapters/dns.ts'
import { relativeHost } from './hostnames.ts'

export type AcmeChallenge = 'http-01' | 'dns-01'

export interface CertificateCheckSettings {
  /** CAA issuer domain names of Portico's CA (RFC 8659 §4.2); empty: unknown, only a set that permits no CA is judged. */
  caaIdentities: string[]
  challenge: AcmeChallenge
  /** Portico's own DCV zone: an `_acme-challenge` CNAME into it is Portico's delegation, not a conflict. */
  ownDcvZone?: string
}

export interface CertificateConflict {
  kind: 'certificate'
  type: 'CAA' | 'CNAME'
  host: string
  /** The record in the way (for a CAA set: its values, one per line). */
  value: string
  desired: { type: string; host: string; value: string }
  action: 'add' | 'remove'
  reason: 'caa_forbids_ca' | 'acme_challenge_delegated'
  /** Whether Portico cannot get a certificate until it is fixed. */
  blocks_certificate: boolean
  /** What to do, in words. */
  fix: string
}

export interface CaaProperty {
  flags: number
  tag: string
  value: string
}

/** `0 issue "letsencrypt.org"` (RFC 8659 §4.1.1 presentation); null when it is not one. */
export function parseCaa(text: string): CaaProperty | null {
  const m = /^\s*(\d{1,3})\s+([A-Za-z0-9]+)\s+(?:"((?:[^"\\]|\\.)*)"|(\S*))\s*$/.exec(text)
  if (!m) return null
  return { flags: Number(m[1]), tag: m[2]!.toLowerCase(), value: (m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1') }
}

/** Whether one `issue` value lets a CA with one of `identities` issue by `challenge`. */
function issuePermits(value: string, identities: string[], challenge: AcmeChallenge): boolean {
  const [issuer = '', ...params] = value.split(';')
  const domain = issuer.trim().toLowerCase().replace(/\.$/, '')
  if (!domain || !identities.includes(domain)) return false
  for (const p of params) {
    const [k, v] = p.split('=').map((x) => x.trim())
    if (k?.toLowerCase() === 'validationmethods' && v !== undefined && !v.toLowerCase().split(',').includes(challenge)) return false
  }
  return true
}

const KNOWN_TAGS = new Set(['issue', 'issuewild', 'iodef', 'issuemail', 'issuevmc', 'contactemail', 'contactphone'])

/** Whether a relevant CAA set lets the CA issue a (non-wildcard) certificate. */
export function caaPermits(values: string[], identities: string[], challenge: AcmeChallenge): boolean {
  const props = values.map(parseCaa).filter((p): p is CaaProperty => p !== null)
  if (props.some((p) => p.flags & 128 && !KNOWN_TAGS.has(p.tag))) return false
  const issue = props.filter((p) => p.tag === 'issue')
  if (issue.length === 0) return true
  return issue.some((p) => issuePermits(p.value, identities, challenge))
}

/** Whether a relevant CAA set permits no certificate authority at all (whichever one Portico's edge uses). */
export function caaPermitsNoCa(values: string[]): boolean {
  const props = values.map(parseCaa).filter((p): p is CaaProperty => p !== null)
  if (props.some((p) => p.flags & 128 && !KNOWN_TAGS.has(p.tag))) return true
  const issue = props.filter((p) => p.tag === 'issue')
  if (issue.length === 0) return false
  return issue.every((p) => {
    const domain = p.value.split(';')[0]!.trim().toLowerCase().replace(/\.$/, '')
    return !domain || /(^|\.)(invalid|test|example|localhost)$/.test(domain)
  })
}

/**
 * The certificate conflicts of `names` (the hostnames the certificate will cover) in the zone `apex`.
 * `cnamed` are the names that will be a CNAME to the target (their current CNAME is not followed).
 */
export async function certificateConflicts(
  dns: Dns,
  apex: string,
  names: string[],
  cnamed: Set<string>,
  routing: (name: string) => { type: string; host: string; value: string },
  s: CertificateCheckSettings,
): Promise<{ conflicts: CertificateConflict[]; error?: string }> {
  let error: string | undefined
  const out: CertificateConflict[] = []
  const seenCaa = new Set<string>()
  await Promise.all(
    names.map(async (name) => {
      // Without a known CA (the edge's own issuers) nothing is known of its challenge: only CAA is judged;
      // DNS-01 through Portico's delegation is Portico's own path, whatever the CA.
      const [caa, challenge] = await Promise.all([
        relevantCaa(dns, name, apex, cnamed),
        s.caaIdentities.length || s.ownDcvZone ? dns.lookup(`_acme-challenge.${name}`, 'CNAME') : Promise.resolve({ status: 'nodata' as const }),
      ])
      if (caa?.error) error = caa.error
      if (caa?.at && !seenCaa.has(caa.at) && !s.caaIdentities.length && caaPermitsNoCa(caa.values)) {
        seenCaa.add(caa.at)
        const host = relativeHost(caa.at, apex)
        out.push({
          kind: 'certificate',
          type: 'CAA',
          host,
          value: [...caa.values].sort().join('\n'),
          desired: { type: 'CAA', host, value: '' },
          action: 'remove',
          reason: 'caa_forbids_ca',
          blocks_certificate: true,
          fix: `The CAA records at ${caa.at} allow no certificate authority to issue certificates for ${name}, so HTTPS cannot be set up. Remove them (or replace them with one allowing the certificate authority you use).`,
        })
      }
      if (caa?.at && !seenCaa.has(caa.at) && s.caaIdentities.length && !caaPermits(caa.values, s.caaIdentities, s.challenge)) {
        seenCaa.add(caa.at)
        const host = relativeHost(caa.at, apex)
        const add = `0 issue "${s.caaIdentities[0]}"`
        out.push({
          kind: 'certificate',
          type: 'CAA',
          host,
          value: [...caa.values].sort().join('\n'),
          desired: { type: 'CAA', host, value: add },
          action: 'add',
          reason: 'caa_forbids_ca',
          blocks_certificate: true,
          fix:
            `The CAA records at ${caa.at} do not allow ${s.caaIdentities[0]} to issue certificates for ${name}, so HTTPS cannot be set up. ` +
            `Add a CAA record at ${caa.at}: ${add}. Keep the existing ones; the authorities they allow stay allowed.`,
        })
      }
      if (challenge.status === 'error') error = challenge.error
      const delegated = challenge.status === 'ok' ? challenge.values[0] : undefined
      const ours = !!delegated && !!s.ownDcvZone && delegated.replace(/\.$/, '').toLowerCase().endsWith(`.${s.ownDcvZone}`)
      if (delegated && !ours) {
        const host = relativeHost(`_acme-challenge.${name}`, apex)
        const blocks = s.challenge === 'dns-01'
        out.push({
          kind: 'certificate',
          type: 'CNAME',
          host,
          value: delegated,
          desired: routing(name),
          action: 'remove',
          reason: 'acme_challenge_delegated',
          blocks_certificate: blocks,
          fix: blocks
            ? `_acme-challenge.${name} hands certificate validation to ${delegated}, so Portico cannot prove control of ${name}. Remove this CNAME.`
            : `_acme-challenge.${name} hands certificate validation to ${delegated}: that service can still obtain certificates for ${name}. ` +
              `Portico validates over HTTP and does not need it. Remove this CNAME unless you still use that service for ${name}.`,
        })
      }
    }),
  )
  return { conflicts: out.sort((a, b) => a.host.localeCompare(b.host) || a.type.localeCompare(b.type)), error }
}

/** The relevant CAA set of `name` within the zone `apex` (RFC 8659 §3): where it was found and its values. */
async function relevantCaa(dns: Dns, name: string, apex: string, cnamed: Set<string>): Promise<{ at: string | null; values: string[]; error?: string }> {
  for (let x = name; ; x = x.slice(x.indexOf('.') + 1)) {
    const l = await dns.lookup(x, 'CAA')
    if (l.status === 'error') return { at: null, values: [], error: l.error }
    // A name that will be a CNAME to the target is not judged by where its current CNAME leads.
    const followed = l.status === 'ok' && l.cname !== undefined && cnamed.has(x)
    if (l.status === 'ok' && l.values.length && !followed) return { at: x, values: l.values }
    if (x === apex || !x.includes('.')) return { at: null, values: [] }
  }
}
