-- Cached counts of open connections and of certificates, per workspace, application and status, so
-- that GET /connections:count and the /metrics gauges cost the same for a workspace of a hundred
-- connections and one of a hundred thousand (bench/scale.ts: counting the largest workspace of a
-- million connections row by row took hundreds of milliseconds under load).
--
-- The table holds signed deltas: every statement that inserts, updates or deletes rows of the two
-- tables adds one row per (workspace, application, status) whose count it changed, from its
-- transition tables (one grouped insert per statement, whatever the number of rows; a statement that
-- changes no status adds nothing). Writers only ever insert, so concurrent sweeps never wait on a
-- shared counter row. A count is the sum of a workspace's rows; a job folds them together every minute
-- (src/jobs/status-counts.ts), so a workspace's rows stay few.
create table status_counts (
  kind            text not null check (kind in ('connection', 'certificate')),
  tenant_id       text not null,
  application_id  text not null,
  status          text not null,
  n               bigint not null
);
create index status_counts_tenant on status_counts (kind, tenant_id, application_id);

-- Connections count while open (not disconnected), by status.
create function status_counts_connections() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'connection', tenant_id, application_id, status, count(*) from new_rows where disconnected_at is null group by 2, 3, 4;
  elsif tg_op = 'UPDATE' then
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'connection', tenant_id, application_id, status, sum(d) from (
      select tenant_id, application_id, status, -1 as d from old_rows where disconnected_at is null
      union all
      select tenant_id, application_id, status, 1 from new_rows where disconnected_at is null
    ) x group by 2, 3, 4 having sum(d) <> 0;
  else
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'connection', tenant_id, application_id, status, -count(*) from old_rows where disconnected_at is null group by 2, 3, 4;
  end if;
  return null;
end $$;

-- Certificates count unless removed, by status.
create function status_counts_certificates() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'certificate', tenant_id, application_id, status, count(*) from new_rows where status <> 'removed' group by 2, 3, 4;
  elsif tg_op = 'UPDATE' then
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'certificate', tenant_id, application_id, status, sum(d) from (
      select tenant_id, application_id, status, -1 as d from old_rows where status <> 'removed'
      union all
      select tenant_id, application_id, status, 1 from new_rows where status <> 'removed'
    ) x group by 2, 3, 4 having sum(d) <> 0;
  else
    insert into status_counts (kind, tenant_id, application_id, status, n)
    select 'certificate', tenant_id, application_id, status, -count(*) from old_rows where status <> 'removed' group by 2, 3, 4;
  end if;
  return null;
end $$;

create function status_counts_truncated() returns trigger language plpgsql as $$
begin
  delete from status_counts where kind = tg_argv[0];
  return null;
end $$;

create trigger connections_count_insert after insert on connections referencing new table as new_rows
  for each statement execute function status_counts_connections();
create trigger connections_count_update after update on connections referencing old table as old_rows new table as new_rows
  for each statement execute function status_counts_connections();
create trigger connections_count_delete after delete on connections referencing old table as old_rows
  for each statement execute function status_counts_connections();
create trigger connections_count_truncate after truncate on connections
  for each statement execute function status_counts_truncated('connection');

create trigger certificates_count_insert after insert on certificates referencing new table as new_rows
  for each statement execute function status_counts_certificates();
create trigger certificates_count_update after update on certificates referencing old table as old_rows new table as new_rows
  for each statement execute function status_counts_certificates();
create trigger certificates_count_delete after delete on certificates referencing old table as old_rows
  for each statement execute function status_counts_certificates();
create trigger certificates_count_truncate after truncate on certificates
  for each statement execute function status_counts_truncated('certificate');

-- What is there already (the triggers above hold writers off until this commits).
insert into status_counts (kind, tenant_id, application_id, status, n)
select 'connection', tenant_id, application_id, status, count(*) from connections where disconnected_at is null group by 2, 3, 4;
insert into status_counts (kind, tenant_id, application_id, status, n)
select 'certificate', tenant_id, application_id, status, count(*) from certificates where status <> 'removed' group by 2, 3, 4;

-- Certificates close to expiry, for the /metrics gauge (an index range, not a scan of every certificate).
create index certificates_expiry on certificates (not_after) where status = 'issued';
