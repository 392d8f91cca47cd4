-- The monitor sweep writes a domain's state only when it changes. Which slots were checked is one
-- watermark (monitor_sweep.swept_to) instead of a per-row next check rewritten every hour; each
-- domain keeps its offset within the hour (slot_ms) and the count and time of its last written check.
alter table monitor_state add column slot_ms integer;
-- The slot of rows already watched: FNV-1a of the connection id, as src/domain/monitor.ts computes it.
create function pg_temp.slot_of(id text) returns integer language plpgsql immutable as $$
declare h bigint := 2166136261; i integer;
begin
  for i in 1 .. length(id) loop
    h := ((h # ascii(substr(id, i, 1))) * 16777619) % 4294967296;
  end loop;
  return (h % 3600000)::integer;
end $$;
update monitor_state set slot_ms = pg_temp.slot_of(connection_id);
alter table monitor_state alter column slot_ms set not null;
alter table monitor_state drop column next_check_at;
create index monitor_state_slot on monitor_state (slot_ms, connection_id);
-- Domains enrolled but never checked: checked first, at once.
create index monitor_state_new on monitor_state (enrolled_at) where last_checked_at is null;

create table monitor_sweep (
  id        boolean primary key default true check (id),
  swept_to  timestamptz not null
);

-- A domain is enrolled in the statement that takes its connection live (recordVerifications), from
-- that very row: the foreign keys only cost that statement (the one to connections locked the row
-- just updated, half the statement's time). Connections are never deleted, and the hourly
-- reconciliation drops any monitor row whose connection is not live.
alter table monitor_state drop constraint monitor_state_tenant_id_fkey, drop constraint monitor_state_application_id_fkey,
  drop constraint monitor_state_connection_id_fkey;
-- Listings reach monitor rows from their connections; nothing reads them by application.
drop index monitor_state_app;

-- A monitor row's rank log after a write that sets its rank to `next`: unchanged when the rank stays,
-- else the change appended (the last 24 kept), tagged with the writer's transaction id, so a listing
-- can read every domain's rank as of the snapshot its first page was read in (src/ops/monitor.ts).
create function monitor_rank_log(log jsonb, rank smallint, next smallint) returns jsonb language sql as $$
  select case when rank = next then log
    else (case when jsonb_array_length(log) >= 24 then log - 0 else log end)
      || jsonb_build_array(jsonb_build_object('r', next, 'x', pg_current_xact_id()::text)) end
$$;
