// Domain Connect discovery (spec "DNS Provider Discovery"): the `_domainconnect` TXT record of the
// zone names the host of the DNS Provider's Domain Connect API; `GET {host}/v2/{domain}/settings`
// answers the provider's id and the URLs of its synchronous UX (`urlSyncUX`), asynchronous consent UX
// (`urlAsyncUX`) and API (`urlAPI`). What a provider supports is read from those settings: the sync
// rail needs urlSyncUX; the async rail needs urlAsyncUX and an OAuth client Portico holds for that
// provider (DOMAIN_CONNECT_ASYNC_CLIENTS, whose registered url_api the async calls use).
import { parseHostLiteral, classifyAddress } from '../../adapters/ssrf.ts'
import type { Dns } from '../../adapters/dns.ts'
import { valuesOf } from '../../adapters/dns.ts'
import type { AsyncClient } from './settings.ts'
import { providerRequest, type ProviderHttp } from './http.ts'

export interface DcSettings {
  providerId: string
  providerName: string
  providerDisplayName?: string
  urlSyncUX?: string
  urlAsyncUX?: string
  urlAPI?: string
  width?: number
  height?: number
  urlControlPanel?: string
  nameServers?: string[]
}

export interface Discovery {
  /** The `_domainconnect` TXT value. */
  host: string
  settings: DcSettings | null
  /** Why the settings could not be used, when they could not. */
  error?: string
  sync: boolean
  async: boolean
}

/** The base URL of the provider's API host: https, or http for a loopback host under the test setting. */
export function apiBase(host: string, allowLoopback: boolean): string {
  // The record holds an authority and optionally a path (spec "DNS Provider Discovery").
  const h = host.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, '')
  const authority = h.split('/')[0]!.replace(/\.$/, '')
  const name = authority.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1')
  const lit = parseHostLiteral(name)
  const loopback = name.toLowerCase() === 'localhost' || (lit !== null && classifyAddress(lit) === 'loopback')
  return `${allowLoopback && loopback ? 'http' : 'https'}://${authority}${h.slice(h.split('/')[0]!.length)}`
}

function isUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false
  try {
    const u = new URL(/^https?:\/\//i.test(v) ? v : `https://${v}`)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

/** The settings object, or a reason it is not usable. */
export function parseSettings(json: unknown): DcSettings | string {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'settings are not a JSON object'
  const s = json as Record<string, unknown>
  if (typeof s.providerId !== 'string' || s.providerId === '') return 'settings lack providerId'
  const out: DcSettings = { providerId: s.providerId, providerName: typeof s.providerName === 'string' ? s.providerName : s.providerId }
  if (typeof s.providerDisplayName === 'string') out.providerDisplayName = s.providerDisplayName
  for (const k of ['urlSyncUX', 'urlAsyncUX', 'urlAPI', 'urlControlPanel'] as const) if (isUrl(s[k])) out[k] = s[k]
  if (typeof s.width === 'number') out.width = s.width
  if (typeof s.height === 'number') out.height = s.height
  if (Array.isArray(s.nameServers)) out.nameServers = s.nameServers.filter((n): n is string => typeof n === 'string')
  return out
}

/** A URL of the settings (`urlSyncUX` …) with its scheme; the spec writes them with or without one. */
export function withScheme(url: string, allowLoopback: boolean): string {
  if (/^https?:\/\//i.test(url)) return url.replace(/\/+$/, '')
  return apiBase(url, allowLoopback)
}

export interface DiscoverDeps extends ProviderHttp {
  asyncClients: Record<string, AsyncClient>
}

/** Reads the `_domainconnect` record (unless given) and the provider settings for `apex`; null when no record. */
export async function discover(deps: DiscoverDeps, dns: Dns, apex: string, knownHost?: string | null): Promise<Discovery | null> {
  const host = knownHost ?? valuesOf(await dns.lookup(`_domainconnect.${apex}`, 'TXT'))[0] ?? null
  if (!host) return null
  const res = await providerRequest(deps, `${apiBase(host, deps.allowLoopback)}/v2/${apex}/settings`, { method: 'GET' })
  if (!res.ok) return { host, settings: null, error: res.error, sync: false, async: false }
  if (res.status < 200 || res.status > 299) return { host, settings: null, error: `settings answered ${res.status}`, sync: false, async: false }
  const settings = parseSettings(res.json)
  if (typeof settings === 'string') return { host, settings: null, error: settings, sync: false, async: false }
  // The spec requires https for every URL of the settings; plain http only under the loopback test setting.
  if (!deps.allowLoopback) for (const k of ['urlSyncUX', 'urlAsyncUX', 'urlAPI'] as const) if (settings[k] && /^http:\/\//i.test(settings[k]!)) delete settings[k]
  const client = deps.asyncClients[settings.providerId.toLowerCase()]
  return { host, settings, sync: settings.urlSyncUX !== undefined, async: settings.urlAsyncUX !== undefined && client !== undefined }
}
