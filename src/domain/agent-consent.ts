// A pending consent request as a person (the consent page) or the console (GET /agent/consent-request/{id})
// sees it: the agent client, where it returns, the scopes it asks for and what Portico can say of its
// name (agent-brands.ts).
import { pendingInteraction } from '../db/oauth-store.ts'
import type { Sql } from '../db/sql.ts'
import { judgeClient } from './agent-brands.ts'
import { isClientIdUrl } from './client-id.ts'
import { parseScopes } from './rbac.ts'

export interface ConsentRequest {
  client_id: string
  client_name: string
  redirect_uri: string
  scopes: string[]
  state: string | null
  redirect_host: string
  verified: boolean
  verified_as: string | null
  local: boolean
  imitates: string | null
  registration: 'dynamic'
  registered_at: string
  client_id_host: string | null
}

interface InteractionPayload {
  params?: Record<string, unknown>
  result?: unknown
}

/** Where the person returns to: the web host, or for an app scheme the scheme with its host (`claude://cb`). */
export function redirectHost(uri: string): string {
  try {
    const u = new URL(uri)
    if (u.protocol === 'https:' || u.protocol === 'http:') return u.host
    return u.host ? `${u.protocol}//${u.host}` : u.protocol
  } catch {
    return uri
  }
}

/** The pending consent request `id`, or null when unknown, expired or already answered. */
export async function loadConsentRequest(sql: Sql, id: string): Promise<ConsentRequest | null> {
  const row = await pendingInteraction(sql, id)
  if (!row) return null
  const interaction = (typeof row.interaction === 'string' ? JSON.parse(row.interaction) : row.interaction) as InteractionPayload
  if (interaction.result !== undefined) return null
  const params = interaction.params ?? {}
  const redirectUri = String(params.redirect_uri ?? '')
  const clientId = String(params.client_id)
  // A client ID metadata document proves its host: the brand verdict judges that host (client-metadata.ts).
  const documentHost = isClientIdUrl(clientId) ? new URL(clientId).host : null
  const verdict = judgeClient(row.client_name as string, row.redirect_uris as string[])
  if (documentHost) Object.assign(verdict, { ...judgeClient(row.client_name as string, [clientId]), local: verdict.local })
  return {
    client_id: clientId,
    client_name: row.client_name as string,
    redirect_uri: redirectUri,
    scopes: parseScopes(params.scope as string | undefined),
    state: typeof params.state === 'string' ? params.state : null,
    redirect_host: redirectHost(redirectUri),
    verified: verdict.verifiedAs !== null,
    verified_as: verdict.verifiedAs,
    local: verdict.local,
    imitates: verdict.imitates,
    registration: 'dynamic',
    registered_at: (row.created_at as Date).toISOString(),
    // Dynamic registrations have opaque ids; a URL client id (metadata document) names its host.
    client_id_host: documentHost,
  }
}
