// Queries of the ACME client (src/adapters/acme.ts): its account key, sealed, and the HTTP-01 answers
// the edge serves while the CA checks them. They live in real time (the CA's), not Portico's injected
// clock, so these statements read the database's own time, as they always have.
import type { Sql } from './sql.ts'

/** The account key for `directory`, sealed; null when there is none for it. */
export async function sealedAccountKey(db: Sql, directory: string): Promise<string | null> {
  const [row] = await db`select key_sealed from acme_account where id = 'default' and directory = ${directory}`
  return row ? (row.key_sealed as string) : null
}

/** Keeps an account key for `directory`, unless one is kept already (two processes at once: the first wins). */
export async function keepAccountKey(db: Sql, directory: string, sealed: string): Promise<void> {
  await db`
      insert into acme_account (id, directory, key_sealed, created_at) values ('default', ${directory}, ${sealed}, now())
      on conflict (id) do update set directory = excluded.directory, key_sealed = excluded.key_sealed, account_url = null
      where acme_account.directory <> excluded.directory`
}

/** The account's URL at `directory` once registered; null before. */
export async function accountUrlOf(db: Sql, directory: string): Promise<string | null> {
  const [row] = await db`select account_url from acme_account where id = 'default' and directory = ${directory}`
  return (row?.account_url as string | null) ?? null
}

/** Keeps the account's URL after its registration, in place of `replacing` (the first to write it keeps it). */
export async function keepAccountUrl(db: Sql, directory: string, url: string, replacing: string | null = null): Promise<void> {
  await db`update acme_account set account_url = ${url} where id = 'default' and directory = ${directory} and account_url is not distinct from ${replacing}`
}

export async function putChallenge(db: Sql, token: string, keyAuthorization: string, expires: Date): Promise<void> {
  await db`
          insert into acme_challenges (token, key_auth, expires_at) values (${token}, ${keyAuthorization}, ${expires})
          on conflict (token) do update set key_auth = excluded.key_auth, expires_at = excluded.expires_at`
}

export async function removeChallenge(db: Sql, token: string): Promise<void> {
  await db`delete from acme_challenges where token = ${token}`
}

/** The HTTP-01 answer for `token`, while it is live. */
export async function challengeAnswer(db: Sql, token: string): Promise<string | null> {
  const [row] = await db`select key_auth from acme_challenges where token = ${token} and expires_at > now()`
  return row ? (row.key_auth as string) : null
}
