import { Type } from '@sinclair/typebox'
import { type RailConnection, writeThroughRail } from '../../domain/apply.ts'
import type { ReplacedSet } from '../../domain/record-plan.ts'
import { fingerprintOf, requirePersonConfirmation, spendConfirmation } from '../../domain/person-confirm.ts'
import { ApiError, invalid } from '../../errors.ts'
import { accountCredential, accountUsed, railConnectionFor } from '../../domain/grants.ts'
import type { AccountRow } from '../../db/provider-accounts.ts'
import { accountOut, assertUsable, checkApiUrl, createAccount, type Credential, getAccount, openProvider, providerFailure } from '../../domain/provider-accounts.ts'
import { isTestDomain, TEST_PROVIDER } from '../../domain/test-mode.ts'
import { connectionOut } from '../../domain/connections.ts'
import { type Ctx, defineOp } from '../registry.ts'
import { END_USER } from '../authority.ts'
import { Id, IdParam, Input } from '../schemas.ts'
import { ApiUrl, refusedInUse, Secret } from '../provider-accounts/shared.ts'
import { ApplyResult } from './shared.ts'

const TAG = 'Domains and connections'

/**
 * An agent's write that would replace the customer's own records (an apex address, MX, NS, a TXT in
 * use) waits for its person's yes, whatever the agent's scopes: the question names every set replaced,
 * and the yes holds for exactly those (src/domain/person-confirm.ts). Writes that only add go ahead.
 */
function agentReplacementGuard(ctx: Ctx, c: RailConnection) {
  return async (replaced: ReplacedSet[]) => {
    const p = ctx.principal
    if (p.kind !== 'AGENT' || replaced.length === 0) return
    const agent = { tenantId: p.tenantId, clientId: p.clientId, subject: p.subject }
    const now = ctx.clock.now()
    const yes = await requirePersonConfirmation({ db: ctx.db, config: ctx.config, now }, agent, {
      connectionId: c.id,
      action: 'apply',
      domain: c.domain,
      summary: { replaced },
      fingerprint: fingerprintOf({ apply: c.id, replaced }),
    })
    if (!(await ctx.tx((tx) => spendConfirmation(tx, yes, now)))) throw new ApiError('confirmation_required', 'This confirmation was already used; ask your person again')
  }
}

export const applyOp = defineOp({
  id: 'connections.apply',
  method: 'POST',
  path: '/connections/{id}/apply',
  summary: 'Apply the records with a DNS-provider API credential',
  description:
    'Writes the desired records into the provider zone: existing CAA and TXT values are kept, SPF (`SPFM`) is merged into the existing ' +
    'SPF value, and every record set replaced is recorded (`prior`, `prior_source: provider`) so disconnect can restore it. Give either ' +
    '`credential` (used once and not kept unless `save` is true, which saves it as a continuous provider account and makes the ' +
    'connection managed) or `provider_account_id`. PowerDNS also needs `api_url`. Re-sending the same records answers 200 with ' +
    '`changed: false` and writes nothing. Applying again over a value set at the provider since Portico wrote (a name repointed by hand) ' +
    'writes the records again, names that value in `replaced`, and records it as the set\'s prior: disconnect restores the customer\'s latest, ' +
    'not what stood before connecting (the same for `:reapply` and the monitor\'s repair). A refused credential is 422 `ProviderAuthenticationError`; a zone the credential does not ' +
    'reach is 422 `dns_write_failed` with `details.reason: zone_not_reached` (also recorded as the connection\'s diagnosis). ' +
    'Several zones of the domain\'s name in the credential\'s reach (another account, a stale, staging or pending copy) are told apart by the ' +
    'delegation: the copy on the delegated name servers is written; when none or several are, 422 `dns_write_failed` with `details.reason` ' +
    '`zone_not_delegated` or `zone_ambiguous` and `details.zone_ids`, before anything is written (diagnosis `zone_not_reached`). ' +
    'A delegated agent token whose write would replace records already in the zone (values the write takes away) gets 400 ' +
    '`confirmation_required` with `details.confirm_url` and writes nothing until its person confirms exactly those records there.',
  tag: TAG,
  auth: ['WIDGET', 'KEY', 'AGENT'],
  widget: END_USER,
  scope: 'domains:write',
  permission: 'connections:write',
  params: IdParam,
  body: Input({
    credential: Type.Optional(Secret),
    api_url: Type.Optional(ApiUrl),
    provider_account_id: Type.Optional(Id('pac', 'A saved provider account to apply with')),
    save: Type.Optional(Type.Boolean({ description: 'Save `credential` as a continuous provider account (the connection becomes managed)' })),
    label: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: ApplyResult,
  errors: ['invalid_request', 'unauthorized', 'forbidden', 'not_found', 'conflict', 'confirmation_required', 'ProviderAuthenticationError', 'dns_write_failed', 'account_expired', 'rate_limited', 'service_unavailable'],
  kind: 'write',
  zone: 'replaces',
  idempotent: true,
  transactions: 'steps',
  agent: {
    description: 'Writes a connection\'s records at its DNS provider with a provider account a person saved (see provider_accounts_list), keeping the zone\'s other records and remembering what it replaced so a disconnect can restore it. When the write would replace records already in the zone (an address at the domain itself, MX, NS, a TXT in use), your person confirms first: through elicitation where your client supports it, otherwise the call answers confirmation_required with details.confirm_url for them to open, and the same call then goes through. Returns the connection (now propagating) and whether anything changed; applying the same records again changes nothing.',
    toolset: 'connect',
    inputs: ['id', 'provider_account_id'],
    require: ['provider_account_id'],
    output: ['connection', 'changed', 'zone'],
  },
  async handler(ctx, input) {
    const p = ctx.principal
    const c = await railConnectionFor(ctx.db, ctx.principal, input.id)
    if (!!input.credential === !!input.provider_account_id) {
      throw invalid('Give either credential or provider_account_id', [{ in: 'body', field: 'credential', message: 'exactly one of credential and provider_account_id' }])
    }
    const now = ctx.clock.now()
    let account: AccountRow | null = null
    let cred: Credential
    if (input.provider_account_id) {
      account = await getAccount(ctx.db, p.tenantId, input.provider_account_id)
      assertUsable(account, now)
      if (c.provider_id && account.provider !== c.provider_id) {
        throw invalid(`This account is for ${account.provider}; ${c.domain} is hosted at ${c.provider_id}`, [{ in: 'body', field: 'provider_account_id', message: 'another provider' }])
      }
      cred = (await accountCredential({ ...ctx, dns: ctx.services.dns }, account, 'use'))!
    } else {
      // A test domain's credential goes to the test provider, whatever it is (src/domain/test-mode.ts).
      const test = isTestDomain(c.domain)
      if (!c.provider_id && !test) throw new ApiError('invalid_request', `The DNS provider of ${c.domain} is not known; use the manual rail`, { reason: 'unknown_provider' })
      const apiUrl = input.api_url && !test ? checkApiUrl(ctx.config, input.api_url) : null
      cred = { provider: test ? TEST_PROVIDER : c.provider_id!, secret: input.credential!, apiUrl }
    }
    if (input.save && !account) {
      // Check the key before saving it: a refused key is never stored.
      await openProvider({ config: ctx.config, dns: ctx.services.dns }, cred).then((pr) => pr.listZones()).catch((err) => { throw providerFailure(err, cred.provider, c.domain) })
      account = await ctx.tx((tx) => createAccount(tx, ctx.config, now, p.tenantId, {
        provider: cred.provider,
        secret: cred.secret,
        apiUrl: cred.apiUrl ?? null,
        label: input.label ?? null,
        access: 'continuous',
        createdBy: p.kind === 'KEY' ? p.keyId : null,
      }))
    }
    const managed = account !== null && account.access === 'continuous'
    const beforeWrite = p.kind === 'AGENT' ? agentReplacementGuard(ctx, c) : undefined
    const w = await writeThroughRail({ ...ctx, dns: ctx.services.dns }, c, cred, { accountId: managed ? account!.id : null, managed, rail: 'api', announce: true, beforeWrite }).catch((err) => refusedInUse(ctx, account, err))
    if (account) await accountUsed(ctx, account)
    ctx.afterCommit(() => ctx.services.jobs?.verifySoon())
    ctx.audit.details = { changed: w.changed, provider: cred.provider, managed, account_id: account?.id ?? null }
    return {
      connection: connectionOut(w.row),
      changed: w.changed,
      zone: w.zone.name,
      updated_objects: w.updated,
      replaced: w.replaced,
      account: account ? await accountOut(ctx.db, ctx.principal, await getAccount(ctx.db, p.tenantId, account.id)) : null,
    }
  },
})
