-- Webhook delivery writes that stay on their page (HOT): a delivery's lease and its attempt row's
-- answer change no indexed column, so neither writes an index entry when the page has room.
-- - A lease no longer moves `next_attempt_at`: a leased delivery keeps its due time and is skipped
--   while `sending_until` is ahead (src/db/webhook-delivery.ts), and the partial index on
--   `sending_until` goes (its predicate made every lease a new index entry; each worker counts its
--   own sends per endpoint in memory instead).
-- - Half of each page is left free: a claim leases rows fanned out together, all on the same few
--   pages, and their new versions must fit beside the old ones until those are pruned; an attempt
--   row written `in flight` gets its answer the same way. Before: a delivery cost PostgreSQL about 13
--   index entries (lease 5, attempt insert 4, answer 4); after: 4 (the attempt insert). The cost:
--   the attempt log's new pages hold half as many rows (more disk for the log, less write work).
-- A lease taken before this migration (due time moved to its end) keeps working: it comes due when
-- it lapses. New pages only; existing ones follow as rows move.
drop index webhook_deliveries_sending;
alter table webhook_deliveries set (fillfactor = 50);
alter table webhook_attempts set (fillfactor = 50);
