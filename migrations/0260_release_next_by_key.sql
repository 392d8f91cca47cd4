-- A delivery leaving the queue releases the next held one of its connection (migration 0120) by
-- reading only the rows it releases, whatever the queue's statistics say. Planned while they said
-- the queue was empty (a vacuum after a drain: its pages kept, no rows), the release walked every
-- held delivery and, for each, looked up the earliest delivery of every connection that had one
-- leave, each lookup along the endpoint's due index through all the endpoint's queued rows
-- (measured: 1.2 s for one round trip of 87 completions with 138 held; over a drain of 5,000
-- deliveries, five to a connection, 4.4 ms of PostgreSQL CPU a delivery). Now:
-- - each connection that had one leave is one descent of webhook_deliveries_order to its earliest
--   delivery: the function plans without sorts, so no other index is read whole and sorted;
-- - the update names those rows by key, and tests "held" as `not isfinite(next_attempt_at)` (true
--   for 'infinity' only, the one infinite due time written), which no index answers, so the due
--   index is not walked through every held delivery instead.
create or replace function webhook_release_next() returns trigger language plpgsql
set enable_sort = off set enable_seqscan = off
as $$
begin
  -- Nothing is held (the common case: one event of a connection at a time): one probe of the due
  -- index, not one per delivery that left.
  if not exists (select 1 from webhook_deliveries where next_attempt_at = 'infinity') then
    return null;
  end if;
  update webhook_deliveries d set next_attempt_at = d.created_at
  where d.id = any(array(
      select n.id
      from (select distinct g.endpoint_id, g.connection_id from gone g where g.connection_id is not null) g
      cross join lateral (select n.id from webhook_deliveries n
                          where n.endpoint_id = g.endpoint_id and n.connection_id = g.connection_id
                          order by n.sequence limit 1) n))
    and not isfinite(d.next_attempt_at);
  -- A drain claims what it released on its next round trip; anyone else wakes a worker.
  if found and current_setting('portico.draining', true) is distinct from 'on' then
    perform pg_notify('portico_work', 'webhook-deliver');
  end if;
  return null;
end $$;
