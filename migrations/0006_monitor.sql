-- Monitor: drift of live connections against live DNS (CONTRACT.md sections 2 and 4, "Monitor").
-- One state row per watched connection, written by the hourly sweep; a history of transitions.

create table monitor_state (
  connection_id    text primary key references connections(id),
  tenant_id        text not null references tenants(id),
  application_id   text not null references applications(id),
  -- null until the first conclusive check; then ok, drift or inconclusive.
  result           text check (result in ('ok', 'drift', 'inconclusive')),
  drift            jsonb not null default '[]',
  drift_since      timestamptz,
  attention        text check (attention in ('action_required')),
  action           jsonb,
  repair_detail    text,
  error            text,
  checked          integer not null default 0,
  last_checked_at  timestamptz,
  next_check_at    timestamptz not null,
  -- Attention rank (0 first) and a log of its changes, each tagged with the writer's transaction id,
  -- so a listing can read every domain's rank as of the snapshot its first page was read in.
  rank             smallint not null default 3,
  rank_log         jsonb not null default '[]',
  enrolled_at      timestamptz not null,
  updated_at       timestamptz not null
);
create index monitor_state_due on monitor_state (next_check_at);
create index monitor_state_app on monitor_state (application_id);

create table monitor_history (
  id               text primary key,
  -- Insertion order: entries of one check share a timestamp, and order matters (repair, then restore).
  seq              bigint generated always as identity,
  tenant_id        text not null references tenants(id),
  application_id   text not null references applications(id),
  connection_id    text not null,
  domain           text not null,
  kind             text not null,
  detail           jsonb not null,
  created_at       timestamptz not null
);
create index monitor_history_connection on monitor_history (connection_id, seq);
