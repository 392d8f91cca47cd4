// PROVIDER_MANUAL_SELECTION: where the DNS is managed, when the nameservers did not say.
import { h } from '../ui.ts'
import { backButton, button, row, spinner, type Screen, type View } from './view.ts'

export function provider(v: View): Screen {
  const { t } = v.tr
  const list = v.state.data.providers
  if (!list) return { title: t('providerTitle'), content: [spinner(t('loading'))] }
  const select = h('select', { id: 'je-provider' }, h('option', { value: '' }, t('providerOther')), ...list.map((p) => h('option', { value: p.id }, p.name))) as HTMLSelectElement
  return {
    title: t('providerTitle'),
    content: [
      h('label', { for: 'je-provider' }, t('providerLabel')),
      select,
      row(button('je-continue', t('continue'), () => v.send({ type: 'chooseProvider', id: select.value })), v.settings.domain ? null : backButton(v)),
    ],
    focus: 'je-provider',
  }
}
