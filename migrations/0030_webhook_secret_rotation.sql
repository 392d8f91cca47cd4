-- Rotating an endpoint's signing secret (POST /v1/webhooks/{id}:rotate-secret): the secret it replaced
-- keeps signing beside the new one until `previous_secret_until`, so a receiver can switch without
-- refusing deliveries in between (Standard Webhooks carries several signatures in one header).
alter table webhooks add column previous_secret_sealed text, add column previous_secret_until timestamptz;
