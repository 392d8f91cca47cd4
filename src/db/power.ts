// Queries of Power: a connection's serving settings (table power_settings; the rules are
// src/domain/power.ts) and the edge's ask gate.
import type { ConnectionRow } from './connections.ts'
import type { Sql } from './sql.ts'

export interface PowerRow {
  connection_id: string
  tenant_id: string
  application_id: string
  origin_url: string | null
  redirect_to_www: boolean
  root_path: string | null
  status: 'pending' | 'active' | 'failed' | 'removed'
  last_error: string | null
  created_at: Date
  updated_at: Date
}

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

export async function powerOf(sql: Sql, connectionId: string): Promise<PowerRow | undefined> {
  const [row] = await sql`select * from power_settings where connection_id = ${connectionId} and status <> 'removed'`
  return row as PowerRow | undefined
}

/** The connection's serving settings, new or replaced, pending until the edge takes them. */
export async function upsertPower(
  tx: Sql,
  c: { id: string; tenant_id: string; application_id: string },
  p: { origin_url: string; redirect_to_www: boolean; root_path: string | null },
  now: Date,
): Promise<PowerRow> {
  const [r] = await tx`
      insert into power_settings (connection_id, tenant_id, application_id, origin_url, redirect_to_www, root_path, status, created_at, updated_at)
      values (${c.id}, ${c.tenant_id}, ${c.application_id}, ${p.origin_url}, ${p.redirect_to_www}, ${p.root_path}, 'pending', ${now}, ${now})
      on conflict (connection_id) do update set origin_url = excluded.origin_url, redirect_to_www = excluded.redirect_to_www,
        root_path = excluded.root_path, status = 'pending', last_error = null, updated_at = excluded.updated_at
      returning *`
  return r as PowerRow
}

export async function setPowerStatus(tx: Sql, c: { id: string }, status: PowerRow['status'], error: string | null, now: Date): Promise<PowerRow> {
  const [r] = await tx`update power_settings set status = ${status}, last_error = ${error}, updated_at = ${now} where connection_id = ${c.id} returning *`
  return r as PowerRow
}

/** Marks the settings removed; undefined when they were already. */
export async function setPowerRemoved(sql: Sql, c: { id: string }, now: Date): Promise<PowerRow | undefined> {
  const [r] = await sql`update power_settings set status = 'removed', updated_at = ${now} where connection_id = ${c.id} and status <> 'removed' returning *`
  return r as PowerRow | undefined
}

/** Active serving settings of open connections, each with its connection (the edge restore). */
export async function activeSites(db: Sql) {
  return (await db`
    select p.*, row_to_json(c.*) as conn from power_settings p join connections c on c.id = p.connection_id
    where p.status = 'active' and c.disconnected_at is null`) as (PowerRow & { conn: ConnectionRow })[]
}

/** Serving settings not yet on the edge (pending or failed) of live connections, each with its connection. */
export async function sitesToPush(db: Sql) {
  return (await db`
    select p.*, row_to_json(c.*) as conn from power_settings p join connections c on c.id = p.connection_id
    where p.status in ('pending', 'failed') and c.status = 'live' and c.disconnected_at is null`) as (PowerRow & { conn: ConnectionRow })[]
}
