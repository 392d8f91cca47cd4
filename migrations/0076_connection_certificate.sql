-- Whether a connection's HTTPS is served, on the connection itself (so every read of a connection,
-- and every stream of its changes, carries it): `certificate_status` mirrors its current certificate
-- (`pending`, `issued`, `failed`; null when none is tracked), kept in the same transaction as the
-- certificate's own status; `certificate_served_at` is when the edge accepted the certificate (null
-- until then, and again while an edge that lost it waits for the sweep to put it back).
alter table connections add column certificate_status text check (certificate_status in ('pending', 'issued', 'failed'));
alter table connections add column certificate_served_at timestamptz;
update connections c set certificate_status = k.status,
  certificate_served_at = case when k.status = 'issued' then k.updated_at end
from certificates k where k.connection_id = c.id and k.status <> 'removed';
