-- The person's intent bounds the agent (issue 32).

-- One refresh chain: the first refresh of a refresh token claims it here and its answer is kept
-- (sealed with SECRETS_KEY) for the reuse grace, so a repeat inside the grace gets the same successor
-- and parallel refreshes leave one live chain. Rows go once their grace has passed.
create table oauth_refresh_outcomes (
  token_hash   bytea primary key,
  grant_id     text,
  client_id    text,
  claimed_at   timestamptz not null,
  answered_at  timestamptz,
  status       integer,
  sealed       text,
  successor    text,
  jkt          text,
  expires_at   timestamptz not null
);
create index oauth_refresh_outcomes_grant on oauth_refresh_outcomes (grant_id);
create index oauth_refresh_outcomes_expires on oauth_refresh_outcomes (expires_at);
