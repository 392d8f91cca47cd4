// Queries of browsers' push subscriptions and the per-person test counter (the operations:
// src/ops/console/*-push-subscription.ts and push-test.ts).
import { newId } from '../ids.ts'
import type { Sql } from './sql.ts'

export interface PushSubscriptionRow {
  id: string
  endpoint: string
  p256dh: string
  auth: string
}

/** Registers a browser; registering the same endpoint again updates its keys (`inserted` false). */
export async function savePushSubscription(
  sql: Sql,
  input: { user_id: string; subscription: { endpoint: string; keys: { p256dh: string; auth: string } } },
  now: Date,
): Promise<{ id: string; user_id: string; endpoint: string; inserted: boolean }> {
  const [row] = await sql`
      insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at)
      values (${newId('psub')}, ${input.user_id}, ${input.subscription.endpoint}, ${input.subscription.keys.p256dh}, ${input.subscription.keys.auth}, ${now})
      on conflict (user_id, endpoint) do update set p256dh = excluded.p256dh, auth = excluded.auth
      returning id, user_id, endpoint, (xmax = 0) as inserted`
  return row as { id: string; user_id: string; endpoint: string; inserted: boolean }
}

export async function deletePushSubscription(sql: Sql, id: string): Promise<{ id: string; user_id: string } | undefined> {
  const [row] = await sql`delete from push_subscriptions where id = ${id} returning id, user_id`
  return row as { id: string; user_id: string } | undefined
}

export async function pushSubscriptionsOf(db: Sql, userId: string): Promise<PushSubscriptionRow[]> {
  return (await db`select id, endpoint, p256dh, auth from push_subscriptions where user_id = ${userId}`) as PushSubscriptionRow[]
}

export async function deletePushSubscriptions(db: Sql, gone: string[]): Promise<void> {
  await db`delete from push_subscriptions where id = any(${gone}::text[])`
}

/** Counts a test for the person unless `perMinute` were sent in the last minute (across processes). */
export async function takePushTest(db: Sql, userId: string, now: Date, perMinute: number): Promise<boolean> {
  const input = { user_id: userId }
  return db.begin(async (tx) => {
    // Serialise one person's tests so five concurrent calls cannot all pass the count.
    await tx`select pg_advisory_xact_lock(hashtext(${'push:' + input.user_id}))`
    const [{ n }] = await tx`select count(*)::int as n from push_tests where user_id = ${input.user_id} and sent_at > ${new Date(now.getTime() - 60_000)}`
    if (n >= perMinute) return false
    await tx`insert into push_tests (user_id, sent_at) values (${input.user_id}, ${now})`
    return true
  })
}
