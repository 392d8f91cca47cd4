// FINISHED_SUCCESSFULLY_LINK_SHARED: the link for whoever runs the DNS, and until when it works.
import { copyButton, h } from '../ui.ts'
import { button, row, type Screen, type View } from './view.ts'

export function shared(v: View): Screen {
  const { t } = v.tr
  const d = v.state.data
  const link = d.link!
  const input = h('input', { id: 'je-link', readonly: true, value: link.url }) as HTMLInputElement
  return {
    title: t('sharedTitle'),
    content: [
      h('p', {}, t('sharedIntro', { domain: d.conn?.domain ?? d.domain ?? '', date: v.tr.date(link.expiresAt) })),
      h('label', { for: 'je-link' }, t('linkLabel')),
      input,
      row(copyButton(link.url, '', t('copy'), t('copied'), (s) => v.announce(s)), button('je-back', t('back'), () => v.send({ type: 'back' }), { alt: true })),
    ],
    focus: 'je-link',
  }
}
