-- Six migrations were edited after they had landed on main. A database records migrations by name, so
-- one that ran an earlier text kept that text's effects: from a main of 2026-11-23 every verification
-- and monitor run failed on a missing monitor_rank_log. This brings a database that ran any released
-- variant of them to what the files make now; on a database that ran the current texts every step
-- changes nothing. The variants (git log --first-parent main -- migrations/) and what each left:
-- - 0002_connect (18:40 to 18:46 on 2026-11-22): a `connections.lease_until` column nothing uses.
-- - 0003_webhooks (18:53 to 19:01 on 2026-11-22): the fan-out trigger fired for each row; the function
--   0012 puts in its place reads the statement's transition table, so every event insert failed.
-- - 0013_verify_queue (11:31 to 12:07 on 2026-11-23): `events.payload` stayed jsonb.
-- - 0014_monitor_watermark (three variants, 11:44 to 12:40 on 2026-11-23): monitor_state kept its
--   foreign keys (to tenants and applications; to connections) and its index by application, and
--   monitor_rank_log was never created.
-- - 0017_due_wakeups (21:06 to 21:22 on 2026-11-23): statement triggers on verify_queue and a trigger
--   on connections going live sent notifications the current code sends itself, and verify_queue_put
--   did not notify.
-- - 0100_webhook_hot_writes: its comment only.
-- test/integration/upgrade.test.ts applies every combination of variants main ever had and compares
-- the result with a database made from the current files.

-- 0002
alter table connections drop column if exists lease_until;

-- 0003: the statement-level trigger (dropped and made again: same definition where it was right).
drop trigger if exists events_fan_out on events;
create trigger events_fan_out after insert on events referencing new table as new_events
  for each statement execute function webhook_fan_out();

-- 0013 (rewrites the outbox only where it is still jsonb)
do $$
begin
  if exists (select 1 from pg_attribute
             where attrelid = 'events'::regclass and attname = 'payload' and atttypid = 'jsonb'::regtype) then
    alter table events alter column payload type json using payload::json;
  end if;
end $$;

-- 0014
alter table monitor_state drop constraint if exists monitor_state_tenant_id_fkey,
  drop constraint if exists monitor_state_application_id_fkey,
  drop constraint if exists monitor_state_connection_id_fkey;
drop index if exists monitor_state_app;
create or replace function monitor_rank_log(log jsonb, rank smallint, next smallint) returns jsonb language sql as $$
  select case when rank = next then log
    else (case when jsonb_array_length(log) >= 24 then log - 0 else log end)
      || jsonb_build_array(jsonb_build_object('r', next, 'x', pg_current_xact_id()::text)) end
$$;

-- 0017
drop trigger if exists verify_queue_schedule_insert on verify_queue;
drop trigger if exists verify_queue_schedule_update on verify_queue;
drop function if exists verify_schedule_changed();
drop trigger if exists connections_live on connections;
drop function if exists connection_went_live();
create or replace function verify_queue_put() returns trigger language plpgsql as $$
begin
  insert into verify_queue (connection_id, next_check_at) values (new.id, new.next_check_at)
  on conflict (connection_id) do update set next_check_at = excluded.next_check_at;
  if current_setting('portico.sweep', true) is distinct from 'on' then
    perform pg_notify('portico_work', 'schedule:connect-verify');
  end if;
  return null;
end $$;
