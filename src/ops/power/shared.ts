// Power: the edge serving a connection, and the edge's ask gate. Paths are Portico's design (the
// contract names Power only by group):
//   PUT    /connections/{id}/power   origin URL, apex-to-www redirect, root path
//   GET    /connections/{id}/power
//   DELETE /connections/{id}/power   stop serving it
// and the contract's `POST /internal/ask`, which the edge calls before obtaining a certificate on demand.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import type { PowerDeps } from '../../domain/power.ts'
import { ApiError } from '../../errors.ts'
import type { Ctx } from '../registry.ts'

export const TAG = 'Power'

export function power(ctx: Ctx): PowerDeps {
  const edge = ctx.services.edge
  if (!edge) throw new ApiError('service_unavailable', 'Power is not available: no edge is configured on this deployment (EDGE_ADMIN_URL)')
  return { db: ctx.db, clock: ctx.clock, config: ctx.config, dns: ctx.services.dns, edge }
}
