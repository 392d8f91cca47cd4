// IN_PROGRESS: each record with what the last verification saw (found, not yet, or conflicting when
// something else is published in its place), when it was checked, "Check now" and the way back to the
// steps. Updates in place as the connection is followed.
import { h } from '../ui.ts'
import { button, conflictsTable, reasonLine, row, spinner, table, type Screen, type View } from './view.ts'

export function checkedLine(v: View): HTMLElement {
  const c = v.state.data.conn
  return h('p', { class: 'je-small', id: 'je-checked' }, c?.lastCheckedAt ? v.tr.t('checkedAgo', { ago: v.tr.ago(c.lastCheckedAt, v.now()) }) : v.tr.t('notChecked'))
}

export function statusTable(v: View): HTMLElement | null {
  const c = v.state.data.conn
  if (!c) return null
  const byKey = new Map(c.records.map((r) => [`${r.type} ${r.host} ${r.value}`, r.state]))
  return table(v, c.records, { copy: false, id: 'je-status', status: (r) => byKey.get(`${r.type} ${r.host} ${r.value}`) ?? 'waiting' })
}

export function progress(v: View): Screen {
  const { t } = v.tr
  const s = v.state
  const c = s.data.conn
  const waitingFor = c ? c.records.filter((r) => r.state !== 'found').length : 0
  return {
    title: t('progressTitle'),
    content: [
      h('p', {}, t('progressIntro')),
      reasonLine(v),
      c ? h('p', { class: 'je-small', id: 'je-waiting' }, waitingFor ? t('waitingFor', { count: waitingFor }) : '') : null,
      conflictsTable(v, c?.conflicts ?? []),
      c ? statusTable(v) : spinner(t('progressTitle')),
      checkedLine(v),
      row(
        button('je-check-now', t('checkNow'), () => v.send({ type: 'checkNow' }), { disabled: !c || s.pending !== null }),
        button('je-back-steps', t('backToSteps'), () => v.send({ type: 'back' }), { alt: true }),
      ),
    ],
  }
}
