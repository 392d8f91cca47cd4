-- Share links: a person hands the manual setup of one connection to whoever controls its DNS. The
-- link's token is the capability (GET /v1/share/{token} needs no credential), so only its SHA-256
-- is stored; links expire 30 days after creation (CONTRACT.md section 8) and then answer 404.
create table share_links (
  id             text primary key,
  tenant_id      text not null references tenants (id) on delete cascade,
  application_id text not null,
  connection_id  text not null references connections (id) on delete cascade,
  token_hash     text not null unique,
  created_by     text not null,
  created_at     timestamptz not null,
  expires_at     timestamptz not null
);
create index share_links_connection on share_links (connection_id);
