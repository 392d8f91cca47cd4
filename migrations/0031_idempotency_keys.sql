-- Idempotency-Key on retryable POSTs (as Stripe has it): one row per credential and key. A request
-- claims its key (`running`, with a lease), and its answer is written in the operation's own
-- transaction (`done`), so a committed mutation always has its answer to replay. Only a successful
-- answer binds a key; an error releases it. Keys expire 24 hours after first use.
create table idempotency_keys (
  -- The credential the key belongs to: key:<api key id>, widget:<token id>, agent:<client>:<subject>, prov, mgmt.
  scope        text not null,
  key          text not null,
  tenant_id    text,
  op_id        text not null,
  request_hash text not null,
  state        text not null check (state in ('running', 'done')),
  locked_until timestamptz,
  status       int,
  -- json, not jsonb: a replay sends the first answer's fields in their order.
  body         json,
  headers      json,
  created_at   timestamptz not null,
  expires_at   timestamptz not null,
  primary key (scope, key)
);
create index idempotency_keys_expiry on idempotency_keys (expires_at);
