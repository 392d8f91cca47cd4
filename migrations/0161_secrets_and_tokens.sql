-- Keys and secrets that follow the role rules (issue 41):
-- - an application's client_secret rotates with an overlap: the previous secret's hash stays valid
--   until `previous_secret_until` (POST /v1/applications/{id}:rotate-secret);
-- - widget tokens are recorded as they are minted (their JWT id), so an integrator can list the ones
--   still valid and revoke one before it expires; a revoked one is refused by every process (the key
--   cache's notification carries it) and rows go an hour after their expiry.
alter table applications add column previous_client_secret_hash bytea, add column previous_secret_until timestamptz;

create table widget_tokens (
  id             text primary key,
  tenant_id      text not null references tenants (id) on delete cascade,
  application_id text not null,
  scope          text not null,
  bound_host     text,
  created_at     timestamptz not null,
  expires_at     timestamptz not null,
  revoked_at     timestamptz
);
create index widget_tokens_application on widget_tokens (application_id, expires_at);
create index widget_tokens_revoked on widget_tokens (expires_at) where revoked_at is not null;
