// The request log line is written field by field (src/logger.ts): whatever a path or request id holds,
// each line is one JSON object with the fields as sent.
import { expect, test } from 'bun:test'
import { flushLogs, logRequest, setLogLevel } from '../../src/logger.ts'

/** What `fn` writes to the log at level info (a Portico started earlier in this process may have set it to silent, as the test harness does). */
function captured(fn: () => void): string[] {
  flushLogs()
  setLogLevel('info')
  const out: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write
  try {
    fn()
    flushLogs()
  } finally {
    process.stdout.write = write
    setLogLevel('silent')
  }
  return out.join('').split('\n').filter((l) => l !== '')
}

test('each request line is one JSON object with its path and id as sent, quotes, controls and non-ASCII included', () => {
  const paths = ['/v1/applications/app_1', '/v1/a"b\\c', '/v1/line\nbreak\ttab', '/v1/é/\u2028/😀', '/v1/\ud800']
  const lines = captured(() => {
    for (const p of paths) logRequest('GET', p, 'applications.get', 200, 1.25, 'req_x')
    logRequest('POST', '/v1/x', undefined, 404, 0.5, 'id "with" quotes')
  })
  expect(lines).toHaveLength(paths.length + 1)
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  expect(parsed.slice(0, paths.length).map((o) => o.path)).toEqual(paths.map((p) => JSON.parse(JSON.stringify(p))))
  expect(parsed[0]).toMatchObject({ level: 'info', msg: 'request', method: 'GET', path: '/v1/applications/app_1', op: 'applications.get', status: 200, duration_ms: 1.25, request_id: 'req_x' })
  expect(parsed[paths.length]).toMatchObject({ method: 'POST', status: 404, request_id: 'id "with" quotes' })
  expect('op' in parsed[paths.length]!).toBe(false)
})
