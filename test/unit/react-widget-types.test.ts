// packages/react types `window.Portico` with the widget's own types, copied by its generator: the copy
// is what the generator makes of src/widget/types.ts now (a change to the widget's API shows here).
import { test, expect } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { widgetTypes } from '../../packages/react/scripts/generate.ts'

test('packages/react/src/widget-types.ts is the widget\'s types as generated now', () => {
  expect(readFileSync(join(import.meta.dir, '../../packages/react/src/widget-types.ts'), 'utf8')).toBe(widgetTypes())
})
