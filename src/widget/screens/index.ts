// One render function per screen (widget status); the statuses the flow never shows render as the
// analysis spinner.
import type { Step } from '../types.ts'
import { almost } from './almost.ts'
import { analysis } from './analysis.ts'
import { enterDomain } from './enter-domain.ts'
import { error } from './error.ts'
import { existing } from './existing.ts'
import { login } from './login.ts'
import { manual } from './manual.ts'
import { progress } from './progress.ts'
import { provider } from './provider.ts'
import { setup } from './setup.ts'
import { shared } from './shared.ts'
import { success } from './success.ts'
import type { Render } from './view.ts'

export const SCREENS: Record<Step, Render> = {
  INITIAL: analysis,
  ENTER_DOMAIN: enterDomain,
  DOMAIN_ANALYSIS: analysis,
  DOMAIN_SETUP: setup,
  IN_PROGRESS: progress,
  EXISTING_RECORDS: existing,
  LOGIN: login,
  LOGIN_2FA: analysis,
  MANUAL_CONFIGURATION: manual,
  PROVIDER_MANUAL_SELECTION: provider,
  EXIT_WITH_ERROR: error,
  DKIM_SETUP: analysis,
  FINISHED_SUCCESSFULLY: success,
  FINISHED_SUCCESSFULLY_MANUAL: almost,
  FINISHED_SUCCESSFULLY_LINK_SHARED: shared,
}
