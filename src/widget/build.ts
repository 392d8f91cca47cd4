// Server side: bundles the widget SDK (src/widget/index.ts) with Bun.build into one minified browser
// script, once per process on first use, and keeps it in memory with its gzip form. The version in the
// served URL carries a hash of the bundle's bytes, so a URL names exactly one content and can be cached
// forever (`immutable`).
import { createHash } from 'node:crypto'

/** Major version of the SDK's public surface (the seven methods and the events). */
export const SDK_MAJOR = 1

export interface WidgetBundle {
  code: string
  gzip: Uint8Array
  /** `1.<hash>`; served at /widget/v<version>/portico.js */
  version: string
  etag: string
}

let cached: Promise<WidgetBundle> | null = null

async function build(): Promise<WidgetBundle> {
  const out = await Bun.build({
    entrypoints: [new URL('./index.ts', import.meta.url).pathname],
    target: 'browser',
    format: 'iife',
    minify: true,
  })
  const artifact = out.outputs[0]
  if (!out.success || !artifact) throw new AggregateError(out.logs, 'widget bundle failed to build')
  const code = await artifact.text()
  const hash = createHash('sha256').update(code).digest('hex').slice(0, 12)
  return { code, gzip: Bun.gzipSync(new TextEncoder().encode(code)), version: `${SDK_MAJOR}.${hash}`, etag: `"${hash}"` }
}

export function widgetBundle(): Promise<WidgetBundle> {
  cached ??= build().catch((err) => {
    cached = null
    throw err
  })
  return cached
}

export const bundlePath = (b: Pick<WidgetBundle, 'version'>) => `/widget/v${b.version}/portico.js`
