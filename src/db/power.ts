// Queries of the edge's ask gate. Statements moved from src/ops/power.ts verbatim; the serving
// settings' own queries are in src/domain/power.ts.
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

/**
 * Notes an on-demand approval (`ondemand_at`) unless Portico's own certificate for the connection is
 * issued or was being ordered in the last ten minutes; false when it is.
 */
export async function claimOnDemand(db: Sql, c: { id: string }, now: Date): Promise<boolean> {
  const claimed = await db`
    update connections c set ondemand_at = ${now}
    where c.id = ${c.id} and not exists (
      select 1 from certificates k where k.connection_id = c.id
        and (k.status = 'issued' or (k.status = 'pending' and k.updated_at > ${new Date(now.getTime() - 10 * 60_000)})))
    returning c.id`
  return claimed.length > 0
}

/** Open connections of `host` and of the apex `bare` (a www host), with their redirect setting. */
export async function connectionsServing(db: Sql, host: string, bare: string | null) {
  return (await db`
    select c.*, coalesce(p.redirect_to_www, false) as redirect_to_www from connections c
    left join power_settings p on p.connection_id = c.id and p.status <> 'removed'
    where c.disconnected_at is null and c.domain in (${host}, ${bare ?? host})`) as (ConnectionRow & { redirect_to_www: boolean })[]
}
