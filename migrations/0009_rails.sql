-- Automatic rails (issue 6): saved DNS-provider credentials (provider accounts), what each automatic
-- write replaced (so disconnect can restore it), and the signed single-use state of the OAuth rail.

-- A provider account: a DNS-provider credential saved for a tenant, encrypted with SECRETS_KEY.
-- `continuous` keeps the credential so Portico can re-apply and revert later; `one_time` deletes it
-- once its domains are connected and is refused (409) an hour after creation. OAuth grants are
-- accounts of kind `oauth`.
create table provider_accounts (
  id              text primary key,
  tenant_id       text not null references tenants(id),
  kind            text not null check (kind in ('api_key', 'oauth')),
  provider        text not null,
  label           text,
  access          text not null check (access in ('continuous', 'one_time')),
  scope           text not null default 'all',
  -- Not secret: a self-hosted API's URL (PowerDNS).
  api_url         text,
  credential_sealed text,
  status          text not null default 'active' check (status in ('active', 'needs_reconnect')),
  last_error      text,
  created_by      text,
  last_used_at    timestamptz,
  expires_at      timestamptz,
  created_at      timestamptz not null,
  updated_at      timestamptz not null,
  deleted_at      timestamptz
);
create index provider_accounts_tenant on provider_accounts (tenant_id, id) where deleted_at is null;

alter table connections
  add column provider_account_id text references provider_accounts(id),
  -- The last automatic write: the provider zone and, per record set, what it held before (`prior`).
  add column applied jsonb,
  add column applied_at timestamptz,
  -- A managed re-apply failed because the provider refused the grant: re-consent is needed.
  add column reauthorize_needed_at timestamptz;
create index connections_provider_account on connections (provider_account_id) where provider_account_id is not null;

-- OAuth rail: the `state` of an authorization request, used once and expiring.
create table provider_oauth_states (
  id              text primary key,
  tenant_id       text not null references tenants(id),
  connection_id   text not null references connections(id),
  provider        text not null,
  code_verifier   text not null,
  expires_at      timestamptz not null,
  used_at         timestamptz,
  created_at      timestamptz not null
);
alter table provider_oauth_states add column return_url text;
-- One rail write at a time per connection: a short lease taken before reading the zone, so two
-- concurrent applies cannot both record the zone as its prior after the other wrote it.
alter table connections add column rail_lease_until timestamptz;
