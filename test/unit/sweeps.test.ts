// A sweep's run as its worker makes it: an operator reading the log can tell which sweep broke.
import { describe, expect, spyOn, test } from 'bun:test'
import { runSweep } from '../../src/jobs/index.ts'
import { log } from '../../src/logger.ts'

describe('a sweep run', () => {
  test('a failing drain is logged with its queue name and fails the job', async () => {
    const error = spyOn(log, 'error').mockImplementation(() => {})
    try {
      const run = runSweep({ queue: 'monitor-sweep', drain: () => Promise.reject(new Error('connection terminated')) })
      await expect(run).rejects.toThrow('connection terminated')
      expect(error).toHaveBeenCalledTimes(1)
      expect(error.mock.calls[0]![0]).toBe('sweep failed')
      expect(error.mock.calls[0]![1]).toMatchObject({ queue: 'monitor-sweep', error: 'connection terminated' })
    } finally {
      error.mockRestore()
    }
  })

  test('a drain that works answers how many it handled', async () => {
    expect(await runSweep({ queue: 'verify-sweep', drain: async () => 3 })).toBe(3)
  })
})
