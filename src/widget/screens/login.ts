// LOGIN: the provider's API credential. A refused key comes back here with the reason and the key as
// typed, to correct it or paste another; "Set up manually instead" is always there.
import { h } from '../ui.ts'
import { backButton, button, detected, providerName, reasonLine, row, tokenHelp, type Screen, type View } from './view.ts'

export function login(v: View): Screen {
  const { t } = v.tr
  const provider = providerName(v)
  const help = tokenHelp(v)
  const busy = v.state.pending !== null
  const input = h('input', {
    id: 'je-credential',
    type: 'password',
    autocomplete: 'off',
    required: true,
    'aria-describedby': v.state.data.reason ? 'je-reason je-login-intro' : 'je-login-intro',
    'aria-invalid': v.state.data.reason?.code === 'key' ? 'true' : undefined,
    oninput: (e) => v.send({ type: 'edit', field: 'credential', value: (e.target as HTMLInputElement).value }),
  }) as HTMLInputElement
  input.value = v.state.data.typed.credential
  const form = h(
    'form',
    {
      onsubmit: (e) => {
        e.preventDefault()
        v.send({ type: 'submitKey' })
      },
    },
    detected(v),
    reasonLine(v),
    h('p', { id: 'je-login-intro' }, t('loginIntro', { provider, kind: help?.kind ?? t('loginLabel') })),
    help?.scopes.length ? h('ul', { class: 'je-scopes' }, ...help.scopes.map((s) => h('li', {}, s))) : null,
    ...(help?.links ?? []).map((l, i) => h('p', {}, h('a', { href: l.url, target: '_blank', rel: 'noopener', id: i ? 'je-token-link-also' : 'je-token-link' }, t('loginCreate', { provider: l.at ?? provider })))),
    h('label', { for: 'je-credential' }, t('loginLabel')),
    input,
    row(
      button('je-login-go', t('loginGo'), () => undefined, { type: 'submit', disabled: busy }),
      button('je-manual-instead', t('manualInstead'), () => v.send({ type: 'manualInstead' }), { alt: true }),
      v.settings.domain ? null : backButton(v),
    ),
  )
  return { title: t('loginTitle', { provider }), content: [form], focus: v.state.data.reason ? undefined : 'je-credential' }
}
