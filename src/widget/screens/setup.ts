// DOMAIN_SETUP: the one-click rails (OAuth, Domain Connect). Names the provider the person will meet:
// for Domain Connect the provider behind the `_domainconnect` record (from its settings), which may
// not be the one found from the nameservers; a neutral sentence when its name is not known.
import { h } from '../ui.ts'
import { backButton, button, detected, oneClickName, row, table, type Screen, type View } from './view.ts'
import { plannedRecords } from '../machine.ts'

export function setup(v: View): Screen {
  const { t } = v.tr
  const name = oneClickName(v)
  const busy = v.state.pending !== null
  const go = () => {
    if (busy) return
    if (!v.openPopup()) return v.send({ type: 'popupBlocked' })
    v.send({ type: 'startOneClick' })
  }
  return {
    title: name ? t('setupTitle', { provider: name }) : t('setupTitleUnknown'),
    content: [
      detected(v),
      h('p', {}, name ? t('setupWhat', { provider: name }) : t('setupWhatUnknown')),
      table(v, plannedRecords(v.state.data, v.settings), { copy: false }),
      row(
        button('je-setup-go', name ? t('setupGo', { provider: name }) : t('setupGoUnknown'), go, { disabled: busy }),
        button('je-manual-instead', t('manualInstead'), () => v.send({ type: 'manualInstead' }), { alt: true }),
        v.settings.domain ? null : backButton(v),
      ),
    ],
  }
}
