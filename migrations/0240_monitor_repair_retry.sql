-- A monitor repair the DNS host refused for now (a 5xx or a rate limit with Retry-After, issue 46) is
-- tried again when the host said, not at the domain's next hourly slot: the sweep takes the domains
-- whose retry_at has come, beside those whose slot came round. Null: no retry is waiting.
alter table monitor_state add column retry_at timestamptz;
create index monitor_state_retry on monitor_state (retry_at) where retry_at is not null;
