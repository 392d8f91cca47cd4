// The share page's script (bundled alone by src/share/page.ts, served as a file). The page is complete
// without it; this adds copy buttons, "I have added them" in place, and follows the connection for as
// long as the page is open (every 5 s for two minutes, then every 15 s, then every minute after ten
// minutes; at once when the tab comes back into view), so a record added an hour later still turns
// the page to done. Only the status line is a live region, and it changes only when the state does.
import { fillIn as fill } from '../widget/fill.ts'

interface Data {
  token: string
  locale: string
  status: 'pending' | 'propagating' | 'live' | 'failed'
  domain: string
  target: string
  keys: string[]
  strings: Record<'copied' | 'copy' | 'checking' | 'added' | 'found' | 'missing' | 'statusPending' | 'statusPropagating' | 'statusFailed' | 'statusLive' | 'statusUnreachable' | 'closedHint' | 'lastChecked', string>
}

interface Shared {
  status: Data['status']
  propagation: { records_propagated: { type: string; host: string }[] }
  last_checked_at: string | null
}

const $ = (id: string) => document.getElementById(id)
const data = JSON.parse($('share-data')!.textContent!) as Data
const s = data.strings
const started = Date.now()
let state = data.status
let timer: ReturnType<typeof setTimeout> | undefined
let busy = false

function localTimes(): void {
  for (const el of document.querySelectorAll<HTMLTimeElement>('time.local')) {
    const at = new Date(el.dateTime)
    if (Number.isNaN(at.getTime())) continue
    el.textContent = new Intl.DateTimeFormat(data.locale, el.dataset.time ? { dateStyle: 'long', timeStyle: 'short' } : { dateStyle: 'long' }).format(at)
  }
}

function statusOf(c: Shared, found: Set<string>): string {
  if (c.status === 'live') return fill(s.statusLive, { domain: data.domain, target: data.target })
  if (c.status === 'failed') return s.statusFailed
  if (c.status === 'propagating') return fill(s.statusPropagating, { found: data.keys.filter((k) => found.has(k)).length, total: data.keys.length })
  return s.statusPending
}

function setStatus(text: string): void {
  const el = $('share-status')!
  if (el.textContent !== text) el.textContent = text
}

function render(c: Shared): void {
  const found = new Set(c.propagation.records_propagated.map((r) => `${r.type} ${r.host}`))
  for (const li of document.querySelectorAll<HTMLElement>('li.rec')) {
    const st = found.has(li.dataset.key ?? '') ? 'found' : 'missing'
    const p = li.querySelector<HTMLElement>('.rec-state')!
    if (p.dataset.state !== st) {
      p.dataset.state = st
      p.textContent = s[st]
    }
  }
  setStatus(statusOf(c, found))
  $('share-status')!.dataset.status = c.status
  if (c.last_checked_at) {
    const checked = $('share-checked')!
    checked.replaceChildren()
    const [before, after] = s.lastChecked.split('{time}')
    const time = document.createElement('time')
    time.className = 'local'
    time.dateTime = c.last_checked_at
    time.dataset.time = '1'
    checked.append(before ?? '', time, after ?? '')
    localTimes()
  }
  if (c.status === 'live' && state !== 'live') done()
  state = c.status
}

function done(): void {
  const work = $('share-work')!
  const hadFocus = work.contains(document.activeElement)
  work.hidden = true
  $('share-done')!.hidden = false
  $('share-close')!.hidden = false
  if (hadFocus) $('share-done-h')!.focus()
}

async function call(method: 'GET' | 'POST'): Promise<Shared | null> {
  try {
    const r = await fetch(`/v1/share/${encodeURIComponent(data.token)}${method === 'POST' ? ':recheck' : ''}`, { method, headers: { accept: 'application/json' } })
    if (r.status === 404) {
      location.reload()
      return null
    }
    return r.ok ? ((await r.json()) as Shared) : null
  } catch {
    return null
  }
}

function nextDelay(): number {
  const waited = Date.now() - started
  if (state === 'failed' || waited > 10 * 60_000) return 60_000
  return waited > 2 * 60_000 ? 15_000 : 5_000
}

function schedule(ms = nextDelay()): void {
  clearTimeout(timer)
  if (state === 'live') return
  timer = setTimeout(poll, ms)
}

async function poll(): Promise<void> {
  if (document.hidden) return // resumed by visibilitychange
  if (!busy) {
    const c = await call('GET')
    if (c) render(c)
  }
  schedule()
}

function copyButtons(): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>('button.copy')) {
    b.hidden = false
    b.addEventListener('click', async () => {
      const text = $(b.dataset.copy!)!.textContent ?? ''
      try {
        await navigator.clipboard.writeText(text)
      } catch {
        const range = document.createRange()
        range.selectNodeContents($(b.dataset.copy!)!)
        getSelection()?.removeAllRanges()
        getSelection()?.addRange(range)
        return
      }
      b.textContent = s.copied
      setTimeout(() => (b.textContent = s.copy), 2000)
    })
  }
}

function addedForm(): void {
  const form = $('share-form') as HTMLFormElement
  const button = $('share-added') as HTMLButtonElement
  form.addEventListener('submit', async (e) => {
    e.preventDefault()
    if (busy) return
    busy = true
    button.disabled = true
    button.textContent = s.checking
    const c = await call('POST')
    busy = false
    button.disabled = false
    button.textContent = s.added
    if (c) render(c)
    else setStatus(s.statusUnreachable)
    schedule()
  })
}

function closeButton(): void {
  const b = $('share-close') as HTMLButtonElement
  if (state === 'live') b.hidden = false
  b.addEventListener('click', () => {
    window.close()
    // A tab the person opened from a link cannot be closed by a script: say so instead.
    setTimeout(() => {
      if (window.closed) return
      b.hidden = true
      $('share-closed')!.hidden = false
    }, 300)
  })
}

localTimes()
copyButtons()
addedForm()
closeButton()
$('share-done-h')?.setAttribute('tabindex', '-1')
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && state !== 'live') schedule(0)
})
schedule()
