// A failover ends every pooled session; each is found on its next use. Work that is safe to begin again
// (a read, a transaction whose BEGIN failed) meets a fresh session instead of a 503, while a database
// really gone is still refused at once.
import { describe, expect, test } from 'bun:test'
import { againOnEndedSession, ENDED_SESSION_TRIES, sessionEnded } from '../../src/db/unavailable.ts'

const ended = () => Object.assign(new Error('terminating connection due to administrator command'), { code: 'ERR_POSTGRES_SERVER_ERROR', errno: '57P01' })
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })

describe('a session the server ended', () => {
  test('is told apart from a database that refuses connections and from a constraint', () => {
    expect(sessionEnded(ended())).toBe(true)
    expect(sessionEnded(Object.assign(new Error('closed'), { code: 'ERR_POSTGRES_CONNECTION_CLOSED' }))).toBe(true)
    expect(sessionEnded(new Error('wrapped', { cause: ended() }))).toBe(true)
    expect(sessionEnded(refused())).toBe(false)
    expect(sessionEnded(Object.assign(new Error('duplicate key'), { errno: '23505' }))).toBe(false)
  })

  test('the work begins again on the next session: the caller sees the answer, not the failover', async () => {
    let calls = 0
    const out = await againOnEndedSession(async () => {
      if (++calls <= 3) throw ended()
      return 'answered'
    })
    expect({ out, calls }).toEqual({ out: 'answered', calls: 4 })
  })

  test('a refused connection is not tried again, and the tries are bounded', async () => {
    let calls = 0
    await expect(againOnEndedSession(async () => (calls++, Promise.reject(refused())))).rejects.toThrow('ECONNREFUSED')
    expect(calls).toBe(1)
    calls = 0
    await expect(againOnEndedSession(async () => (calls++, Promise.reject(ended())))).rejects.toThrow('administrator command')
    expect(calls).toBe(ENDED_SESSION_TRIES)
  })
})
