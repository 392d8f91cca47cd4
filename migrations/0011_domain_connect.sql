-- Domain Connect: the asynchronous (OAuth) rail's consent sessions and the grants it leaves.

-- One consent started by POST /connections/{id}/domainconnect:start with the async rail. The state
-- sent to the DNS Provider is random; only its SHA-256 is stored, and a session is used once.
create table domain_connect_sessions (
  state_hash      bytea primary key,
  tenant_id       text not null references tenants(id),
  application_id  text not null references applications(id),
  connection_id   text not null references connections(id),
  dc_provider_id  text not null,
  url_api         text not null,
  template_provider_id text not null,
  service_ids     text[] not null,
  apex            text not null,
  host            text not null,
  -- Per template of the consent, in order: {service_id, group_ids (null: every record), params}.
  applies         jsonb not null,
  redirect_uri    text not null,
  return_url      text,
  created_at      timestamptz not null,
  expires_at      timestamptz not null,
  used_at         timestamptz,
  outcome         jsonb
);
create index domain_connect_sessions_connection on domain_connect_sessions (connection_id);

-- The grant a consent left: the provider's tokens, sealed with SECRETS_KEY, so the connection is managed.
create table domain_connect_grants (
  id              text primary key,
  tenant_id       text not null references tenants(id),
  application_id  text not null references applications(id),
  connection_id   text not null references connections(id),
  dc_provider_id  text not null,
  url_api         text not null,
  template_provider_id text not null,
  service_ids     text[] not null,
  apex            text not null,
  host            text not null,
  -- What was applied under the grant, per template: {service_id, group_ids, params}; re-applied as is.
  applies         jsonb not null,
  redirect_uri    text not null,
  access_token_sealed  text not null,
  refresh_token_sealed text,
  access_expires_at    timestamptz,
  created_at      timestamptz not null,
  updated_at      timestamptz not null,
  revoked_at      timestamptz
);
create index domain_connect_grants_connection on domain_connect_grants (connection_id) where revoked_at is null;
