// One JSON API client for the adapters whose providers speak plain REST with a token header: it
// sends the credential, turns a failure into a typed ProviderError through `failureOf` (with the
// provider's own message picked from its error body) and returns the parsed body.
import { exchange, failureOf, type HttpResult, type ProviderHttp } from './http.ts'
import type { ProviderErrorKind } from './types.ts'

export interface RestOptions {
  /** Provider name for messages. */
  name: string
  base: string
  headers: Record<string, string>
  /** The provider's own error text from its error body. */
  message(body: any): string | undefined
  /** A kind from the provider's own error code, where the status alone does not tell it. */
  kind?(r: HttpResult): ProviderErrorKind | undefined
  /** Some APIs answer errors with status 200 and a failure flag in the body. */
  failed?(r: HttpResult): boolean
  /** How the exchange treats the provider's temporary refusals (its back-off where it signals no wait). */
  http?: ProviderHttp
}

export class RestClient {
  constructor(readonly opts: RestOptions) {}

  async call(method: string, pathOrUrl: string, body?: unknown): Promise<any> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : this.opts.base + pathOrUrl
    const r = await exchange(method, url, this.opts.headers, body, this.opts.http)
    if (r.status >= 300 || this.opts.failed?.(r)) {
      let msg: string | undefined
      try {
        msg = this.opts.message(r.body)
      } catch {
        msg = undefined
      }
      throw failureOf(this.opts.name, r, msg || `HTTP ${r.status}`, this.opts.kind?.(r))
    }
    return r.body
  }
}
