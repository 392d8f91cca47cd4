// Provider accounts (the API contract, section 2, "Provider account"): saved DNS-provider credentials, their
// CRUD, and connecting domains with one. The credential rules live in src/domain/provider-accounts.ts;
// what a refused credential does is decided in src/domain/grants.ts. Provider calls happen outside any
// transaction (`transaction: false`): a slow provider never holds a database connection.
// Here: what the area's operations share; each operation is a file of its own beside this one.
import { Type } from '@sinclair/typebox'
import { named } from '../../domain/named.ts'
import type { AccountRow } from '../../db/provider-accounts.ts'
import { onRefusal } from '../../domain/grants.ts'
import { Nullable, Out, outside, Timestamp } from '../schemas.ts'
import type { Ctx } from '../registry.ts'

export const ACCOUNTS = 'Provider accounts'

export const Secret = Type.String({ minLength: 1, maxLength: 8192, description: "The DNS-provider API credential as the provider issues it (a token, a key pair, a Google service-account key file of about 2.3 KB, an Azure service principal JSON); write-only, never returned or logged" })

export const ApiUrl = Type.String({ minLength: 1, maxLength: 500, description: 'PowerDNS only: the API URL, `https://dns.example.com/api/v1/servers/localhost`' })

export const AccountSchema = named('ProviderAccount', Out({
  id: Type.String(),
  kind: Type.String({ description: '`api_key`, or `oauth` for a provider OAuth grant' }),
  provider: Type.String(),
  provider_name: Type.String(),
  label: Nullable(Type.String(outside('workspace'))),
  access: Type.String(),
  scope: Type.String(),
  domains: Type.Array(Type.String()),
  credential_held: Type.Boolean(),
  status: Type.String({ description: '`active`, or `needs_reconnect` when the provider refused the credential itself' }),
  last_error: Nullable(Type.String({ description: 'What the provider said when it last refused', ...outside('provider') })),
  created_by: Nullable(Type.String()),
  last_used_at: Nullable(Timestamp()),
  expires_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  connections: Type.Array(Out({ id: Type.String(), application_id: Type.String(), domain: Type.String(), status: Type.String() })),
  uses: Type.Array(Type.String()),
  can_manage: Type.Boolean(),
}))

/** A refusal of a saved account's credential flags the account (src/domain/grants.ts, site `use`) and is answered. */
export async function refusedInUse(ctx: Ctx, a: AccountRow | null, err: unknown): Promise<never> {
  if (a) await onRefusal(ctx, err, 'use', { provider: a.provider, account: a })
  throw err
}
