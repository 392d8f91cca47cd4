-- Connect: connections, their desired records and lifecycle, and the event outbox.


create table connections (
  id                   text primary key,
  tenant_id            text not null references tenants(id),
  application_id       text not null references applications(id),
  domain               text not null,
  apex_domain          text not null,
  end_user_ref         text,
  www_redirect         boolean not null default false,
  status               text not null check (status in ('pending', 'propagating', 'live', 'failed')),
  -- The rail that put the records in place: manual until an automatic rail writes them.
  rail                 text not null default 'manual',
  managed              boolean not null default false,
  provider_id          text,
  desired_records      jsonb not null,
  records_source       text not null default 'planned' check (records_source in ('planned', 'custom')),
  -- The connect target the planned records were computed against.
  planned_target       jsonb not null,
  records_written_at   timestamptz,
  records_outdated_at  timestamptz,
  verification_token   text not null,
  error_code           text,
  error_message        text,
  last_result          jsonb,
  check_count          integer not null default 0,
  last_checked_at      timestamptz,
  next_check_at        timestamptz,
  propagating_since    timestamptz,
  live_at              timestamptz,
  failed_at            timestamptz,
  retried_at           timestamptz,
  created_at           timestamptz not null,
  updated_at           timestamptz not null,
  disconnected_at      timestamptz,
  disconnect_outcome   jsonb
);
-- One open connection per application and domain; a disconnected one frees the name.
create unique index connections_app_domain on connections (application_id, domain) where disconnected_at is null;
create index connections_tenant on connections (tenant_id, id) where disconnected_at is null;
create index connections_due on connections (next_check_at) where disconnected_at is null and status in ('pending', 'propagating');
create index connections_domain on connections (domain) where disconnected_at is null;

-- The outbox: every event is written in the transaction of the change that caused it; delivery reads it.
create table events (
  id              text primary key,
  tenant_id       text not null references tenants(id),
  application_id  text not null references applications(id),
  connection_id   text,
  type            text not null,
  payload         jsonb not null,
  created_at      timestamptz not null
);
create index events_app on events (application_id, id);
create index events_connection on events (connection_id, id);
