-- One grant per person and client (issue 42). A step-up used to add a second live grant beside the
-- first, and revoking the newer one left the older one's tokens working. From now on an approval
-- widens the person's live grant for that client, and revoking it ends every token the client holds
-- from that person. Duplicates left by the old behaviour are folded here: the newest live grant of a
-- person and client stays (with the scopes of all of them), the older ones end as `replaced` and the
-- authorization server's artefacts of them (refresh tokens, codes, its Grant) go, as revoking does.
with ranked as (
  select id, tenant_id, client_id, account_id,
         row_number() over (partition by tenant_id, client_id, account_id order by created_at desc, id desc) as n
  from agent_grants where revoked_at is null
),
widened as (
  update agent_grants g set scopes = (
    select array_agg(distinct s order by s) from agent_grants o, unnest(o.scopes) s
    where o.tenant_id = g.tenant_id and o.client_id = g.client_id and o.account_id = g.account_id and o.revoked_at is null)
  from ranked r where g.id = r.id and r.n = 1
    and exists (select 1 from ranked d where d.tenant_id = r.tenant_id and d.client_id = r.client_id and d.account_id = r.account_id and d.n > 1)
  returning g.id
),
ended as (
  update agent_grants g set revoked_at = now(), revoked_reason = 'replaced'
  from ranked r where g.id = r.id and r.n > 1
  returning g.id
)
delete from oauth_store where grant_id in (select id from ended) or (model = 'Grant' and id in (select id from ended));

create unique index agent_grants_one_live on agent_grants (tenant_id, client_id, account_id) where revoked_at is null;
