-- Foundation: tenants, applications, members, API keys, the audit log.
-- Every tenant-owned row carries tenant_id; queries are always scoped by it.

create table tenants (
  id          text primary key,
  name        text not null check (length(name) between 1 and 200),
  plan_id     text not null default 'free',
  created_at  timestamptz not null,
  updated_at  timestamptz not null
);

create table applications (
  id                  text primary key,
  tenant_id           text not null references tenants(id),
  name                text not null check (length(name) between 1 and 200),
  environment         text not null check (environment in ('live', 'test')),
  client_secret_hash  bytea not null,
  cname_target        text,
  apex_ipv4           text[] not null default '{}',
  created_at          timestamptz not null,
  updated_at          timestamptz not null
);
create index applications_tenant on applications (tenant_id, id);

create table members (
  id                 text primary key,
  tenant_id          text not null references tenants(id),
  email              text not null,
  role               text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  status             text not null check (status in ('invited', 'active')),
  invite_token_hash  bytea unique,
  invited_by         text,
  created_at         timestamptz not null,
  accepted_at        timestamptz,
  updated_at         timestamptz not null
);
create unique index members_tenant_email on members (tenant_id, lower(email));
create index members_email on members (lower(email));

create table api_keys (
  id            text primary key,
  tenant_id     text not null references tenants(id),
  application_id text references applications(id),
  role          text not null check (role in ('owner', 'admin', 'member', 'viewer')),
  name          text,
  prefix        text not null,
  key_hash      bytea not null unique,
  is_default    boolean not null default false,
  created_by    text,
  created_at    timestamptz not null,
  last_used_at  timestamptz,
  revoked_at    timestamptz
);
create index api_keys_application on api_keys (application_id, id);
-- At most one active default key per workspace.
create unique index api_keys_one_default on api_keys (tenant_id) where is_default and revoked_at is null;

create table audit_log (
  id          text primary key,
  tenant_id   text,
  actor_kind  text not null,
  actor_id    text,
  action      text not null,
  target_id   text,
  method      text not null,
  path        text not null,
  ip          text,
  request_id  text,
  details     jsonb not null default '{}',
  created_at  timestamptz not null
);
create index audit_log_tenant on audit_log (tenant_id, id desc);
