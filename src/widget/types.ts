// Types shared by the widget SDK's modules: the `open()` configuration (the API contract, section 6), the
// 15 widget statuses (section 3) and the error codes `onError` receives. Browser-only code.

/** The 15 widget statuses, exactly as the contract names them. */
export const STEPS = [
  'INITIAL',
  'ENTER_DOMAIN',
  'DOMAIN_ANALYSIS',
  'DOMAIN_SETUP',
  'IN_PROGRESS',
  'EXISTING_RECORDS',
  'LOGIN',
  'LOGIN_2FA',
  'MANUAL_CONFIGURATION',
  'PROVIDER_MANUAL_SELECTION',
  'EXIT_WITH_ERROR',
  'DKIM_SETUP',
  'FINISHED_SUCCESSFULLY',
  'FINISHED_SUCCESSFULLY_MANUAL',
  'FINISHED_SUCCESSFULLY_LINK_SHARED',
] as const
export type Step = (typeof STEPS)[number]

/** onError codes (an open set in the contract). */
export type ErrorCode =
  | 'SessionError'
  | 'AccessDeniedError'
  | 'PopupBlockedError'
  | 'DomainConnectError'
  | 'ProviderError'
  | 'TimeoutError'
  | 'RateLimitError'
  | 'NetworkError'
  /** `apiBase` is not Portico's API (it must be the API's base, ending in `/v1`): the integrator's setup, not the end user's network. */
  | 'ConfigurationError'
  | 'GenericError'

export interface WidgetErrorInfo {
  code: ErrorCode
  message: string
  details?: unknown
}

/** What a step event carries after an error screen: the API's own envelope. */
export interface StepError {
  code: string
  title: string
  details: unknown
}

export interface DnsRecordIn {
  type: string
  host: string
  value: string
  ttl?: number
  priority?: number
}

export type FallbackReason = 'no_end_user_rail' | 'conflicts_exceed_tolerance' | 'provider_unsupported' | 'unknown_provider'

export interface WhiteLabel {
  colors?: Record<string, string>
  font?: string
  borderRadius?: string | number
  logo?: string
  /** Hides the integrator's logo only. */
  hideLogo?: boolean
  /** Hides the "Secured by Portico" line. */
  hideFooter?: boolean
  /** Hides the × (the share page, which has nothing to close back to). */
  hideClose?: boolean
  hideConfetti?: boolean
  /** Design tokens, emitted as CSS custom properties `--je-<token>`. */
  tokens?: Record<string, string | number>
  screens?: { disable?: Step[] }
  /** Dismissal is asked of the host (`request-close`), which then calls `close()`. */
  delegateClose?: boolean
  embedded?: boolean
}

export interface SuccessResult {
  jobId: string
  domain: string
  setupType: string
}

/**
 * The `close` event: the contract's `lastStatus`/`error`, plus what integrators need to act on it:
 * `success` as it stands when the widget closes (the connection is live), the connection once one
 * exists, the rail once the person committed to one.
 */
export interface CloseDetail {
  lastStatus: Step
  error?: StepError
  domain: string | null
  success: boolean
  setupType: 'manual' | 'automatic' | null
  provider: string | null
  connectionId: string | null
  rail: Rail | null
}

export type Rail = 'manual' | 'oauth' | 'domainConnect' | 'apiKey'

export interface StepDetail {
  step: Step
  error?: StepError
}

export interface FallbackDetail {
  reason: FallbackReason
  provider?: string
  screen: Step
  message?: string
}

export interface SharedDetail {
  url: string
  expiresAt: string
  domain: string
  connectionId: string
}

/** Every window event the widget dispatches (`Portico:<name>`) and its detail. */
export interface HostEvents {
  step: StepDetail
  success: SuccessResult
  close: CloseDetail
  fallback: FallbackDetail
  'request-close': { lastStatus: Step }
  'doc-click': { url: string; step: Step }
  shared: SharedDetail
}

/**
 * Where the widget gets a widget token when the one it holds is about to expire (a minute ahead, by the
 * token's `exp`) or was refused (401): typically a call to the integrator's own server, which mints one
 * with `POST /v1/tokens` for the same application and domain. It may answer a token or a promise of one;
 * throwing, rejecting or answering nothing ends the session (the widget says so and `onError` receives a
 * `SessionError`). Called at most once at a time.
 */
export type GetToken = () => string | Promise<string>

export interface OpenConfig {
  applicationId: string
  /** A widget token (`POST /v1/tokens`). May be left out when `getToken` is given: `getToken` is then asked for one at the widget's first API call, not when the widget opens. */
  token?: string
  /** Fresh widget tokens for a session that outlives one (see `GetToken`). */
  getToken?: GetToken
  /**
   * The nonce of the host page's `style-src`, for browsers without constructable stylesheets (before
   * Safari 16.4, Firefox 101, Chrome 73); others need no `style-src` for the widget at all.
   */
  nonce?: string
  domain?: string
  prefilledDomain?: string | string[]
  dnsRecords?: DnsRecordIn[] | Record<string, DnsRecordIn[]>
  /** `before_cutover`: prove ownership and have HTTPS ready before the domain is pointed here (docs/validation.md). */
  validation?: 'before_cutover'
  applicationName?: string
  applicationUrl?: string
  locale?: string
  whiteLabel?: WhiteLabel
  forceManualSetup?: boolean
  supportForSubdomains?: boolean
  defaultSubdomain?: string
  hostRequired?: boolean
  manualSetupDocumentation?: string
  enableDkim?: boolean
  userId?: string
  container?: string
  apiBase?: string
  widgetBase?: string
  onStepChange?: (step: StepDetail) => void
  onSuccess?: (result: SuccessResult) => void
  onClose?: (detail: CloseDetail) => void
  onError?: (err: WidgetErrorInfo) => void
}

/** What `open`, `purchaseDomain` and `loadSharedFlow` answer. */
export interface WidgetHandle {
  close(): void
}

/** `window.Portico`: the seven methods of the API contract, section 6. */
export interface PorticoApi {
  open(config: OpenConfig): WidgetHandle
  purchaseDomain(config: OpenConfig): WidgetHandle
  /**
   * The shared manual setup behind a share link: its `url` (`https://…/share/{token}`, whose origin is
   * Portico's) or its `token` (Portico then is `apiBase`, else `widgetBase` or the script's origin, as
   * for `open`); no credential is needed.
   */
  loadSharedFlow(link: string, config?: Partial<OpenConfig>): WidgetHandle
  checkDomain(domain: string, options: { token?: string; getToken?: GetToken; apiBase?: string }): Promise<Record<string, unknown>>
  checkRecords(domain: string, options: { token?: string; getToken?: GetToken; dnsRecords: DnsRecordIn[]; apiBase?: string }): Promise<{ inSync: boolean; records: unknown[] }>
  /** Prepares the widget (its stylesheet) ahead of `open()`. */
  load(): Promise<void>
  /** Closes the widget shown, if any. */
  close(): void
}

declare global {
  interface Window {
    Portico?: PorticoApi
  }
  /** Window events: `Portico:<name>` with `HostEvents[name]` as detail. */
  interface WindowEventMap {
    'Portico:step': CustomEvent<StepDetail>
    'Portico:success': CustomEvent<SuccessResult>
    'Portico:close': CustomEvent<CloseDetail>
    'Portico:fallback': CustomEvent<FallbackDetail>
    'Portico:request-close': CustomEvent<{ lastStatus: Step }>
    'Portico:doc-click': CustomEvent<{ url: string; step: Step }>
    'Portico:shared': CustomEvent<SharedDetail>
  }
}
