// Answers written from parts already serialised (src/json.ts, a list page of connection views) are
// byte for byte what JSON.stringify writes for their value.
import { expect, test } from 'bun:test'
import { isoTime, jsonText, withJsonText } from '../../src/json.ts'
import { ConnectionViews, pageAnswer, type ConnectionView } from '../../src/domain/connection-views.ts'

const view = (i: number, over: Record<string, unknown> = {}) => ({ id: `con_${i}`, domain: `shop${i}.example.com`, metadata: { note: 'a "quoted" \\ note\n', emoji: '😀', lone: '\ud800' }, records: [{ type: 'CNAME' }], live_at: null, ...over }) as unknown as ConnectionView

test('a list page answer is the JSON of its value, with and without a next cursor, empty or not', () => {
  for (const [page, cursor] of [
    [[view(1), view(2, { status: 'live' })], 'Y29uXzI'],
    [[view(3)], undefined],
    [[], undefined],
    [[withJsonText(view(4), JSON.stringify(view(4)))], 'x"y'],
  ] as [ConnectionView[], string | undefined][]) {
    const body = pageAnswer(page, cursor)
    expect(jsonText(body)).toBe(JSON.stringify(body))
    expect(JSON.parse(jsonText(body)!)).toEqual({ connections: JSON.parse(JSON.stringify(page)), count: page.length, ...(cursor ? { next_cursor: cursor } : {}) })
  }
})

test('a value without a text of its own is serialised as JSON.stringify does; isoTime is what a Date serialises to', () => {
  expect(jsonText({ a: 1 })).toBe('{"a":1}')
  expect(jsonText(undefined)).toBeUndefined()
  expect(jsonText('x')).toBe('"x"')
  const d = new Date('2026-12-06T22:53:21.399Z')
  expect(isoTime(d)).toBe(JSON.parse(JSON.stringify(d)))
  expect(isoTime(new Date(d.getTime()))).toBe('2026-12-06T22:53:21.399Z')
})

test('the view cache keeps what is read: when full, the oldest view not read since goes first', () => {
  const views = new ConnectionViews(2)
  views.set('a', '1', view(1), 0)
  views.set('b', '1', view(2), 0)
  expect(views.get('a', '1', 0)).toBeDefined()
  views.set('c', '1', view(3), 0)
  expect(views.get('b', '1', 0)).toBeUndefined()
  expect(views.get('a', '1', 0)).toBeDefined()
  expect(views.get('c', '1', 0)).toBeDefined()
  expect(views.get('a', '2', 0)).toBeUndefined() // another row version is not this view
  expect(views.size).toBe(2)
})

test('page answers are remembered within their budget: when over it, the oldest answer not asked for since goes first', () => {
  const answer = (i: number) => pageAnswer([view(i)], undefined)
  const cost = (key: string, a: object) => key.length + 2 * jsonText(a)!.length
  const a = answer(1)
  const views = new ConnectionViews(10, cost('a', a) * 2)
  expect(views.rememberPage('a', a, 0)).toBe(a)
  views.rememberPage('b', answer(2), 0)
  expect(views.knownPage('a', 0)).toBe(a) // asked for: given another round
  views.rememberPage('c', answer(3), 0)
  expect(views.knownPage('b', 0)).toBeUndefined()
  expect(views.knownPage('a', 0)).toBe(a)
  expect(views.knownPage('c', 0)?.connections[0]?.id).toBe('con_3')
  expect(views.knownPage('a', 11 * 60_000)).toBeUndefined() // expired, as views do (row versions come round)
  // One answer larger than the whole budget is not kept.
  views.rememberPage('big', pageAnswer(Array.from({ length: 20 }, (_, i) => view(i)), undefined), 0)
  expect(views.knownPage('big', 0)).toBeUndefined()
})
