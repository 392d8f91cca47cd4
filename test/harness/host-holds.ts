// What a host's zone can hold, as its catalogue row declares (src/domain/providers.ts `capabilities`:
// `caa`, `mx`): the shared adapter contract, do-no-harm and the host properties write CAA and MX records
// only where the host holds them, so an adapter for a host that cannot is not failed for it.
import { PROVIDERS } from '../../src/domain/providers.ts'

/** The record types the provider's zone cannot hold (none for a provider not in the catalogue). */
export function unheldTypes(providerId: string): string[] {
  const c = PROVIDERS.find((p) => p.id === providerId)?.capabilities
  if (!c) return []
  return [...(c.caa ? [] : ['CAA']), ...(c.mx ? [] : ['MX'])]
}

/** `list` without the records (or record sets) of a type the provider's zone cannot hold. */
export function heldBy<T extends { type: string }>(providerId: string, list: readonly T[]): T[] {
  const unheld = unheldTypes(providerId)
  return list.filter((r) => !unheld.includes(r.type))
}
