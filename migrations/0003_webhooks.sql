-- Webhooks: endpoints, one delivery per event and endpoint, one attempt row per try.

create table webhooks (
  id               text primary key,
  tenant_id        text not null references tenants(id),
  application_id   text not null references applications(id),
  url              text not null,
  -- Empty means every event.
  events           text[] not null default '{}',
  secret_sealed    text not null,
  created_at       timestamptz not null,
  disabled_at      timestamptz,
  disabled_reason  text,
  deleted_at       timestamptz
);
create index webhooks_app on webhooks (application_id) where deleted_at is null;

create table webhook_deliveries (
  id               text primary key,
  tenant_id        text not null,
  application_id   text not null,
  endpoint_id      text not null references webhooks(id),
  event_id         text not null references events(id),
  event_type       text not null,
  status           text not null check (status in ('pending', 'delivered', 'failed')),
  attempts         integer not null default 0,
  max_attempts     integer not null default 3,
  next_attempt_at  timestamptz,
  created_at       timestamptz not null,
  updated_at       timestamptz not null,
  unique (event_id, endpoint_id)
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';

create table webhook_attempts (
  id               text primary key,
  delivery_id      text not null references webhook_deliveries(id),
  tenant_id        text not null,
  application_id   text not null,
  endpoint_id      text not null,
  url              text not null,
  event_id         text not null,
  event_type       text not null,
  domain           text,
  attempt          integer not null,
  status_code      integer,
  delivered        boolean not null,
  error            text,
  duration_ms      integer,
  created_at       timestamptz not null
);
create index webhook_attempts_app on webhook_attempts (application_id, id);
create index webhook_attempts_tenant on webhook_attempts (tenant_id, id);

-- Fan-out at the source: every batch of event rows, however it was written, gets a delivery per
-- subscribed, enabled endpoint of its application in the same transaction (one statement per insert
-- statement, so a sweep that writes thousands of events fans them out in one go). Event names nobody
-- emits can be subscribed to but never match.
create function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (id, tenant_id, application_id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
  select 'whd_' || substr(e.id, 5) || '_' || substr(w.id, 5), e.tenant_id, e.application_id, w.id, e.id, e.type,
         'pending', e.created_at, e.created_at, e.created_at
  from new_events e
  join webhooks w on w.application_id = e.application_id and w.deleted_at is null and w.disabled_at is null
   and (cardinality(w.events) = 0 or e.type = any(w.events) or '*' = any(w.events));
  -- Wake a delivery worker when the transaction commits (identical notifications are sent once).
  if found then
    perform pg_notify('portico_work', 'webhook-deliver');
  end if;
  return null;
end $$;

create trigger events_fan_out after insert on events referencing new table as new_events
  for each statement execute function webhook_fan_out();
