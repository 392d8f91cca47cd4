// English, the source every other locale translates. One locale is one file in this folder (its tag,
// `<tag>.ts`): the widget's words (`widget`), the share page's (`share`) and the consent page's
// (`consent`); `npm run generate` lists the folder into tags.ts (the locales the widget speaks) and
// index.ts (every table), and from those come the share page's and the consent page's languages, the
// playground's picker and the counts in the documents.
// The widget's English table is the only one in the bundle; the others are served as JSON beside it
// and fetched when shown, and the share page's and the consent page's words never reach it.
// `{name}` placeholders are filled when said; an object is a plural message, its forms chosen by
// Intl.PluralRules (`one`, `other`, and `zero`, `two`, `few`, `many` where a language has them), by
// `{count}`; a sentence about part of a whole ("2 of 5 records found") agrees with the whole, so `count`
// is the total there and the part is another placeholder.
// Words are never compared: the widget's logic works on codes, and only screens turn them into text.
export const widget = {
  title: 'Connect your domain',
  titleApp: 'Connect your domain to {app}',
  close: 'Close',
  back: 'Back',
  continue: 'Continue',
  retry: 'Try again',
  loading: 'Loading…',
  poweredBy: 'Powered by Portico',
  someApp: 'the site that sent you here',

  domainLabel: 'Your domain',
  domainHint: 'For example shop.example.com',
  domainInvalid: 'Enter a domain name such as example.com.',
  subdomainRequired: 'Enter a subdomain, for example www.{domain}.',
  subdomainRefused: 'Enter the domain itself, without a subdomain.',
  notRegistered: '{domain} does not exist yet. Check the spelling, or register the domain first, then try again.',
  notDelegated: '{domain} has no DNS servers yet. Finish setting it up where you bought it, then try again.',
  apexNotSupported: '{app} cannot connect {domain} itself. Enter a subdomain instead, for example www.{domain}.',
  platformSubdomain: '{domain} belongs to a hosting platform and cannot be connected. Enter a domain you own.',
  analysing: 'Checking {domain}…',

  existingTitle: 'Records already in place',
  existingIntro: 'These records on {domain} stand in the way. Remove or replace them at your DNS provider:',
  whatToDo: 'What to do',
  actionRemove: 'Remove',
  actionReplace: 'Replace',
  actionAdd: 'Add',
  caaForbids: 'The CAA records of {host} do not allow our certificate authority to issue a certificate, so HTTPS cannot be set up. Add this CAA record beside the ones there:',
  caaForbidsAll: 'The CAA records of {host} allow no certificate authority at all, so HTTPS cannot be set up. Remove them at your DNS provider:',
  acmeDelegated: 'An _acme-challenge record on {host} hands certificate checks to another service. HTTPS still works here; remove it if you no longer use that service:',

  providerTitle: 'Where is your DNS managed?',
  providerLabel: 'DNS provider',
  providerOther: 'Another provider',

  detected: 'Your DNS is managed at {provider}',
  setupTitle: 'Connect with {provider}',
  setupTitleUnknown: 'Connect in one click',
  setupWhat: 'A {provider} window opens. Sign in there and approve adding the records below; nothing else in your DNS changes.',
  setupWhatUnknown: 'Your DNS provider offers one-click setup. A window opens: sign in there and approve adding the records below; nothing else in your DNS changes.',
  setupGo: 'Continue at {provider}',
  setupGoUnknown: 'Continue at your DNS provider',
  manualInstead: 'Set up manually instead',

  loginTitle: 'Your {provider} API credential',
  loginIntro: 'Create a token at {provider} ({kind}) with these permissions, then paste it below. It is used to add the records.',
  loginCreate: 'Create it at {provider}',
  loginLabel: 'API credential',
  loginGo: 'Apply the records',

  manualTitle: 'Add these DNS records',
  manualIntro: 'Add the records below at your DNS provider for {domain}.',
  stepProve: 'Step 1 of 2: these records prove you own {domain} and let its HTTPS certificate be issued now. Your site keeps running where it is.',
  stepRoute: 'Step 2 of 2: the HTTPS certificate for {domain} is ready. Now point it here: visitors get HTTPS from the first request.',
  stepsGeneric: 'Sign in to your DNS provider|Open the DNS settings of {domain}|Add each record below exactly as shown|Save, then choose "I have added them"',
  stepsProvider: 'Sign in to {provider}|Open the DNS settings of {domain}|Add each record below exactly as shown|Save, then choose "I have added them"',
  type: 'Type',
  host: 'Host',
  value: 'Value',
  ttl: 'TTL',
  ttlAuto: 'Auto',
  priority: 'Priority',
  status: 'Status',
  statusFound: 'Found',
  statusWaiting: 'Not yet',
  statusConflict: 'Conflicting',
  copy: 'Copy',
  copied: 'Copied',
  copyWhat: 'the {field} of the {type} record',
  added: 'I have added them',
  docs: 'Read the setup guide',
  dashboard: 'Open your DNS settings',
  share: 'Send these steps to someone else',
  shareBy: '{app} asks you to add these DNS records for {domain}.',

  reasonDns: 'We could not look up the DNS of {domain} just now, so it cannot be set up automatically. You can add the records yourself.',
  reasonOneClick: '{provider} did not accept the one-click setup. You can add the records yourself instead.',
  reasonKey: '{provider} refused this key. Check that it has these permissions: {scopes}. Then paste it again, or set up manually instead.',
  reasonUnreachable: 'We could not reach {provider} just now. You can add the records yourself, or go back and try again later.',
  reasonPopup: 'Your browser blocked the {provider} window. Allow pop-ups and try again, or add the records yourself.',
  reasonConflict: 'Some records already on {domain} are in the way. Remove them first:',
  reasonFailed: 'The last check did not find the records: {reason}. Check them against the list below, then choose "I have added them".',
  reasonGeneric: 'The automatic setup did not finish. You can add the records yourself.',
  checkFailed: 'We could not check just now. We keep trying by ourselves.',

  progressTitle: 'Checking your records',
  progressIntro: 'DNS changes can take a few minutes to appear. This page updates by itself.',
  waitingFor: { one: 'Still waiting for {count} record', other: 'Still waiting for {count} records' },
  checkNow: 'Check now',
  backToSteps: 'Back to the steps',
  checkedAgo: 'Last checked {ago}',
  notChecked: 'Not checked yet',
  found: { one: '{found} of {count} record found', other: '{found} of {count} records found' },
  unreachable: 'We cannot reach the connection service just now, so what you see here may be out of date. We keep trying by ourselves.',
  reachable: 'Connected again. This page is up to date.',
  sessionEnded: 'This page can no longer follow the connection: its session has ended. Nothing is lost, the records are still checked. To see where it stands, open the setup again from {app}.',

  almostTitle: 'Almost there',
  almostIntro: 'We keep checking {domain} and finish the connection as soon as the records appear. You can close this window.',

  sharedTitle: 'Link ready to share',
  sharedIntro: 'Whoever manages the DNS of {domain} can follow this link until {date}.',
  linkLabel: 'Share link',

  successTitle: 'Your domain is connected and secure',
  successIntro: '{domain} now points at {app} and is served over HTTPS.',
  successIntroPlain: '{domain} is connected and served over HTTPS.',
  connectedTitle: 'Your domain is connected',
  connectedIntro: '{domain} now points at {app}.',
  connectedIntroPlain: '{domain} is connected.',
  securingIntro: 'Securing {domain}: its HTTPS certificate is being issued. This usually takes under a minute.',
  secureFailedTitle: 'Connected, but not secure yet',
  httpsBlockedTitle: 'Connected, but HTTPS is blocked',
  httpsBlockedIntro: 'No HTTPS certificate can be issued for {domain} until this is fixed at your DNS provider. Once it is, we finish by ourselves.',
  secureFailedIntro: 'No HTTPS certificate could be issued for {domain}: {reason}',
  secureFailedNext: 'Fix what is listed below at your DNS provider. We try again by ourselves.',
  secureFailedNextPlain: 'We try again by ourselves; nothing else is needed from you for now.',

  errorTitle: 'We could not continue',
  errorSession: 'This setup session has expired. Go back to {app} and open it again.',
  errorLinkGone: 'This link no longer works: it has expired, or the setup was removed. Ask whoever sent it to you for a new link.',
  errorForbidden: 'This setup was started for a different domain. Go back to {app} and start again for {domain}.',
  errorNetwork: 'We could not reach the connection service. Check your internet connection, then try again.',
  errorMisconfigured: 'This website\'s setup of the connection service is not right, so we cannot go on. Your internet connection is fine: the website\'s owner needs to fix the setup.',
  errorRateLimited: 'Too many attempts in a short time. Wait a minute, then try again.',
  errorUnavailable: 'The connection service is busy just now. Try again in a moment.',
  errorGeneric: 'Something did not work on our side. Try again; if it keeps happening, contact {app}.',

  returnDone: 'Done. You can close this window and go back to where you started.',

  buyTitle: 'Buy a domain',
  buyEmail: 'Your email',
  buyGo: 'Continue to payment',
}

export type Key = keyof typeof widget
/** A plural message: its forms by Intl.PluralRules category; `other` is always there. */
export type Plural = { other: string } & Partial<Record<'zero' | 'one' | 'two' | 'few' | 'many', string>>
export type Messages = { [K in Key]: (typeof widget)[K] extends string ? string : Plural }

// The share page's English words (src/share/page.ts): the source every locale's `share` follows; the
// bundle never carries them (nothing it imports uses them, and the bundler leaves them out).
export const share = {
  languageName: 'English',
  title: 'DNS records for {domain}',
  heading: 'Add DNS records for {domain}',
  asked: '{app} asked for these records.',
  until: 'This link works until {date}.',
  stepsHeading: 'How to add them',
  stepSignIn: 'Sign in to {provider}.',
  stepSignInUnknown: 'Sign in where the DNS of {apex} is managed.',
  stepOpen: 'Open the DNS settings of {apex}.',
  stepAdd: 'Add each record below exactly as shown.',
  stepSave: 'Save, then choose “I have added them” on this page.',
  openProvider: 'Open {provider}',
  recordsHeading: 'Records to add',
  stageProve: 'Step 1 of 2: these records prove you own {domain} and let its HTTPS certificate be issued now. Your site keeps running where it is.',
  stageRoute: 'Step 2 of 2: once the HTTPS certificate for {domain} is ready, point it here: visitors get HTTPS from the first request.',
  type: 'Type',
  host: 'Host',
  value: 'Value',
  priority: 'Priority',
  ttl: 'TTL',
  apexHost: '@ (the domain {apex} itself)',
  found: 'Found',
  missing: 'Not found yet',
  copy: 'Copy',
  copied: 'Copied',
  copyLabel: 'Copy the value of the {type} record {host}',
  copyHostLabel: 'Copy the host of the {type} record {host}',
  copyPriorityLabel: 'Copy the priority of the {type} record {host}',
  added: 'I have added them',
  checking: 'Checking…',
  statusPending: 'Waiting for the records to be added.',
  statusPropagating: 'Records found so far: {found} of {total}. We keep checking.',
  statusFailed: 'The last check did not find the records. Check them against the list below, then choose “I have added them”.',
  statusUnreachable: 'We could not check just now. We will try again shortly.',
  doneHeading: 'Done',
  statusLive: '{domain} now points at {target}.',
  doneHint: 'Nothing else to do. You can close this page.',
  close: 'Close this page',
  closedHint: 'You can now close this tab.',
  lastChecked: 'Last checked {time}.',
  notFoundTitle: 'This link does not work',
  notFoundBody: 'It has expired, was withdrawn, or was never valid. Ask whoever sent it to you for a new link.',
  poweredBy: 'Powered by Portico',
  otherLanguages: 'Other languages',
}

export type ShareStrings = typeof share
export type ShareKey = keyof ShareStrings

// The consent page's English words (oauth/pages.ts, oauth/strings.ts): the source every locale's `consent`
// follows. Two entries are not here: in English, what the person confirms and what each agent scope
// allows are the catalogue's own words (src/domain/person-confirm.ts, src/domain/rbac.ts), which
// oauth/strings.ts adds, since browser code here imports nothing outside src/widget/. The bundle never
// carries these words (nothing it imports uses them).
export const consent = {
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
}

/** A locale's consent-page words: English's keys, what the person confirms and what each agent scope allows, by scope id. */
export type ConsentStrings = typeof consent & { personConfirms: string; scopes: Record<string, string> }
