-- Fair webhook delivery (src/domain/webhook-delivery.ts). Each send is claimed before it goes out
-- (`sending_until`: a lease; the row comes due again when it lapses, so a send cut short by a crash is
-- repeated) and recorded as an attempt row at once ('in flight'), so every send is in the attempt log.
-- In-flight rows count against the endpoint's concurrency limit. An endpoint that keeps failing is
-- paused (`paused_until`, from its run of `failures`) for first attempts; retries keep their schedule.
alter table webhook_deliveries add column sending_until timestamptz;
create index webhook_deliveries_sending on webhook_deliveries (endpoint_id) where sending_until is not null;
alter table webhooks add column failures int not null default 0;
alter table webhooks add column paused_until timestamptz;
create index webhook_deliveries_endpoint_due on webhook_deliveries (endpoint_id, next_attempt_at);
