// Counts every DNS-provider API operation for /metrics (src/metrics.ts): calls by provider and
// operation, and failures by the reason a person can act on (the ProviderError kind). Every adapter
// Portico opens comes through here (src/adapters/dns-providers/index.ts), so no adapter counts itself.
import { observeProviderCall } from '../../metrics.ts'
import { ProviderError, type DnsProvider } from './types.ts'

const OPERATIONS = { listZones: 'list_zones', readRecords: 'read_records', writeChanges: 'write_changes' } as const

export function metered(p: DnsProvider): DnsProvider {
  const counted =
    <A extends unknown[], R>(op: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const r = await fn.apply(p, args)
        observeProviderCall(p.id, op, null)
        return r
      } catch (err) {
        observeProviderCall(p.id, op, err instanceof ProviderError ? err.kind : 'error')
        throw err
      }
    }
  // A view over the adapter: its own fields (id, minTtl, uniformTtl, extra methods) stay reachable.
  return new Proxy(p, {
    get(target, key) {
      const op = OPERATIONS[key as keyof typeof OPERATIONS]
      const v = Reflect.get(target, key)
      if (typeof v !== 'function') return v
      return op ? counted(op, v as (...a: unknown[]) => Promise<unknown>) : (v as (...a: unknown[]) => unknown).bind(target)
    },
  })
}
