// Tenancy and keys (the API contract, section 4): tenants, one-call provisioning, the workspace default key,
// applications and their API keys.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { sha256Hex } from '../../crypto.ts'
import { notifyValid } from '../../db/api-keys.ts'
import { invalid } from '../../errors.ts'
import type { Ctx } from '../registry.ts'

export const TAG = 'Tenancy and keys'

/**
 * A credential just minted (an API key, a client secret, an invitation) is valid: once committed, its
 * holder's neighbours' failed guesses never refuse it, on this process or any other (the keys channel
 * tells them: src/domain/throttle.ts).
 */
export async function publishValid(ctx: Pick<Ctx, 'sql' | 'services' | 'afterCommit'>, secret: string): Promise<void> {
  await publishValidHash(ctx, sha256Hex(secret))
}

/** As `publishValid`, for a credential known by its stored hash (hex) only (a previous client secret). */
export async function publishValidHash(ctx: Pick<Ctx, 'sql' | 'services' | 'afterCommit'>, hex: string): Promise<void> {
  await notifyValid(ctx.sql, hex)
  ctx.afterCommit(() => ctx.services.throttle?.vouch(hex))
}

/** The tenant an application operation acts in: the key's own, or `tenant_id` for the management key. */
export function tenantFor(ctx: Ctx, given: string | undefined): string {
  const p = ctx.principal
  if ('tenantId' in p) return p.tenantId
  if (!given) throw invalid('tenant_id is required with the management key', [{ in: 'body', field: 'tenant_id', message: 'is required' }])
  return given
}
