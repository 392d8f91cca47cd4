// ENTER_DOMAIN: the domain field. A problem (a name that is not a domain, a domain that does not
// exist, an apex the application cannot serve) is said under the field in the person's words, with
// what they typed still in it.
import { h } from '../ui.ts'
import { appOr, button, problemText, row, type Screen, type View } from './view.ts'

export function enterDomain(v: View): Screen {
  const { t } = v.tr
  const s = v.state
  const pre = v.settings.prefilledList
  const input = h('input', {
    id: 'je-domain',
    name: 'domain',
    type: 'text',
    inputmode: 'url',
    autocomplete: 'off',
    autocapitalize: 'none',
    spellcheck: 'false',
    required: true,
    'aria-describedby': 'je-domain-hint',
    'aria-invalid': s.problem ? 'true' : undefined,
    list: pre.length ? 'je-domains' : undefined,
    oninput: (e) => v.send({ type: 'edit', field: 'domain', value: (e.target as HTMLInputElement).value }),
  }) as HTMLInputElement
  input.value = s.data.typed.domain
  const hint = h('p', { id: 'je-domain-hint', class: s.problem ? 'je-err' : 'je-hint' }, s.problem ? problemText(v, s.problem) : t('domainHint'))
  const form = h(
    'form',
    {
      novalidate: true,
      onsubmit: (e) => {
        e.preventDefault()
        v.send({ type: 'submitDomain' })
      },
    },
    h('label', { for: 'je-domain' }, t('domainLabel')),
    input,
    pre.length ? h('datalist', { id: 'je-domains' }, ...pre.map((d) => h('option', { value: d }))) : null,
    hint,
    row(button('je-continue', t('continue'), () => undefined, { type: 'submit' })),
  )
  return { title: v.app ? t('titleApp', { app: appOr(v) }) : t('title'), content: [form], focus: 'je-domain' }
}
