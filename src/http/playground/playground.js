// The widget playground's script (served as a file). The key lives only in this page's memory.
const $ = (id) => document.getElementById(id)
const status = (text, ok = false) => {
  $('pg-status').textContent = text
  $('pg-status').className = ok ? 'ok' : ''
}
const auth = () => ({ authorization: 'Bearer ' + $('pg-key').value.trim() })

$('pg-show').addEventListener('click', () => {
  const shown = $('pg-key').type === 'text'
  $('pg-key').type = shown ? 'password' : 'text'
  $('pg-show').setAttribute('aria-pressed', String(!shown))
  $('pg-show').textContent = shown ? 'Show' : 'Hide'
})

let applications = []
function fillBranding(id) {
  const b = applications.find((a) => a.id === id)?.branding
  $('pg-brand-name').value = b?.display_name ?? ''
  $('pg-brand-logo').value = b?.logo_url ?? ''
  $('pg-brand-accent-on').checked = Boolean(b?.accent_color)
  if (b?.accent_color) $('pg-brand-accent').value = b.accent_color
}

$('pg-load').addEventListener('click', async () => {
  status('')
  const r = await fetch('/v1/applications', { headers: auth() })
  const body = await r.json()
  if (!r.ok) return status(body.title || 'The key was refused')
  applications = body.applications
  $('pg-app').replaceChildren(...applications.map((a) => new Option(a.name + ' (' + a.id + ')', a.id)))
  if (applications.length === 0) return status('This workspace has no application')
  fillBranding($('pg-app').value)
})
$('pg-app').addEventListener('change', () => fillBranding($('pg-app').value))

$('pg-brand-save').addEventListener('click', async () => {
  const id = $('pg-app').value
  if (!id) return status('Load the applications and choose one first')
  const body = {
    display_name: $('pg-brand-name').value.trim() || null,
    logo_url: $('pg-brand-logo').value.trim() || null,
    accent_color: $('pg-brand-accent-on').checked ? $('pg-brand-accent').value : null,
  }
  const r = await fetch('/v1/applications/' + encodeURIComponent(id) + '/branding', { method: 'PUT', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const out = await r.json()
  if (!r.ok) return status((out.title || 'Refused') + (out.details ? ': ' + out.details.map((d) => d.field + ' ' + d.message).join('; ') : ''))
  applications = applications.map((a) => (a.id === id ? out : a))
  status('Branding saved', true)
})

// ---- the log

const started = performance.now()
function log(name, detail) {
  const li = document.createElement('li')
  const at = ((performance.now() - started) / 1000).toFixed(2) + ' s '
  const n = document.createElement('span')
  n.className = 'name'
  n.textContent = name
  li.append(at, n, ' ' + (detail === undefined ? '' : JSON.stringify(detail)))
  $('pg-log').append(li)
  li.scrollIntoView({ block: 'nearest' })
}
for (const name of ['step', 'success', 'close', 'fallback', 'request-close', 'doc-click', 'shared', 'error']) {
  window.addEventListener('Portico:' + name, (e) => log('Portico:' + name, e.detail))
}
$('pg-log-clear').addEventListener('click', () => $('pg-log').replaceChildren())

$('pg-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  status('')
  const applicationId = $('pg-app').value
  if (!applicationId) return status('Load the applications and choose one first')
  const r = await fetch('/playground/token', { method: 'POST', headers: { ...auth(), 'content-type': 'application/json' }, body: JSON.stringify({ application_id: applicationId }) })
  const body = await r.json()
  if (!r.ok) return status(body.title || 'No widget token')
  const domain = $('pg-domain').value.trim()
  const locale = $('pg-locale').value
  Portico.open({
    applicationId,
    token: body.token,
    applicationName: body.application_name,
    ...(domain ? { domain } : {}),
    ...(locale ? { locale } : {}),
    onStepChange: (s) => {
      document.body.dataset.step = s.step
      log('onStepChange', s)
    },
    onSuccess: (s) => log('onSuccess', s),
    onClose: (s) => log('onClose', s),
    onError: (err) => log('onError', err),
  })
})
