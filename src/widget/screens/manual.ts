// MANUAL_CONFIGURATION: the records to add by hand. From the top: who asks (on a share page), the
// provider, why the person is here and what stands in the way (the records to remove first), then the
// steps, the records with copy buttons, "I have added them", sharing, Back.
import { h } from '../ui.ts'
import { conflictsNow, plannedRecords, routingConflicts } from '../machine.ts'
import { reachLine } from './progress.ts'
import { appOr, backButton, button, certificateNotes, conflictsTable, detected, reasonLine, row, spinner, table, type Screen, type View } from './view.ts'

/** Steps in the person's language: the catalog's (English) words in English, else translated ones naming the provider. */
function steps(v: View, domain: string): string[] {
  const d = v.state.data
  const provider = d.chosen?.name ?? d.check?.provider_name ?? null
  const all = d.help?.steps && v.tr.locale === 'en' ? d.help.steps : provider ? v.tr.t('stepsProvider', { provider, domain }).split('|') : v.tr.t('stepsGeneric', { domain }).split('|')
  // Once the session has ended there is no "I have added them" to come back to.
  return d.sessionEnded ? all.filter((x) => !x.includes(v.tr.t('added'))) : all
}

export function manual(v: View): Screen {
  const { t } = v.tr
  const s = v.state
  const d = s.data
  const domain = d.conn?.domain ?? d.domain ?? ''
  const records = plannedRecords(d, v.settings)
  // Values only the connection can issue (an ownership token) are shown once it exists.
  const waiting = !d.conn && (s.pending?.cmd.kind === 'commit' || records.some((r) => r.value.includes('<')))
  const busy = s.pending !== null && s.pending.cmd.kind !== 'commit'
  const docs = v.manualDocs
  const dashboard = d.help?.dashboardUrl ?? null
  const conflicts = conflictsNow(d)
  const inTheWay = routingConflicts(conflicts)
  return {
    title: t('manualTitle'),
    content: [
      d.sessionEnded ? reachLine(v) : null,
      d.shared && v.app ? h('p', { id: 'je-asker' }, t('shareBy', { app: appOr(v), domain })) : null,
      detected(v),
      reasonLine(v),
      // The conflict reason introduces the table; without it the table gets its own sentence.
      inTheWay.length && d.reason?.code !== 'conflict' ? h('p', { class: 'je-warn' }, t('reasonConflict', { domain })) : null,
      conflictsTable(v, conflicts),
      certificateNotes(v, conflicts),
      h('p', {}, t('manualIntro', { domain })),
      // Before cutover: which of the two steps this is.
      d.conn?.stage === 'awaiting_records' || d.conn?.stage === 'awaiting_routing' ? h('p', { id: 'je-stage' }, t(d.conn.stage === 'awaiting_records' ? 'stepProve' : 'stepRoute', { domain })) : null,
      h('ol', { class: 'je-steps' }, ...steps(v, domain).map((x) => h('li', {}, x))),
      waiting ? spinner(t('loading')) : table(v, records, { id: 'je-records' }),
      // The session ended while the person waited, and they came back to read the records: they can
      // still copy them, but nothing more can be asked of Portico (the connection goes on without the page).
      d.sessionEnded
        ? row(button('je-close', t('close'), () => v.dismiss()))
        : row(
            button('je-added', t('added'), () => v.send({ type: 'added' }), { disabled: waiting || busy }),
            d.shared ? null : button('je-share', t('share'), () => v.send({ type: 'share' }), { alt: true, disabled: waiting || busy }),
            d.back && !d.shared ? backButton(v) : null,
          ),
      dashboard || docs
        ? h(
            'p',
            { class: 'je-small' },
            dashboard ? h('a', { href: dashboard, target: '_blank', rel: 'noopener', id: 'je-dashboard' }, t('dashboard')) : null,
            dashboard && docs ? ' · ' : null,
            docs ? h('a', { href: docs, target: '_blank', rel: 'noopener', id: 'je-docs', onclick: () => v.emit('doc-click', { url: docs, step: s.step }) }, t('docs')) : null,
          )
        : null,
    ],
  }
}
