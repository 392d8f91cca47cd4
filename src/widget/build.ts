// Server side: bundles the widget SDK (src/widget/index.ts) with Bun.build into one minified browser
// script, once per process on first use, and keeps it in memory with its gzip and brotli forms; the
// locale tables other than English are kept the same way, as JSON, each fetched by the widget only
// when it shows that locale. The bundle's URL carries a hash of its bytes and the tables' URLs a hash
// of all tables (built into the bundle), so a URL names exactly one content and is cached forever.
import { createHash } from 'node:crypto'
import { encode, type Encoded } from '../http/encoded.ts'
import { TABLES } from './locales/index.ts'

/** Major version of the SDK's public surface (the seven methods and the events). */
export const SDK_MAJOR = 1

export interface WidgetBundle extends Encoded {
  code: string
  /** `1.<hash>`; served at /widget/v<version>/portico.js */
  version: string
  /** The hash the locale tables are served under: /widget/locales/<localesVersion>/<tag>.json */
  localesVersion: string
  locales: Map<string, Encoded>
}

const hashOf = (b: string) => createHash('sha256').update(b).digest('hex').slice(0, 12)

let cached: Promise<WidgetBundle> | null = null

async function build(): Promise<WidgetBundle> {
  const locales = new Map<string, Encoded>()
  for (const [tag, table] of Object.entries(TABLES)) if (tag !== 'en') locales.set(tag, encode(JSON.stringify(table)))
  const localesVersion = hashOf([...locales.values()].map((l) => l.etag).join())
  const out = await Bun.build({
    entrypoints: [new URL('./index.ts', import.meta.url).pathname],
    target: 'browser',
    format: 'iife',
    minify: true,
    define: { __PORTICO_LOCALES__: JSON.stringify(localesVersion) },
  })
  const artifact = out.outputs[0]
  if (!out.success || !artifact) throw new AggregateError(out.logs, 'widget bundle failed to build')
  const code = await artifact.text()
  const hash = hashOf(code)
  return { code, ...encode(code), etag: `"${hash}"`, version: `${SDK_MAJOR}.${hash}`, localesVersion, locales }
}

export function widgetBundle(): Promise<WidgetBundle> {
  cached ??= build().catch((err) => {
    cached = null
    throw err
  })
  return cached
}

export const bundlePath = (b: Pick<WidgetBundle, 'version'>) => `/widget/v${b.version}/portico.js`
