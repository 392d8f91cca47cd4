-- Work runs when it is due, not when a cron next looks. (A connection going live wakes certificate
-- orders from the statement that records it: recordVerifications in src/domain/connect.ts.)
-- 1. The verification schedule: a time put into the queue tells the workers, who re-arm their timer
--    to the earliest `next_check_at` (PostgreSQL folds repeated notifications within a transaction).
--    The sweep's own writes do not notify (it sets `portico.sweep`): a worker re-reads the schedule
--    after each firing anyway, and a notification per verified row would cost the sweep.
create or replace function verify_queue_put() returns trigger language plpgsql as $$
begin
  insert into verify_queue (connection_id, next_check_at) values (new.id, new.next_check_at)
  on conflict (connection_id) do update set next_check_at = excluded.next_check_at;
  if current_setting('portico.sweep', true) is distinct from 'on' then
    perform pg_notify('portico_work', 'schedule:connect-verify');
  end if;
  return null;
end $$;

-- 2. One CA order per hostname within an hour, whoever orders first: the edge's on-demand issuance
--    (approved by the ask gate) or Portico's own. Failed orders wait for `retry_at` (the CA's
--    Retry-After when it rate limited, else an hour).
alter table connections add column ondemand_at timestamptz;
alter table certificates add column retry_at timestamptz;
