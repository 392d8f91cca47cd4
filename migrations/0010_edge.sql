-- Secure and Power: certificates for connected domains (issued through ACME or imported), the
-- edge's serving settings per connection, ACME HTTP-01 answers the edge forwards to Portico, and the
-- ACME account key.

create table certificates (
  id             text primary key,
  tenant_id      text not null references tenants(id),
  application_id text not null references applications(id),
  connection_id  text not null references connections(id),
  domain         text not null,
  -- Every name the certificate covers (the domain, and www with an apex-to-www redirect).
  names          text[] not null,
  status         text not null check (status in ('pending', 'issued', 'failed', 'removed')),
  managed        boolean not null,
  issuer         text,
  not_before     timestamptz,
  not_after      timestamptz,
  renew_after    timestamptz,
  cert_pem       text,
  key_sealed     text,
  last_error     text,
  attempts       integer not null default 0,
  created_at     timestamptz not null,
  updated_at     timestamptz not null
);
-- One certificate per open connection; removed ones are kept for the record.
create unique index certificates_connection on certificates (connection_id) where status <> 'removed';
create index certificates_app on certificates (application_id, id);
create index certificates_renew on certificates (renew_after) where managed and status = 'issued';

create table power_settings (
  connection_id   text primary key references connections(id),
  tenant_id       text not null references tenants(id),
  application_id  text not null references applications(id),
  origin_url      text,
  redirect_to_www boolean not null default false,
  root_path       text,
  status          text not null check (status in ('pending', 'active', 'failed', 'removed')),
  last_error      text,
  created_at      timestamptz not null,
  updated_at      timestamptz not null
);

create table acme_challenges (
  token      text primary key,
  key_auth   text not null,
  expires_at timestamptz not null
);

create table acme_account (
  id          text primary key,
  directory   text not null,
  key_sealed  text not null,
  created_at  timestamptz not null
);
