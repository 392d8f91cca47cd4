-- Agents: the OAuth authorization server's storage (oidc-provider models), its signing keys, the
-- registered agent clients and the grants people approved. Shared by every process, so any process
-- can answer any step of a flow another one started.

-- oidc-provider's models (Client, Grant, Interaction, Session, AuthorizationCode, RefreshToken, ...)
-- keyed by model and id, with the secondary lookups the provider needs (grant, session uid, user code).
create table oauth_store (
  model        text not null,
  id           text not null,
  payload      jsonb not null,
  grant_id     text,
  uid          text,
  user_code    text,
  expires_at   timestamptz,
  consumed_at  timestamptz,
  primary key (model, id)
);
create index oauth_store_grant on oauth_store (grant_id) where grant_id is not null;
create index oauth_store_uid on oauth_store (model, uid) where uid is not null;
create index oauth_store_user_code on oauth_store (model, user_code) where user_code is not null;
create index oauth_store_expires on oauth_store (expires_at) where expires_at is not null;

-- The ES256 signing key set, generated once and sealed with SECRETS_KEY.
create table oauth_keys (
  id          text primary key,
  sealed      text not null,
  created_at  timestamptz not null
);

-- Dynamically registered agent clients (RFC 7591). Registration budgets count these rows; clients no
-- person approved are deleted after a while.
create table agent_clients (
  client_id      text primary key,
  client_name    text not null,
  redirect_uris  text[] not null,
  ip             text,
  created_at     timestamptz not null,
  approved_at    timestamptz
);
create index agent_clients_ip on agent_clients (ip, created_at);
create index agent_clients_created on agent_clients (created_at);
create index agent_clients_unapproved on agent_clients (created_at) where approved_at is null;

-- A person's approval: one client, one tenant, the scopes granted. Access tokens name the grant, and
-- a token stops working when its grant row is revoked or gone (with its client).
create table agent_grants (
  id          text primary key,
  tenant_id   text not null references tenants(id),
  client_id   text not null references agent_clients(client_id) on delete cascade,
  account_id  text not null,
  scopes      text[] not null,
  created_at  timestamptz not null,
  revoked_at  timestamptz
);
create index agent_grants_tenant on agent_grants (tenant_id, id);
create index agent_grants_client on agent_grants (client_id);
