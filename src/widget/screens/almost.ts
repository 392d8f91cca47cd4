// FINISHED_SUCCESSFULLY_MANUAL: the person has waited a while; they may leave. The connection is still
// followed, and this screen turns into the success screen when it goes live.
import { h } from '../ui.ts'
import { button, reasonLine, row, type Screen, type View } from './view.ts'
import { checkedLine, reachLine, statusTable } from './progress.ts'

export function almost(v: View): Screen {
  const { t } = v.tr
  const d = v.state.data
  return {
    title: t('almostTitle'),
    content: [
      reachLine(v),
      h('p', {}, t('almostIntro', { domain: d.conn?.domain ?? d.domain ?? '' })),
      // "Check now" that failed is said here too, as on the waiting screen.
      reasonLine(v),
      statusTable(v),
      checkedLine(v),
      row(
        d.sessionEnded ? null : button('je-check-now', t('checkNow'), () => v.send({ type: 'checkNow' }), { disabled: v.state.pending !== null }),
        button('je-back-steps', t('backToSteps'), () => v.send({ type: 'back' }), { alt: true }),
        button('je-close', t('close'), () => v.dismiss(), { alt: true }),
      ),
    ],
  }
}
