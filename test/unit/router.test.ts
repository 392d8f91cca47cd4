import { describe, test, expect } from 'bun:test'
import { Router } from '../../src/http/router.ts'

describe('router', () => {
  const r = new Router<string>()
  r.add('GET', '/v1/connections', 'list')
  r.add('GET', '/v1/connections:count', 'count')
  r.add('GET', '/v1/connections/{id}', 'get')
  r.add('POST', '/v1/connections/{id}:recheck', 'recheck')
  r.add('POST', '/v1/connections/{id}/apply', 'apply')
  r.add('POST', '/v1/tenants:provision', 'provision')

  test('custom-method suffixes and parameters', () => {
    expect(r.match('GET', '/v1/connections:count')).toEqual({ value: 'count', params: {} })
    expect(r.match('GET', '/v1/connections/con_1')).toEqual({ value: 'get', params: { id: 'con_1' } })
    expect(r.match('POST', '/v1/connections/con_1:recheck')).toEqual({ value: 'recheck', params: { id: 'con_1' } })
    expect(r.match('POST', '/v1/connections/con%201/apply')).toEqual({ value: 'apply', params: { id: 'con 1' } })
    expect(r.match('POST', '/v1/tenants:provision')).toEqual({ value: 'provision', params: {} })
  })

  test('a colon id does not reach the plain parameter route; unknown paths and methods', () => {
    expect(r.match('GET', '/v1/connections/con_1:recheck')).toBe('method')
    expect(r.match('POST', '/v1/connections/:recheck')).toBeNull()
    expect(r.match('DELETE', '/v1/connections')).toBe('method')
    expect(r.match('GET', '/v1/nope')).toBeNull()
    expect(r.match('GET', '/v1/connections/%E0%A4%A')).toBeNull()
    expect(r.allowed('/v1/connections/x:recheck')).toEqual(['POST'])
  })

  test('a path matched again answers the same, and a caller changing its params changes no later match', () => {
    for (let i = 0; i < 3; i++) {
      const m = r.match('GET', '/v1/connections/con_7')
      expect(m).toEqual({ value: 'get', params: { id: 'con_7' } })
      ;(m as { params: Record<string, string> }).params.id = 'changed'
    }
    expect(r.match('POST', '/v1/connections/con_7')).toBe('method')
    expect(r.match('GET', '/v1/connections/con_7')).toEqual({ value: 'get', params: { id: 'con_7' } })
  })

  test('duplicate routes are refused', () => {
    expect(() => r.add('GET', '/v1/connections/{id}', 'again')).toThrow()
  })
})
