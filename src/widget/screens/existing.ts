// EXISTING_RECORDS: the records already published that stand in the way, each with what to do.
import { h } from '../ui.ts'
import { backButton, button, certificateNotes, conflictsTable, row, type Screen, type View } from './view.ts'

export function existing(v: View): Screen {
  const { t } = v.tr
  const d = v.state.data
  return {
    title: t('existingTitle'),
    content: [
      h('p', { class: 'je-warn' }, t('existingIntro', { domain: d.domain ?? '' })),
      conflictsTable(v),
      certificateNotes(v),
      row(button('je-continue', t('continue'), () => v.send({ type: 'continue' })), v.settings.domain ? null : backButton(v)),
    ],
  }
}
