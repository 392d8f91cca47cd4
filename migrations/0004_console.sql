-- Console support: per-application email sender, browser push subscriptions per person, and the
-- record of push tests for the per-person rate limit (kept here so it holds across processes).

create table email_senders (
  application_id   text primary key references applications(id),
  tenant_id        text not null references tenants(id),
  smtp_host        text not null,
  smtp_port        integer not null,
  smtp_username    text,
  password_sealed  text,
  tls              text not null check (tls in ('implicit', 'starttls', 'none')),
  from_address     text not null,
  from_name        text,
  reply_to         text,
  verified_at      timestamptz,
  last_error       text,
  last_error_at    timestamptz,
  updated_at       timestamptz not null
);

create table push_subscriptions (
  id          text primary key,
  user_id     text not null,
  endpoint    text not null,
  p256dh      text not null,
  auth        text not null,
  created_at  timestamptz not null,
  unique (user_id, endpoint)
);

create table push_tests (
  user_id     text not null,
  sent_at     timestamptz not null
);
create index push_tests_user on push_tests (user_id, sent_at);
