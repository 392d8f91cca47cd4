// The process-local series of /metrics, moved by their hooks: DNS-provider operations counted by
// provider, operation and reason through the factory's wrapper, and webhook attempts by result.
import { describe, expect, test } from 'bun:test'
import { metered } from '../../src/adapters/dns-providers/metered.ts'
import { ProviderError, type DnsProvider } from '../../src/adapters/dns-providers/types.ts'
import { observeWebhookAttempts, registry } from '../../src/metrics.ts'

const value = async (line: RegExp) => {
  const text = await registry.metrics()
  const found = text.split('\n').find((l) => line.test(l))
  return found ? Number(found.split(' ').at(-1)) : 0
}

class Fake implements DnsProvider {
  readonly id = 'fakedns'
  readonly conventions = { apex: null, names: '', hostnames: '', txt: '', ttl: '', temporary: '', sources: { apex: '', names: '', hostnames: '', txt: '', ttl: '', temporary: '' } }
  readonly minTtl = 300
  private secret = 'kept'
  async listZones() {
    return [{ id: 'z1', name: `example.com-${this.secret}` }]
  }
  async readRecords(): Promise<never> {
    throw new Error('socket hang up')
  }
  async writeChanges(): Promise<void> {
    throw new ProviderError('rate_limited', 'Fake rate limit', 429, 30)
  }
  other() {
    return this.secret
  }
}

describe('provider calls', () => {
  test('calls by provider and operation; failures by reason; the adapter itself is unchanged', async () => {
    const p = metered(new Fake())
    expect(p.id).toBe('fakedns')
    expect(p.minTtl).toBe(300)
    expect(await p.listZones()).toEqual([{ id: 'z1', name: 'example.com-kept' }])
    expect((p as Fake).other()).toBe('kept')
    await expect(p.readRecords({ id: 'z1', name: 'example.com' })).rejects.toThrow('socket hang up')
    const err = await p.writeChanges({ id: 'z1', name: 'example.com' }, []).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ProviderError)
    expect((err as ProviderError).retryAfter).toBe(30)
    expect(await value(/^portico_provider_calls_total\{provider="fakedns",operation="list_zones"\}/)).toBe(1)
    expect(await value(/^portico_provider_calls_total\{provider="fakedns",operation="write_changes"\}/)).toBe(1)
    expect(await value(/^portico_provider_errors_total\{provider="fakedns",operation="write_changes",reason="rate_limited"\}/)).toBe(1)
    expect(await value(/^portico_provider_errors_total\{provider="fakedns",operation="read_records",reason="error"\}/)).toBe(1)
    expect(await value(/^portico_provider_errors_total\{provider="fakedns",operation="list_zones"/)).toBe(0)
  })
})

describe('webhook attempts', () => {
  test('by what became of the delivery: delivered, retry, failed', async () => {
    const before = await Promise.all(['delivered', 'retry', 'failed'].map((r) => value(new RegExp(`^portico_webhook_attempts_total\\{result="${r}"\\}`))))
    observeWebhookAttempts(['delivered', 'delivered', 'pending', 'failed'])
    const after = await Promise.all(['delivered', 'retry', 'failed'].map((r) => value(new RegExp(`^portico_webhook_attempts_total\\{result="${r}"\\}`))))
    expect(after.map((v, i) => v - before[i]!)).toEqual([2, 1, 1])
  })
})
