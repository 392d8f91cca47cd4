-- Work runs when it is due, not when a cron next looks.
-- 1. The verification schedule: any statement that puts a time into the queue tells the workers, who
--    re-arm their timer to the earliest `next_check_at` (one notification per statement; PostgreSQL
--    folds repeats within a transaction).
create function verify_schedule_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('portico_work', 'schedule:connect-verify');
  return null;
end $$;
create trigger verify_queue_schedule_insert after insert on verify_queue
  for each statement execute function verify_schedule_changed();
create trigger verify_queue_schedule_update after update on verify_queue
  for each statement execute function verify_schedule_changed();

-- 2. A connection that goes live wakes certificate issuance at once (the edge sweep stays the safety net).
create function connection_went_live() returns trigger language plpgsql as $$
begin
  perform pg_notify('portico_work', 'certificate-issue');
  return null;
end $$;
create trigger connections_live after update of status on connections
  for each row when (new.status = 'live' and old.status is distinct from 'live') execute function connection_went_live();

-- 3. One CA order per hostname within an hour, whoever orders first: the edge's on-demand issuance
--    (approved by the ask gate) or Portico's own. Failed orders wait for `retry_at` (the CA's
--    Retry-After when it rate limited, else an hour).
alter table connections add column ondemand_at timestamptz;
alter table certificates add column retry_at timestamptz;
