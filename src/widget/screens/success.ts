// FINISHED_SUCCESSFULLY: connected, and the truth about HTTPS. "Connected and secure" only once the
// certificate is served; a record that forbids the certificate (a CAA set without the CA) is named
// with its fix whatever the certificate's state, in the heading and the words; "securing" until the
// certificate is served (the connection is still followed); a certificate the CA refused says why and
// lists what stands in the way; a connection whose HTTPS this deployment does not serve says only that
// it is connected.
import { h } from '../ui.ts'
import { appOr, button, certificateNotes, conflictsTable, httpsConflicts, row, spinner, type Screen, type View } from './view.ts'

export function success(v: View): Screen {
  const { t } = v.tr
  const c = v.state.data.conn!
  const domain = c.domain
  const close = row(button('je-close', t('close'), () => v.dismiss()))
  const points = v.app ? t('connectedIntro', { domain, app: appOr(v) }) : t('connectedIntroPlain', { domain })
  const https = httpsConflicts(v)
  const blocked = c.secure !== 'secured' && https.some((x) => x.blocks_certificate)
  if (blocked) {
    return {
      title: t('httpsBlockedTitle'),
      content: [
        h('p', { class: 'je-ok', id: 'je-success', 'data-secure': 'blocked' }, points),
        h('p', { class: 'je-err je-warn', id: 'je-secure' }, t('httpsBlockedIntro', { domain })),
        certificateNotes(v, https),
        close,
      ],
    }
  }
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
  // Positions and colours through the CSSOM: a `style` attribute would need 'unsafe-inline' in the host's CSP.
  const piece = (i: number) => {
    const el = h('i')
    el.style.insetInlineStart = `${(i * 37) % 100}%`
    el.style.background = `hsl(${i * 47},80%,55%)`
    el.style.animationDelay = `${(i % 6) * 0.08}s`
    return el
  }
  return h('div', { class: 'je-confetti', 'aria-hidden': 'true' }, ...Array.from({ length: 24 }, (_, i) => piece(i)))
}
