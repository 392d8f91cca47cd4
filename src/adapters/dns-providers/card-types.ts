// The reference card of a DNS provider: how its API really behaves, written from the provider's own
// documentation, its published machine-readable description where one exists, and at least one
// production client that encodes the same behaviour (lego, libdns, octodns, dnscontrol, lexicon, or
// the provider's SDK; read, never copied). Stand-ins (each provider folder's stand-in.ts) answer as the
// card says (rate limits, errors, credentials, TTL floor, paging), the contract and do-no-harm tests
// read it, and docs/providers/README.md is rendered from every card
// (`bun scripts/provider-cards-doc.ts`). Every section names its sources by key; the card's
// `disagreements` says where sources differ and which one the card follows.
import type { ProviderErrorKind } from './types.ts'

/** `recording`: exchanges a production client recorded against the live API, carried as a fixture
 * (test/fixtures/provider-recordings/) and replayed against the stand-in (test/integration/provider-recordings.test.ts). */
export type SourceKind = 'docs' | 'description' | 'client' | 'recording'

export interface Source {
  kind: SourceKind
  /** The page, document or file (a client's file at its repository path). */
  url: string
  /** `description` sources carried as a fixture: its path under test/fixtures/. */
  fixture?: string
  note?: string
}

/** Keys into `ProviderCard.sources`; every section cites at least one. */
export type Cite = string[]

export interface Listing {
  /** Whether the API pages this list, and how. */
  pages: false | 'page' | 'offset' | 'marker' | 'cursor' | 'link'
  /** The parameters a page is asked with, and the most a page holds. */
  params?: string
  maxPageSize?: number
  /** How the last page is known (`total_pages`, `next link`, `IsTruncated`, a short page). */
  end?: string
}

export interface ProviderOnlyKind {
  /** The provider's type or attribute (`ALIAS`, `URL301`, `proxied`). */
  kind: string
  what: string
  /** What Portico does with it: `kept` (read and written back as it is), `locked` (never changed:
   * a plan that would change it is refused before writing), `hidden` (not shown to the planner, never
   * touched). */
  portico: 'kept' | 'locked' | 'hidden'
}

export interface DocumentedError {
  when: string
  status: number
  /** The body as the provider sends it (JSON, XML or text). */
  body: unknown
  reason: ProviderErrorKind
  /** A stand-in answer id, when the stand-in serves this error. */
  id?: string
}

export interface Seed {
  /** What the shape is, in the provider's words. */
  shape: string
  /** The row as the stand-in stores it (the provider's wire form). */
  row: unknown
  /** It stands where Portico's plan writes and cannot be written back as it is: the apply must refuse
   * before writing anything (the do-no-harm test seeds these in a second zone). */
  blocks?: boolean
}

export interface ProviderCard {
  id: string
  name: string
  sources: Record<string, Source>
  base: { url: string; versions: string; regions?: { name: string; url: string }[]; cite: Cite }
  auth: {
    scheme: string
    /** The credential as the provider issues it, and the forms Portico accepts. */
    issued: string
    accepted: string[]
    cite: Cite
  }
  listing: { zones: Listing; records: Listing; cite: Cite }
  records: {
    types: string[]
    names: string
    values: string
    providerOnly: ProviderOnlyKind[]
    cite: Cite
  }
  ttl: { min: number; default: number; max?: number; cite: Cite }
  rateLimit: {
    status: number
    /** Headers and body of the answer, for a wait of `wait` seconds. */
    answer(wait: number): { headers: Record<string, string>; body: unknown }
    /** Where the wait comes from (`Retry-After`, `retryAfterSec` in the body, none). */
    signal: string
    limits: string
    cite: Cite
  }
  /** Refusals the provider documents as temporary and Portico retries (GoDaddy's 409 after an edit). */
  temporary?: { when: string; status: number; body: unknown; retry: string; cite: Cite }[]
  errors: DocumentedError[]
  errorsCite: Cite
  quirks: { text: string; cite: Cite }[]
  /** Shapes the do-no-harm test seeds the stand-in's zone with (the zone is `{zone}` in names). */
  seeds: (zone: string) => Seed[]
  /** Parts of the do-no-harm test's common baseline a provider's own shapes stand in for (`SPF`: OVH's
   * SPF record; `MX`: Namecheap's email forwarding, which has no MX hosts). */
  baselineWithout?: ('SPF' | 'MX')[]
  /** Zone-level settings the stand-in holds for a zone (Namecheap's EmailType), seeded too. */
  settings?: Record<string, unknown>
  disagreements: string[]
}

export function defineCard(c: ProviderCard): ProviderCard {
  return c
}
