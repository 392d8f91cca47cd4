// Bulk seed for bench/scale: connections numbered i = 0, 1, 2, ... spread over 1,000 workspaces, with
// what a deployment accumulates beside them, written by INSERT ... SELECT over generate_series in one
// session (triggers and foreign-key checks off while loading, as a restore would). Every attribute of
// connection i is a function of i alone, so growing the seed from 10,000 to 100,000 keeps the
// proportions of the first 10,000 and adds the rest after them (newer ids, later creation times).
//
// Workspace sizes follow Zipf's law (workspace k holds a share proportional to 1/k): the largest has
// about 10% of all connections, the median a few hundred at a million. Statuses: 80% live, 8% pending,
// 4% propagating (each within its first 24 hours), 3% failed, 5% disconnected. Beside each connection: its audit row, an outbox event
// per transition (created, and live), a delivery attempt per event for the third of workspaces with a
// webhook endpoint (a few deliveries still pending), a monitor row per live domain (1% with history),
// and an issued certificate for half the live domains (renewed 30 days before expiry, so not_after is
// 30 to 90 days ahead, except 0.1% whose renewal keeps failing, within 14 days; 2% of orders pending). Pending and propagating connections are scheduled two to eight hours ahead, none due while the bench runs.
import type { Sql } from '../../src/db/sql.ts'
import { foldStatusCounts } from '../../src/db/status-counts.ts'

export const WORKSPACES = 1000
export const EDGE = 'edge.portico.test'
/** Connection i was created at BASE + i * 30 s (a million span eleven and a half months). */
const STEP_S = 30

export const tenantId = (k: number) => `ten_bench${String(k).padStart(4, '0')}`
export const appId = (k: number) => `app_bench${String(k).padStart(4, '0')}`
/** Connection ids sort by i (as real ids sort by creation time) and are as long as real ones. */
export const connectionIdSql = (i: string) => `'con_0' || lpad(${i}::text, 9, '0') || substr(md5(${i}::text), 1, 16)`

/** The workspaces, their applications and (every third, from the first) a webhook endpoint. */
export async function seedWorkspaces(db: Sql, now: Date): Promise<void> {
  await db`
    insert into tenants (id, name, created_at, updated_at)
    select 'ten_bench' || lpad(k::text, 4, '0'), 'Workspace ' || k, ${now}, ${now} from generate_series(1, ${WORKSPACES}) k`
  await db`
    insert into applications (id, tenant_id, name, environment, client_secret_hash, created_at, updated_at)
    select 'app_bench' || lpad(k::text, 4, '0'), 'ten_bench' || lpad(k::text, 4, '0'), 'App ' || k, 'live', '\\x00'::bytea, ${now}, ${now}
    from generate_series(1, ${WORKSPACES}) k`
  await db`
    insert into webhooks (id, tenant_id, application_id, url, secret_sealed, created_at)
    select 'whk_bench' || lpad(k::text, 4, '0'), 'ten_bench' || lpad(k::text, 4, '0'), 'app_bench' || lpad(k::text, 4, '0'),
      'https://hooks.example.com/portico/' || k, 'sealed', ${now}
    from generate_series(1, ${WORKSPACES}) k where k % 3 = 1`
}

/**
 * Adds connections [from, to) and their companions. `monitorCheckedAt` is every monitor row's last
 * written check (the monitor measurement picks its windows after it).
 */
export async function seedConnections(db: Sql, from: number, to: number, now: Date, monitorCheckedAt: Date): Promise<void> {
  const base = new Date(now.getTime() - 1_000_000 * STEP_S * 1000)
  const lock = await db.reserve()
  try {
    await lock`set session_replication_role = replica`
    await lock`set work_mem = '256MB'`
    await seedSource(lock, base, from, to)
    await seedConnectionRows(lock, now)
    await seedEvents(lock, now)
    await seedMonitor(lock, monitorCheckedAt)
    await seedCertificates(lock, now)
    await seedStatusCounts(lock)
    await lock`drop table s`
    await lock`drop table e`
    await lock`reset session_replication_role`
  } finally {
    lock.release()
  }
}

/** Temp table `s`: one row per connection i in [from, to) with everything the inserts below derive from it. */
async function seedSource(lock: Sql, base: Date, from: number, to: number): Promise<void> {
  await lock`drop table if exists pg_temp.s`
  await lock.unsafe(`
    create temp table s as
    select i, k, u, w,
      ${connectionIdSql('i')} as id,
      'ten_bench' || lpad(k::text, 4, '0') as tenant_id,
      'app_bench' || lpad(k::text, 4, '0') as application_id,
      'd' || i || '.scale-bench.test' as apex,
      'shop.d' || i || '.scale-bench.test' as domain,
      case when u < 0.80 then 'live' when u < 0.88 then 'pending' when u < 0.92 then 'propagating' when u < 0.95 then 'failed' else 'live' end as status,
      u >= 0.95 as disconnected,
      $1::timestamptz + i * interval '${STEP_S} seconds' as created_at
    from (
      select i, floor(power(${WORKSPACES + 1}, (i * 0.6180339887498949) % 1))::int as k,
        ('x' || substr(md5(i::text), 1, 8))::bit(32)::bigint / 4294967296.0 as u,
        ('x' || substr(md5(i::text), 9, 8))::bit(32)::bigint / 4294967296.0 as w
      from generate_series($2::bigint, $3::bigint - 1) i
    ) g`, [base, from, to])
}

/** The connections, the verification queue of those still checked, and each connection's audit row. */
async function seedConnectionRows(lock: Sql, now: Date): Promise<void> {
  await lock.unsafe(`
    insert into connections (id, tenant_id, application_id, domain, apex_domain, end_user_ref, status, rail, provider_id,
      desired_records, records_source, planned_target, verification_token, last_result, check_count, last_checked_at, next_check_at,
      propagating_since, live_at, failed_at, error_code, error_message, created_at, updated_at, disconnected_at, disconnect_outcome)
    select id, tenant_id, application_id, domain, apex, case when i % 4 = 0 then 'user-' || i end, status,
      case when i % 5 = 0 then 'api' else 'manual' end, 'cloudflare',
      jsonb_build_array(jsonb_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}', 'ttl', 300, 'purpose', 'routing')),
      'planned', jsonb_build_object('cname_target', '${EDGE}', 'apex_ipv4', '[]'::jsonb), md5(i::text || 'token'),
      case when status = 'live'
        then json_build_object('records_propagated', json_build_array(json_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}')), 'records_non_propagated', '[]'::json, 'checked_via', 'authoritative')
        else json_build_object('records_propagated', '[]'::json, 'records_non_propagated', json_build_array(json_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}')), 'checked_via', 'authoritative') end,
      3 + (i % 20), created_at + interval '10 minutes',
      case when status in ('pending', 'propagating') and not disconnected then $1::timestamptz + interval '2 hours' + w * interval '6 hours' end,
      case when status = 'propagating' then $1::timestamptz - w * interval '20 hours' when status <> 'pending' then created_at + interval '2 minutes' end,
      case when status = 'live' then created_at + interval '10 minutes' end,
      case when status = 'failed' then created_at + interval '3 days' end,
      case when status = 'failed' then 'records_not_found' end,
      case when status = 'failed' then 'The records were not found within 72 hours' end,
      created_at, created_at + interval '10 minutes',
      case when disconnected then created_at + interval '20 days' end,
      case when disconnected then '{"records_removed": true}'::jsonb end
    from s`, [now])
  await lock`
    insert into verify_queue (connection_id, next_check_at)
    select id, ${now}::timestamptz + interval '2 hours' + w * interval '6 hours' from s where status in ('pending', 'propagating') and not disconnected`
  await lock.unsafe(`
    insert into audit_log (id, tenant_id, actor_kind, actor_id, action, target_id, method, path, ip, request_id, details, created_at)
    select 'aud_0' || lpad(i::text, 9, '0') || substr(md5(i::text || 'a'), 1, 16), tenant_id, 'KEY', 'key_bench' || k, 'connections.create', id,
      'POST', '/v1/connections', '203.0.113.' || (i % 250), 'req_bench' || i, '{"status": 201, "outcome": "created"}', created_at
    from s`)
}

/**
 * Outbox events (temp table `e`): every connection's connection.created, and connection.live for those
 * that went live; a delivery attempt for each where the workspace has an endpoint, a few still pending.
 */
async function seedEvents(lock: Sql, now: Date): Promise<void> {
  await lock.unsafe(`
    create temp table e as
    select s.*, t.type, t.n, 'evt_0' || lpad(i::text, 9, '0') || t.n || substr(md5(i::text || t.type), 1, 15) as event_id,
      created_at + t.n * interval '10 minutes' as at
    from s cross join (values ('connection.created', 0), ('connection.live', 1)) as t(type, n)
    where t.n = 0 or s.status = 'live'`)
  await lock.unsafe(`
    insert into events (id, tenant_id, application_id, connection_id, type, payload, created_at)
    select event_id, tenant_id, application_id, id, type,
      json_build_object('id', event_id, 'type', type, 'connection_id', id, 'application_id', application_id, 'domain', domain,
        'subdomain', 'shop', 'provider', 'cloudflare', 'setup_type', 'manual', 'propagation_status', case when n = 1 then 'success' else 'pending' end,
        'data', json_build_object('records_propagated', case when n = 1 then json_build_array(json_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}')) else '[]'::json end,
          'records_non_propagated', case when n = 0 then json_build_array(json_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}')) else '[]'::json end),
        'created_at', at),
      at
    from e`)
  await lock.unsafe(`
    insert into webhook_attempts (id, delivery_id, tenant_id, application_id, endpoint_id, url, event_id, event_type, domain, attempt,
      status_code, delivered, error, duration_ms, created_at)
    select 'wha_' || substr(event_id, 5), 'whd_' || substr(event_id, 5) || '_bench' || lpad(k::text, 4, '0'), tenant_id, application_id,
      'whk_bench' || lpad(k::text, 4, '0'), 'https://hooks.example.com/portico/' || k, event_id, type, domain, 1, 200, true, null, 20 + i % 60,
      at + interval '1 second'
    from e where k % 3 = 1`)
  await lock.unsafe(`
    insert into webhook_deliveries (id, tenant_id, application_id, endpoint_id, event_id, event_type, attempts, next_attempt_at, created_at, updated_at)
    select 'whd_' || substr(event_id, 5) || '_bench' || lpad(k::text, 4, '0'), tenant_id, application_id, 'whk_bench' || lpad(k::text, 4, '0'),
      event_id, type, 1, $1::timestamptz + interval '1 hour', at, at
    from e where k % 3 = 1 and i % 2000 = 7`, [now])
}

/** A monitor row per live domain, last checked at `checkedAt`; 1% with a drift and its restoration. */
async function seedMonitor(lock: Sql, checkedAt: Date): Promise<void> {
  await lock.unsafe(`
    insert into monitor_state (connection_id, tenant_id, application_id, result, checked, last_checked_at, enrolled_at, updated_at, slot_ms)
    select id, tenant_id, application_id, 'ok', 50 + i % 100, $1::timestamptz, created_at + interval '11 minutes', $1::timestamptz,
      (w * 3600000)::int
    from s where status = 'live' and not disconnected`, [checkedAt])
  await lock.unsafe(`
    insert into monitor_history (id, tenant_id, application_id, connection_id, domain, kind, detail, created_at)
    select 'mon_0' || lpad(i::text, 9, '0') || t.n || substr(md5(i::text || t.kind), 1, 15), tenant_id, application_id, id, domain, t.kind,
      json_build_object('records', json_build_array(json_build_object('type', 'CNAME', 'host', 'shop', 'value', '${EDGE}')))::jsonb,
      created_at + (20 + t.n) * interval '1 day'
    from s cross join (values ('drift', 0), ('restored', 1)) as t(kind, n)
    where status = 'live' and not disconnected and i % 100 = 3`)
}

/** A certificate for half the live domains: 2% of orders pending, 0.1% whose renewal keeps failing. */
async function seedCertificates(lock: Sql, now: Date): Promise<void> {
  await lock.unsafe(`
    insert into certificates (id, tenant_id, application_id, connection_id, domain, names, status, managed, issuer, not_before, not_after,
      renew_after, cert_pem, key_sealed, attempts, created_at, updated_at)
    select 'crt_0' || lpad(i::text, 9, '0') || substr(md5(i::text || 'c'), 1, 16), tenant_id, application_id, id, domain, array[domain],
      case when w < 0.02 then 'pending' else 'issued' end, true, case when w < 0.02 then null else 'acme' end,
      case when w >= 0.02 then $1::timestamptz - (1 - w) * interval '90 days' end,
      case when w >= 0.021 then $1::timestamptz + interval '30 days' + w * interval '60 days' when w >= 0.02 then $1::timestamptz + (w - 0.02) * 1000 * interval '14 days' end,
      case when w >= 0.021 then $1::timestamptz + w * interval '60 days' when w >= 0.02 then $1::timestamptz - interval '16 days' end,
      case when w >= 0.02 then '-----BEGIN CERTIFICATE-----' || repeat(md5(i::text), 40) || '-----END CERTIFICATE-----' end,
      case when w >= 0.02 then repeat(md5(i::text || 'k'), 8) end,
      1, created_at + interval '11 minutes', created_at + interval '11 minutes'
    from s where status = 'live' and not disconnected and i % 2 = 0`, [now])
}

/** The cached counts (migration 0090) the triggers would have written, switched off while loading. */
async function seedStatusCounts(lock: Sql): Promise<void> {
  await lock`
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'connection', tenant_id, application_id, status, count(*) from s where not disconnected group by 2, 3, 4
    union all
    select 'certificate', tenant_id, application_id, case when w < 0.02 then 'pending' else 'issued' end, count(*) from s
    where status = 'live' and not disconnected and i % 2 = 0 group by 2, 3, 4`
}

/** Vacuums and analyzes what the seed wrote (autovacuum would have, on a deployment that grew this way). */
export async function settle(db: Sql): Promise<void> {
  await foldStatusCounts(db)
  for (const t of ['connections', 'verify_queue', 'audit_log', 'events', 'webhook_attempts', 'webhook_deliveries', 'monitor_state', 'monitor_history', 'certificates', 'status_counts', 'tenants', 'applications']) {
    await db.unsafe(`vacuum (analyze) ${t}`)
  }
}
