-- Sell and billing: purchase orders with their payment state machine, billing accounts, plan
-- checkouts and invoices. Usage is metered from connections themselves (new domains per month).

-- A purchase order. Status moves only forward, each step one guarded update (`where status = ...`):
--   quoted → pending_payment → authorized → registering → registered → completed
--   quoted | pending_payment → expired        (unpaid for a day)
--   pending_payment | authorized → failed     (declined card)
--   registering → failed                       (registration refused; authorization released)
-- Only the request that moves authorized → registering registers and captures, so no path captures
-- twice or captures without a registration.
create table sell_orders (
  id               text primary key,
  tenant_id        text not null references tenants(id),
  application_id   text not null references applications(id),
  domain           text not null,
  years            integer not null check (years between 1 and 10),
  price_cents      integer not null check (price_cents >= 0),
  currency         text not null,
  premium          boolean not null,
  status           text not null check (status in ('quoted', 'pending_payment', 'authorized', 'registering', 'registered', 'completed', 'failed', 'expired')),
  buyer_email      text,
  processor        text,
  payment_id       text,
  session_id       text,
  registrar        text,
  reg_order_id     text,
  connection_id    text,
  error_code       text,
  error_message    text,
  -- POST /registrar/purchase: the Idempotency-Key, a hash of the request it came with, and the answer.
  idempotency_key  text,
  request_hash     text,
  result_status    integer,
  result           jsonb,
  expires_at       timestamptz not null,
  authorized_at    timestamptz,
  captured_at      timestamptz,
  released_at      timestamptz,
  created_at       timestamptz not null,
  updated_at       timestamptz not null
);
create unique index sell_orders_session on sell_orders (session_id) where session_id is not null;
create unique index sell_orders_payment on sell_orders (payment_id) where payment_id is not null;
create unique index sell_orders_idempotency on sell_orders (application_id, idempotency_key) where idempotency_key is not null;
create index sell_orders_app on sell_orders (application_id, id);
create index sell_orders_tenant on sell_orders (tenant_id, id);
create index sell_orders_unpaid on sell_orders (expires_at) where status in ('quoted', 'pending_payment');

-- One billing account per tenant: the processor's customer, the saved card, the subscription state.
create table billing_accounts (
  tenant_id             text primary key references tenants(id),
  processor             text not null,
  customer_ref          text,
  card                  jsonb,
  subscription_status   text not null default 'none' check (subscription_status in ('none', 'active', 'past_due', 'canceled')),
  current_period_start  timestamptz,
  current_period_end    timestamptz,
  created_at            timestamptz not null,
  updated_at            timestamptz not null
);

-- Checkout sessions Portico opened (card setup and plan purchases); a webhook completes each once.
create table billing_sessions (
  id            text primary key,
  tenant_id     text not null references tenants(id),
  kind          text not null check (kind in ('setup', 'plan')),
  plan_id       text,
  ui_mode       text,
  status        text not null default 'open' check (status in ('open', 'complete')),
  created_at    timestamptz not null,
  completed_at  timestamptz
);
create index billing_sessions_tenant on billing_sessions (tenant_id, id);

create table billing_invoices (
  id            text primary key,
  tenant_id     text not null references tenants(id),
  plan_id       text not null,
  amount_cents  integer not null,
  currency      text not null,
  status        text not null check (status in ('paid', 'open')),
  period_start  timestamptz not null,
  period_end    timestamptz not null,
  created_at    timestamptz not null
);
create index billing_invoices_tenant on billing_invoices (tenant_id, id desc);

-- Metering counts a tenant's connections created in a month.
create index connections_tenant_created on connections (tenant_id, created_at);
