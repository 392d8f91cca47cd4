// IN_PROGRESS: each record with what the last verification saw (found, not yet, or conflicting when
// something else is published in its place), when it was checked, "Check now" and the way back to the
// steps. Updates in place as the connection is followed.
import { h } from '../ui.ts'
import { button, certificateNotes, conflictsTable, httpsConflicts, reasonLine, row, spinner, table, type Screen, type View } from './view.ts'

/**
 * What this page can no longer tell: Portico out of reach (what is shown may be out of date; the
 * follow loop keeps trying and says when it is back), or the session ended (nothing more can be asked;
 * the connection goes on without the page).
 */
export function reachLine(v: View): HTMLElement | null {
  const d = v.state.data
  if (d.sessionEnded) return h('p', { class: 'je-err je-warn', id: 'je-reach', 'data-reach': 'session' }, v.tr.t('sessionEnded', { app: v.app ?? v.tr.t('someApp') }))
  if (d.unreachable) return h('p', { class: 'je-err je-warn', id: 'je-reach', 'data-reach': 'offline' }, v.tr.t('unreachable'))
  return null
}

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
      reachLine(v) ?? h('p', {}, t('progressIntro')),
      reasonLine(v),
      c ? h('p', { class: 'je-small', id: 'je-waiting' }, waitingFor ? t('waitingFor', { count: waitingFor }) : '') : null,
      conflictsTable(v, c?.conflicts ?? []),
      certificateNotes(v, httpsConflicts(v)),
      c ? statusTable(v) : spinner(t('progressTitle')),
      checkedLine(v),
      row(
        s.data.sessionEnded ? button('je-close', t('close'), () => v.dismiss()) : button('je-check-now', t('checkNow'), () => v.send({ type: 'checkNow' }), { disabled: !c || s.pending !== null }),
        button('je-back-steps', t('backToSteps'), () => v.send({ type: 'back' }), { alt: true }),
      ),
    ],
  }
}
