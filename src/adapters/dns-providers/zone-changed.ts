// A batch a host refused because the zone changed between Portico's read and the write (issue 46): the
// host's batch is all or nothing, so nothing was written. It is sent once more, as the zone now stands
// (`send` reads the sets it deletes afresh); refused again, the zone is busy: 409 conflict
// `zone_changed`, retry later. Shared by the hosts with an atomic batch (Cloudflare, Google Cloud DNS,
// Route 53, Scaleway), each naming how it says "changed".
import { ProviderError } from './types.ts'

export async function onceMoreIfZoneChanged(host: string, status: number, changed: (err: unknown) => boolean, send: () => Promise<void>): Promise<void> {
  try {
    await send()
  } catch (e) {
    if (!changed(e)) throw e
    try {
      await send()
    } catch (e2) {
      if (!changed(e2)) throw e2
      throw new ProviderError('zone_changed', `${host}: the zone changed twice while writing (${(e2 as ProviderError).message}); nothing was written`, status, 5)
    }
  }
}
