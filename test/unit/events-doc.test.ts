// docs/events.md is the event registry's, current (UPDATE_EVENTS_DOC=1 or `bun scripts/events-doc.ts`
// rewrites it), and names every event type of the catalogue with its payload fields.
import { describe, test, expect } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { eventsMarkdown } from '../../src/ops/events-doc.ts'
import { EVENT_TYPES, EVENTS } from '../../src/domain/events.ts'

const DOC = join(import.meta.dir, '../../docs/events.md')

describe('docs/events.md', () => {
  test('is generated from the registry and current', () => {
    const text = eventsMarkdown()
    if (process.env.UPDATE_EVENTS_DOC === '1') writeFileSync(DOC, text)
    expect(readFileSync(DOC, 'utf8')).toBe(text)
  })

  test('has a row and a section for every event type, with each data field', () => {
    const text = eventsMarkdown()
    for (const type of EVENT_TYPES) {
      expect(text).toContain(`| \`${type}\` |`)
      expect(text).toContain(`### \`${type}\``)
      for (const field of Object.keys((EVENTS[type].data as { properties: object }).properties)) expect(text).toContain(`| \`${field}\` |`)
    }
  })
})
