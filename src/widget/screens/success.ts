// FINISHED_SUCCESSFULLY: connected, and whether HTTPS is served. "Connected and secure" only once the
// certificate is served; "securing" until then (the connection is still followed); a certificate the
// CA refused says why and lists what stands in the way; a connection whose HTTPS this deployment does
// not serve says only that it is connected.
import { h } from '../ui.ts'
import { appOr, button, certificateNotes, conflictsTable, row, spinner, type Screen, type View } from './view.ts'

export function success(v: View): Screen {
  const { t } = v.tr
  const c = v.state.data.conn!
  const domain = c.domain
  const close = row(button('je-close', t('close'), () => v.dismiss()))
  const points = v.app ? t('connectedIntro', { domain, app: appOr(v) }) : t('connectedIntroPlain', { domain })
  switch (c.secure) {
    case 'secured':
      return {
        title: t('successTitle'),
        content: [h('p', { class: 'je-ok', id: 'je-success', 'data-secure': 'secured' }, v.app ? t('successIntro', { domain, app: appOr(v) }) : t('successIntroPlain', { domain })), close, confetti(v)],
        focus: 'je-close',
      }
    case 'failed':
      return {
        title: t('secureFailedTitle'),
        content: [
          h('p', { class: 'je-ok', id: 'je-success', 'data-secure': 'failed' }, points),
          h('p', { class: 'je-err je-warn', id: 'je-secure' }, t('secureFailedIntro', { domain, reason: c.secureError ?? '—' })),
          h('p', {}, (c.conflicts ?? []).length ? t('secureFailedNext') : t('secureFailedNextPlain')),
          conflictsTable(v, c.conflicts ?? []),
          certificateNotes(v, c.conflicts ?? []),
          close,
        ],
      }
    case 'securing':
      return {
        title: t('connectedTitle'),
        content: [h('p', { class: 'je-ok', id: 'je-success', 'data-secure': 'securing' }, points), h('p', { id: 'je-secure' }, t('securingIntro', { domain })), spinner(t('securingIntro', { domain })), close],
        focus: 'je-close',
      }
    default:
      return { title: t('connectedTitle'), content: [h('p', { class: 'je-ok', id: 'je-success', 'data-secure': c.secure ?? 'unknown' }, points), close, confetti(v)], focus: 'je-close' }
  }
}

function confetti(v: View): HTMLElement | null {
  if (v.settings.hideConfetti) return null
  return h('div', { class: 'je-confetti', 'aria-hidden': 'true' }, ...Array.from({ length: 24 }, (_, i) => h('i', { style: `left:${(i * 37) % 100}%;background:hsl(${i * 47},80%,55%);animation-delay:${(i % 6) * 0.08}s` })))
}
