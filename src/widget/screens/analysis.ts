// INITIAL and DOMAIN_ANALYSIS: a spinner while the domain is looked up.
import { spinner, type Screen, type View } from './view.ts'

export function analysis(v: View): Screen {
  const domain = v.state.data.domain
  const title = domain ? v.tr.t('analysing', { domain }) : v.tr.t('loading')
  return { title, content: [spinner(title)] }
}
