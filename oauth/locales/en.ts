// The consent page's English words: the source every other table (oauth/locales/<tag>.ts) follows.
// `{name}` placeholders are filled by oauth/strings.ts; scope descriptions are by scope id, in English
// the catalogue's own (src/domain/rbac.ts).
import { AGENT_SCOPES } from '../../src/domain/rbac.ts'
import { PERSON_CONFIRMS } from '../../src/domain/person-confirm.ts'

export const en = {
  pageTitle: 'Approve {client}?',
  titleAsk: '{client} wants access to your Portico workspace',
  titleSignedIn: 'Allow {client} to access {workspace}?',
  sentTo: 'After you answer you will be sent to',
  publishedBy: 'This client is published by {host} (its metadata document is served there).',
  verifiedDomain: "Verified: this client's domain belongs to {name}.",
  verifiedRedirects: 'Verified: every redirect of this client is a web address of {name}.',
  localWarning: 'This client only redirects to this computer (a loopback address). Any program on this machine could have registered it: approve only if you just started it yourself.',
  imitation: 'This client calls itself by the name of {brand}, but it does not redirect to {brand}. It cannot be approved.',
  workspace: 'Workspace: {workspace}, signed in as {email} ({role}).',
  roleCannot: '(your {role} role cannot grant this)',
  scopesLegend: 'It may, unless you uncheck it:',
  asksTo: 'It asks to',
  approve: 'Approve',
  deny: 'Deny',
  /** What the person confirms themselves: the same words as docs/agents.md (src/domain/person-confirm.ts). */
  personConfirms: PERSON_CONFIRMS,
  sent: 'If {email} belongs to a member of a Portico workspace, a sign-in link is on its way. It works once, for 15 minutes, and brings you back here to answer.',
  emailLabel: 'Sign in as yourself: your email address in the workspace',
  emailMe: 'Email me a sign-in link',
  goneTitle: 'Request not found',
  goneHeading: 'This request is unknown, expired or already answered',
  goneBody: 'Start again from your agent.',
  account: 'Account',
  yourAgents: 'Your agents',
  signOut: 'Sign out {email}',
  footer: 'Portico asks on behalf of your workspace. Approving lets the application act only within the scopes you leave checked; you can revoke it at any time on {agents}.',
  errTooLarge: 'The form is too large.',
  errApiKey: 'API keys are not accepted here: sign in as yourself with your email address.',
  errImitating: 'A client imitating {brand} cannot be approved.',
  errEmail: 'Enter your email address.',
  errTooMany: 'Too many sign-in links were asked for. Wait a few minutes, then try again.',
  errChoose: 'Choose approve or deny.',
  errSignIn: 'Sign in first: your sign-in ended or was never made.',
  errOutOfDate: 'This form is out of date: answer again.',
  errNoScope: 'The request asks for no scope Portico knows.',
  errLeaveOne: 'Leave at least one scope checked, or deny.',
  errRole: 'The {role} role cannot grant: {scopes}.',
  /** What each agent scope allows, by scope id: the catalogue's own words in English. */
  scopes: Object.fromEntries(AGENT_SCOPES.map((s) => [s.id, s.description])) as Record<string, string>,
}

export type ConsentStrings = typeof en
