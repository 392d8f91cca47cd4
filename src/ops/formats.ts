// String formats our schemas use, registered with TypeBox once (it refuses unknown formats). Elysia
// registers some of these too; whichever comes first wins, and both follow the same RFCs.
import { FormatRegistry } from '@sinclair/typebox'

const FORMATS: Record<string, (v: string) => boolean> = {
  // RFC 3339 date-time, as produced by Date.prototype.toISOString and accepted from clients.
  'date-time': (v) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(v) && !Number.isNaN(Date.parse(v)),
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
  uri: (v) => {
    try {
      new URL(v)
      return /^[a-z][a-z0-9+.-]*:/i.test(v)
    } catch {
      return false
    }
  },
  ipv4: (v) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(v),
}

for (const [name, check] of Object.entries(FORMATS)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
}
