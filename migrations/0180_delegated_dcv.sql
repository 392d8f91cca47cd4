-- Pre-validation and delegated DCV (issue 50). A connection made with `validation = 'before_cutover'`
-- first asks for an ownership TXT and `_acme-challenge.<host> CNAME <dcv_label>.<DCV_ZONE>`; its
-- certificate is issued by DNS-01 through that delegation and put on every edge node before the
-- routing records (`held_records`, moved into `desired_records` then) are asked for.
-- `validation_stage`: awaiting_records, issuing, awaiting_routing, complete, failed (null on the usual path).
-- `validation_detail`: what the stage waits on, in words (a DCV zone server that does not answer).
-- A certificate remembers how it was validated (`challenge`), so renewals take the same path.
alter table connections add column validation text not null default 'http' check (validation in ('http', 'before_cutover'));
alter table connections add column validation_stage text check (validation_stage in ('awaiting_records', 'issuing', 'awaiting_routing', 'complete', 'failed'));
alter table connections add column validation_detail text;
alter table connections add column held_records jsonb;
alter table connections add column dcv_label text;
alter table certificates add column challenge text not null default 'http-01' check (challenge in ('http-01', 'dns-01'));
alter table certificates add column renewal_warning text;
create index connections_issuing on connections (id) where validation_stage = 'issuing' and disconnected_at is null;
-- The ACME account is registered once: its URL is kept beside its key, so a restarted or added
-- process orders under it without registering again (null until the first order; reset with the key).
alter table acme_account add column account_url text;
