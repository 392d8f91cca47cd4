// The consent page's words: every locale the widget speaks, each with every English key and the same
// placeholders, a translation for every agent scope, and the page's language chosen from the browser's.
import { describe, test, expect } from 'bun:test'
import { CONSENT_LOCALES, say, sayPlain, speechOf } from '../../oauth/strings.ts'
import { LOCALE_TAGS } from '../../src/widget/i18n.ts'
import { AGENT_SCOPES } from '../../src/domain/rbac.ts'
import { PERSON_CONFIRMS } from '../../src/domain/person-confirm.ts'

// A language Portico can never speak: `qaa` is ISO 639-2's reserved-for-local-use code, so no locale file
// will ever be named after it (a real language like `cs` may be added any day).
const UNSPOKEN = 'qaa'

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

/**
 * The English the translations were made from, where English lives elsewhere (the scope catalogue,
 * src/domain/rbac.ts; what the person confirms, src/domain/person-confirm.ts). When those words change,
 * this fails until every locale is translated again and this is updated.
 */
const CONFIRMS_FROM =
  "You confirm each disconnect, and each write that would replace records already in a customer's zone, yourself: the agent gets a link for you, " +
  'you open it, sign in as yourself, see what would change and confirm there. Nothing the agent or its app answers for you counts as your yes.'
const TRANSLATED_FROM: Record<string, string> = {
  'domains:read': 'See your domain connections, their DNS records and status, and your applications',
  'domains:write': 'Add domains and check, apply or re-check their DNS setup',
  'domains:disconnect': 'Disconnect domains (you confirm each one before it goes)',
  'domains:records':
    'Write DNS records of its own choosing at your domains, instead of only the ones your application plans: these can include mail (MX) records, which decide where your email goes, and nameserver (NS) records, which hand the domain to another DNS host',
}

describe('consent page strings', () => {
  test('the consent page speaks every locale the widget speaks', () => {
    expect(Object.keys(CONSENT_LOCALES).sort()).toEqual([...LOCALE_TAGS].sort())
  })

  test('each locale has every English key with the same placeholders, no empty text, and every agent scope in its words', () => {
    const en = CONSENT_LOCALES.en!
    const { scopes: _, ...words } = en
    for (const [code, table] of Object.entries(CONSENT_LOCALES)) {
      expect({ code, keys: Object.keys(table).sort() }).toEqual({ code, keys: Object.keys(en).sort() })
      for (const [k, v] of Object.entries(words)) {
        const t = (table as unknown as Record<string, string>)[k]!
        expect({ code, k, ph: placeholders(t) }).toEqual({ code, k, ph: placeholders(v) })
        expect(t.trim().length).toBeGreaterThan(0)
      }
      expect({ code, scopes: Object.keys(table.scopes).sort() }).toEqual({ code, scopes: AGENT_SCOPES.map((s) => s.id).sort() })
      for (const v of Object.values(table.scopes)) expect(v.trim().length).toBeGreaterThan(0)
    }
    expect(LOCALE_TAGS as readonly string[]).not.toContain(UNSPOKEN)
    expect(Object.fromEntries(AGENT_SCOPES.map((s) => [s.id, s.description]))).toEqual(TRANSLATED_FROM)
    expect(PERSON_CONFIRMS).toBe(CONFIRMS_FROM)
  })

  test('the language is the browser\'s best known one, else English; Arabic and Hebrew are right to left', () => {
    const req = (al: string | null) => new Request('http://x/', al === null ? {} : { headers: { 'accept-language': al } })
    expect([speechOf(req('fr-CA,fr;q=0.9,en;q=0.8')).lang, speechOf(req('ar-EG')).dir, speechOf(req('he')).dir, speechOf(req(`${UNSPOKEN},ja;q=0.5`)).lang, speechOf(req(null)).lang, speechOf(req('*')).lang]).toEqual(['fr', 'rtl', 'rtl', 'ja', 'en', 'en'])
    expect(speechOf(req('ko')).s.approve).toBe('승인')
  })

  test('text from outside is escaped and isolated', () => {
    expect(say('Allow {client}?', { client: '<b>Evil</b> ‮' })).toBe('Allow <bdi>&#60;b&#62;Evil&#60;/b&#62; ‮</bdi>?')
  })
})

test('Japanese and Chinese: a workspace named in their own script meets the sentence without a space, a Latin client name keeps its space, and every value stays escaped and isolated', () => {
  const ja = CONSENT_LOCALES.ja!
  expect(say(ja.titleSignedIn, { client: 'Acme', workspace: '日本の店' })).toBe('<bdi>Acme</bdi> に<bdi>日本の店</bdi>へのアクセスを許可しますか？')
  expect(sayPlain(ja.pageTitle, { client: '日本の店' })).toBe('日本の店を承認しますか？')
  expect(say(ja.pageTitle, { client: '<b>x</b>' })).toBe('<bdi>&#60;b&#62;x&#60;/b&#62;</bdi> を承認しますか？')
  expect(say(CONSENT_LOCALES.en!.titleSignedIn, { client: 'Acme', workspace: '日本の店' })).toContain(' <bdi>日本の店</bdi>')
})
