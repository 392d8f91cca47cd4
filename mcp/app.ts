// The connect flow as an MCP App (io.modelcontextprotocol/ui extension), server side: one UI resource,
// `ui://portico/connect`, an HTML page built once per process from app/connect-app.ts with Bun.build
// (the widget's own rendering code inlined, no network access needed: its CSP declares no origins).
// The connection tools name it in `_meta.ui.resourceUri`; a host with the extension renders it beside
// their result. Hosts without it get the same content as text: `appText` renders the records to add,
// the provider's steps and the status as a second text block of those tools' results.
export const APP_URI = 'ui://portico/connect'
export const APP_MIME = 'text/html;profile=mcp-app'
export const UI_EXTENSION = 'io.modelcontextprotocol/ui'

export const APP_RESOURCE = {
  uri: APP_URI,
  name: 'connect',
  title: 'Connect a domain',
  description: 'The records to add, the DNS provider\'s steps and the live status of a connection',
  mimeType: APP_MIME,
}

let page: Promise<string> | null = null

async function build(): Promise<string> {
  const out = await Bun.build({ entrypoints: [new URL('./app/connect-app.ts', import.meta.url).pathname], target: 'browser', format: 'iife', minify: true })
  const artifact = out.outputs[0]
  if (!out.success || !artifact) throw new AggregateError(out.logs, 'MCP App bundle failed to build')
  // A closing script tag inside the code would end the inline script early.
  const code = (await artifact.text()).replace(/<\/script/gi, '<\\/script')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${APP_RESOURCE.title}</title></head><body><div id="app"></div><script>${code}</script></body></html>`
}

/** The page, built on first use and kept. */
export function appHtml(): Promise<string> {
  page ??= build().catch((err) => {
    page = null
    throw err
  })
  return page
}

/** resources/read contents for the app. */
export async function appContents() {
  return [{ uri: APP_URI, mimeType: APP_MIME, text: await appHtml(), _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } } }]
}

/** What the app shows of a connection (the tools' structured content), in the frame and as text. */
export interface ConnectionView {
  id?: string
  connection_id?: string
  domain?: string
  status?: string
  error_message?: string | null
  records?: { type: string; host: string; value: string }[]
  manual_steps?: string[]
  dashboard_url?: string | null
}

/** The app's content as plain text, for hosts that do not render UI resources. */
export function appText(body: ConnectionView): string {
  const lines: string[] = []
  if (body.domain) lines.push(`Domain: ${body.domain}`)
  if (body.status) lines.push(`Status: ${body.status}${body.error_message ? ` (${body.error_message})` : ''}`)
  if (body.manual_steps?.length) lines.push('Steps:', ...body.manual_steps.map((s, i) => `${i + 1}. ${s}`))
  if (body.records?.length) lines.push('Records to add (type, host, value):', ...body.records.map((r) => `${r.type}\t${r.host}\t${r.value}`))
  if (body.dashboard_url) lines.push(`Provider dashboard: ${body.dashboard_url}`)
  return lines.join('\n')
}
