// EXIT_WITH_ERROR: what went wrong in the person's words, what to do next, Close, and a way back (to
// the records once a connection exists, else to the domain field with what was typed, the analysis
// again, or a shared setup loaded again) unless nothing can be retried from here.
import { h } from '../ui.ts'
import { canRetry } from '../machine.ts'
import { button, problemText, row, type Screen, type View } from './view.ts'

export function error(v: View): Screen {
  const { t } = v.tr
  const s = v.state
  const words = s.problem ? problemText(v, s.problem) : t('errorGeneric', { app: v.app ?? t('someApp') })
  // An ended session, a setup the integrator got wrong or a share link gone cannot be retried from here: Close.
  const retry = canRetry(s)
  return {
    title: t('errorTitle'),
    content: [
      h('p', { class: 'je-err', id: 'je-error' }, words),
      row(
        retry ? button('je-retry', s.data.conn ? t('back') : t('retry'), () => v.send({ type: 'retry' })) : null,
        button('je-close', t('close'), () => v.dismiss(), { alt: retry }),
      ),
    ],
  }
}
