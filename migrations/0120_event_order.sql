-- Events in order, and kept to be read back (src/domain/events.ts, src/db/events.ts).
--
-- Each connection counts its events: `connections.event_seq` is the last sequence handed out, taken
-- under the connection's row lock by the statement that writes the event, so a connection's events
-- are numbered 1, 2, 3, ... in the order they were committed. The number is written into the event
-- row and into its payload (`sequence`, the exact bytes delivered).
alter table connections add column event_seq bigint not null default 0;
alter table events add column sequence bigint;

-- A connection's metadata: the integrator's own keys and values, echoed in its events.
alter table connections add column metadata jsonb not null default '{}';

-- A test event (POST /webhooks/{id}:test) is a row like the others so the delivery path can send it,
-- but no endpoint is subscribed to it and the events API does not list it.
alter table events add column test boolean not null default false;

-- The events API reads a workspace's events newest first and one connection's by sequence.
create index events_tenant on events (tenant_id, id);
create index events_connection on events (connection_id, sequence) where connection_id is not null;

-- The payload with its sequence: the envelope's JSON text with `"sequence":N` put first.
create function event_payload(payload json, seq bigint) returns json language sql immutable as $$
  select case when seq is null then payload else ('{"sequence":' || seq || ',' || substr(ltrim(payload::text), 2))::json end
$$;

-- Delivery in order per connection and endpoint: of one connection's deliveries to one endpoint only the
-- earliest queued (by sequence) is due; the later ones wait ("held": next_attempt_at is infinity) until
-- it leaves the queue (delivered, or out of attempts), when the next one is released, due at its own
-- event's time. So a receiver gets one connection's events in order, each after the one before it was
-- answered; a delivery that fails all its attempts lets the next one go (a replay sends it later).
-- Deliveries not about a connection (purchase events, test events) are never held.
alter table webhook_deliveries add column connection_id text, add column sequence bigint;
create index webhook_deliveries_order on webhook_deliveries (endpoint_id, connection_id, sequence) where connection_id is not null;

create or replace function webhook_fan_out() returns trigger language plpgsql as $$
begin
  insert into webhook_deliveries (id, tenant_id, application_id, endpoint_id, event_id, event_type, connection_id, sequence,
                                  next_attempt_at, created_at, updated_at)
  select f.id, f.tenant_id, f.application_id, f.endpoint_id, f.event_id, f.event_type, f.connection_id, f.sequence,
         -- A connection's first event (sequence 1) has nothing of its connection before it to wait for.
         case when f.sequence is not null and (f.rank > 1 or (f.sequence > 1 and exists (
                select 1 from webhook_deliveries q where q.endpoint_id = f.endpoint_id and q.connection_id = f.connection_id)))
              then 'infinity'::timestamptz else f.created_at end,
         f.created_at, f.created_at
  from (
    select 'whd_' || substr(e.id, 5) || '_' || substr(w.id, 5) as id, e.tenant_id, e.application_id, w.id as endpoint_id, e.id as event_id,
           e.type as event_type, e.connection_id, e.sequence, e.created_at,
           row_number() over (partition by w.id, e.connection_id order by e.sequence) as rank
    from new_events e
    join webhooks w on w.application_id = e.application_id and w.deleted_at is null and w.disabled_at is null
     and (cardinality(w.events) = 0 or e.type = any(w.events) or '*' = any(w.events))
    where not e.test
  ) f;
  -- Wake a delivery worker when the transaction commits (identical notifications are sent once).
  if found then
    perform pg_notify('portico_work', 'webhook-deliver');
  end if;
  return null;
end $$;

-- A delivery that leaves the queue releases the next held one of its connection and endpoint.
create function webhook_release_next() returns trigger language plpgsql as $$
begin
  -- Nothing is held (the common case: one event of a connection at a time): one probe of the due
  -- index, not one per delivery that left.
  if not exists (select 1 from webhook_deliveries where next_attempt_at = 'infinity') then
    return null;
  end if;
  update webhook_deliveries d set next_attempt_at = d.created_at
  from (select distinct g.endpoint_id, g.connection_id from gone g where g.connection_id is not null) g
  where d.id = (select n.id from webhook_deliveries n
                where n.endpoint_id = g.endpoint_id and n.connection_id = g.connection_id
                order by n.sequence limit 1)
    and d.next_attempt_at = 'infinity';
  -- A drain claims what it released on its next round trip; anyone else wakes a worker.
  if found and current_setting('portico.draining', true) is distinct from 'on' then
    perform pg_notify('portico_work', 'webhook-deliver');
  end if;
  return null;
end $$;

create trigger webhook_deliveries_release after delete on webhook_deliveries
  referencing old table as gone for each statement execute function webhook_release_next();

-- Finding a customer's connection by its domain or by the integrator's reference for the end user
-- (GET /connections?domain=…&end_user_ref=…), without walking the workspace's connections. Neither
-- column changes after creation, so the verification sweep's updates stay HOT.
create index connections_tenant_domain on connections (tenant_id, domain) where disconnected_at is null;
create index connections_tenant_end_user on connections (tenant_id, end_user_ref, id) where disconnected_at is null and end_user_ref is not null;
