-- The person's intent bounds the agent (issue 32).

-- One refresh chain: the first refresh of a refresh token claims it here and its answer is kept
-- (sealed with SECRETS_KEY) for the reuse grace, so a repeat inside the grace gets the same successor
-- and parallel refreshes leave one live chain. Rows go once their grace has passed.
create table oauth_refresh_outcomes (
  token_hash   bytea primary key,
  grant_id     text,
  client_id    text,
  claimed_at   timestamptz not null,
  answered_at  timestamptz,
  status       integer,
  sealed       text,
  successor    text,
  jkt          text,
  expires_at   timestamptz not null
);
create index oauth_refresh_outcomes_grant on oauth_refresh_outcomes (grant_id);
create index oauth_refresh_outcomes_expires on oauth_refresh_outcomes (expires_at);

-- A person signs in as themselves (a member of a workspace) on the consent page, the agents page and
-- a confirmation page: a one-time link mailed to them (only its hash is kept), then a session whose
-- cookie carries a random token (only its hash is kept either).
create table member_signins (
  token_hash  bytea primary key,
  member_id   text not null references members(id) on delete cascade,
  tenant_id   text not null references tenants(id),
  next_path   text not null,
  created_at  timestamptz not null,
  expires_at  timestamptz not null,
  used_at     timestamptz
);
create index member_signins_expires on member_signins (expires_at);

create table member_sessions (
  token_hash  bytea primary key,
  member_id   text not null references members(id) on delete cascade,
  tenant_id   text not null references tenants(id),
  created_at  timestamptz not null,
  expires_at  timestamptz not null
);
create index member_sessions_member on member_sessions (member_id);
create index member_sessions_expires on member_sessions (expires_at);

-- A person's yes to something an agent asked to do that needs one (a disconnect, a write replacing
-- records in the customer's zone): bound to the agent (tenant, client, subject) and the connection,
-- short-lived, used once. `summary` is what the person is shown; `fingerprint` what must still hold
-- when the agent's retry runs (the same records replaced).
create table person_confirmations (
  id            text primary key,
  tenant_id     text not null references tenants(id),
  client_id     text not null,
  subject       text not null,
  connection_id text not null,
  action        text not null check (action in ('disconnect', 'apply')),
  domain        text not null,
  summary       jsonb not null,
  fingerprint   text not null,
  created_at    timestamptz not null,
  expires_at    timestamptz not null,
  confirmed_at  timestamptz,
  confirmed_by  text,
  confirmed_via text,
  used_at       timestamptz
);
create index person_confirmations_agent on person_confirmations (tenant_id, client_id, subject, connection_id, action);
create index person_confirmations_expires on person_confirmations (expires_at);

-- Step-up: when an agent is told it lacks a scope (403 insufficient_scope), its next refresh within a
-- few minutes is refused, so a client that tries a refresh first (which cannot widen a grant) goes
-- to its person with the wider scope instead. Once only: later refreshes of the grant work again.
alter table agent_grants
  add column step_up_scopes text[],
  add column step_up_at     timestamptz;
