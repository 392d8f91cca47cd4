-- The verification schedule moves out of `connections` into a narrow queue, so that the sweep's
-- write to a connection touches no indexed column and PostgreSQL can update it in place (a HOT
-- update: no new entry in any of the table's indexes). `connections.next_check_at` stays the truth:
-- a row trigger puts every time it is set into the queue, and the sweep removes the entries of
-- connections that no longer need checking (gone live or failed, disconnected) when they come due.
create table verify_queue (
  connection_id  text primary key references connections(id) on delete cascade,
  next_check_at  timestamptz not null
);
create index verify_queue_due on verify_queue (next_check_at);

insert into verify_queue (connection_id, next_check_at)
select id, next_check_at from connections
where disconnected_at is null and status in ('pending', 'propagating') and next_check_at is not null;

drop index connections_due;
-- Room on each page for the updated version of a row (new pages only; existing ones fill as rows move).
alter table connections set (fillfactor = 50);

create function verify_queue_put() returns trigger language plpgsql as $$
begin
  insert into verify_queue (connection_id, next_check_at) values (new.id, new.next_check_at)
  on conflict (connection_id) do update set next_check_at = excluded.next_check_at;
  return null;
end $$;
create trigger connections_schedule_insert after insert on connections
  for each row when (new.next_check_at is not null) execute function verify_queue_put();
create trigger connections_schedule_update after update of next_check_at on connections
  for each row when (new.next_check_at is not null and new.next_check_at is distinct from old.next_check_at)
  execute function verify_queue_put();

-- The outbox is written by code holding the connection it reports on and read by event id only:
-- its foreign keys and its two secondary indexes cost every transition and served no reader.
alter table events drop constraint events_tenant_id_fkey, drop constraint events_application_id_fkey;
drop index events_app;
drop index events_connection;

-- Event payloads are kept as the JSON text they were written as: they are only ever sent on as
-- webhook bodies, and parsing each into jsonb on the way in cost the sweeps more than any index.
alter table events alter column payload type json using payload::json;
