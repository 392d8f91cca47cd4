-- Deliveries become a queue: a row stays in webhook_deliveries while attempts remain, and is removed
-- when the event was delivered or its attempts ran out. The attempts (webhook_attempts) are the
-- record of what happened. Removing a row touches no index, where marking it done rewrote every index
-- entry of the row: the commonest outcome, a delivery on its first try, becomes the cheapest write.
alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey;
delete from webhook_deliveries where status <> 'pending';
drop index webhook_deliveries_due;
alter table webhook_deliveries drop column status;
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at);
create index webhook_attempts_delivery on webhook_attempts (delivery_id, attempt);

create or replace function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (id, tenant_id, application_id, endpoint_id, event_id, event_type, next_attempt_at, created_at, updated_at)
  select 'whd_' || substr(e.id, 5) || '_' || substr(w.id, 5), e.tenant_id, e.application_id, w.id, e.id, e.type,
         e.created_at, e.created_at, e.created_at
  from new_events e
  join webhooks w on w.application_id = e.application_id and w.deleted_at is null and w.disabled_at is null
   and (cardinality(w.events) = 0 or e.type = any(w.events) or '*' = any(w.events));
  -- Wake a delivery worker when the transaction commits (identical notifications are sent once).
  if found then
    perform pg_notify('portico_work', 'webhook-deliver');
  end if;
  return null;
end $$;
