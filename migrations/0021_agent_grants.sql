-- Agent grants that hold (issue 21): why and when a grant ended, when it was last used, and the
-- member behind the API key that approved it (a grant ends when that member is removed or that key
-- revoked, and narrows when the member's role is lowered). The DPoP proof replay cache (RFC 9449
-- section 11.1): a proof's jti is accepted once per key while its iat window lasts, in every process.
alter table agent_grants
  add column revoked_reason      text,
  add column last_used_at        timestamptz,
  add column approved_member_id  text;

create table dpop_proofs (
  jkt         text not null,
  jti         text not null,
  expires_at  timestamptz not null,
  primary key (jkt, jti)
);
create index dpop_proofs_expires on dpop_proofs (expires_at);

-- Registration budgets per network prefix (/24 for IPv4, /64 for IPv6) besides per address.
alter table agent_clients add column ip_prefix text;
create index agent_clients_prefix on agent_clients (ip_prefix, created_at);
