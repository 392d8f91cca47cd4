// Every loop over a provider's listing goes through `paginate`, so every one ends: on the provider's
// own signal (`more: false`: no next link, the last page by its total), on an empty page, on a page
// shorter than asked where the provider gives no other signal, on a page that repeats the one before
// (a server that ignores paging parameters answers the same list again), and at the latest after
// MAX_PAGES with a typed `too_many_pages` error rather than an endless walk (a zone of 100 000 records
// read 100 a page is 1 000 pages). An API whose published reference has no paging is read with one
// request and never through this helper.
import { ProviderError } from './types.ts'

export const MAX_PAGES = 1000

export interface PageArgs<T> {
  /** 1-based number of the page asked for. */
  index: number
  /** How many items came before this page (for offset paging). */
  offset: number
  /** The last item of the previous page (for marker paging). */
  last: T | undefined
}

export interface Page<T> {
  items: T[]
  /** The provider's own signal: true there is another page, false this was the last. Undefined:
   * the provider gives none, so a page shorter than `pageSize` (or empty) is the last. */
  more?: boolean
}

export interface PaginateOptions {
  /** Provider name, for the error. */
  provider: string
  /** What is being listed, for the error (`zones`, `records of example.com`). */
  what: string
  /** The page size asked for: a shorter page ends a listing without another signal. */
  pageSize?: number
  maxPages?: number
}

export async function paginate<T>(opts: PaginateOptions, page: (a: PageArgs<T>) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = []
  const max = opts.maxPages ?? MAX_PAGES
  let previous: string | null = null
  for (let index = 1; index <= max; index++) {
    const p = await page({ index, offset: out.length, last: out[out.length - 1] })
    const items = Array.isArray(p.items) ? p.items : []
    if (items.length === 0) return out
    const fingerprint = JSON.stringify(items)
    // The same page again: the server ignores the paging parameters, and everything is already here.
    if (fingerprint === previous) return out
    previous = fingerprint
    out.push(...items)
    if (p.more === false) return out
    if (p.more === undefined && opts.pageSize !== undefined && items.length < opts.pageSize) return out
  }
  throw new ProviderError('too_many_pages', `${opts.provider}: the listing of ${opts.what} did not end within ${max} pages`)
}

/**
 * The address of the next page a host named (`links.pages.next`, `nextLink`, a `Link: rel="next"`
 * header), on the API base Portico was configured with (issue 46). A host writes its own published
 * origin into the link (https://api.digitalocean.com/v2/domains?page=2) even when DNS_PROVIDER_API_BASES
 * points Portico elsewhere (an egress proxy, a stand-in), so a link under the configured base or under
 * the host's published one has its path and query rebased onto the configured base; a relative link is
 * read against the configured base. A link outside both is never followed (nothing goes wherever a
 * response points) and never ends the listing as if it were complete: it is refused.
 */
export function nextPageUrl(link: string | null | undefined, base: string, published: string, provider: string): string | null {
  if (!link) return null
  const configured = base.replace(/\/+$/, '')
  let u: URL
  try {
    u = new URL(link, configured + '/')
  } catch {
    throw new ProviderError('write_failed', `${provider} named its next page as ${JSON.stringify(link.slice(0, 200))}, which is not an address; the listing is incomplete, so nothing was written`)
  }
  for (const b of [configured, published.replace(/\/+$/, '')]) {
    const at = new URL(b)
    const prefix = at.pathname.replace(/\/+$/, '')
    if (u.origin === at.origin && (u.pathname === prefix || u.pathname.startsWith(prefix + '/'))) return configured + u.pathname.slice(prefix.length) + u.search
  }
  throw new ProviderError('write_failed', `${provider} named its next page at ${u.origin}${u.pathname}, outside its API; the listing is incomplete, so nothing was written`)
}
