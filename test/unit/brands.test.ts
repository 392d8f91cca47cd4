// Brand-imitation rules for agent client names (oauth/brands.ts).
import { describe, test, expect } from 'bun:test'
import { claimedBrands, foldName, judgeClient } from '../../oauth/brands.ts'

const names = (n: string) => claimedBrands(n).map((b) => b.name)

describe('a name claims a brand', () => {
  test.each([
    ['Google', 'Google'],
    ['GOOGLE DRIVE helper', 'Google'],
    ['Gооgle', 'Google'], // Cyrillic о
    ['Gοοgle', 'Google'], // Greek ο
    ['G0og1e', 'Google'],
    ['GoogIe', 'Google'], // capital I read as l
    ['Ｇｏｏｇｌｅ', 'Google'], // fullwidth (NFKC)
    ['g.o.o.g.l.e', 'Google'],
    ['Micro soft', 'Microsoft'],
    ['Mircosoft', null],
    ['Open-AI Agent', 'OpenAI'],
    ['ChatGPT', 'OpenAI'],
    ['Claude', 'Anthropic'],
    ['Ánthropic', 'Anthropic'],
    ['Cloudfłare', 'Cloudflare'],
    ['Slack bot', 'Slack'],
    ['AWS helper', 'Amazon'],
    ['Stripe', 'Stripe'],
    ['Gith ub', 'GitHub'],
    ['Amazorn', null],
    ['Arnazon', 'Amazon'], // rn reads as m
  ])('%s', (name, brand) => {
    expect(names(name)[0] ?? null).toBe(brand)
  })

  test('ordinary names claim nothing, even when a short brand hides inside a word', () => {
    for (const n of ['My Agent', 'Shell helper', 'Applesauce', 'Slackline planner', 'Awsome tool', 'Metadata fetcher']) expect(names(n)).toEqual([])
  })

  test('folding drops case, spacing, punctuation and accents', () => {
    expect(foldName(' Ｃl-a u d é ')).toBe('claude')
  })
})

describe('judging a client', () => {
  test('a brand with its own redirects is verified', () => {
    expect(judgeClient('Claude', ['https://claude.ai/api/mcp/auth_callback'])).toEqual({ imitates: null, verifiedAs: 'Anthropic', local: false })
  })
  test('a brand with only loopback redirects is allowed but local, not verified', () => {
    expect(judgeClient('Claude Code', ['http://localhost:4000/cb', 'http://127.0.0.1/cb'])).toEqual({ imitates: null, verifiedAs: null, local: true })
  })
  test('a brand app scheme belongs to the brand', () => {
    expect(judgeClient('Cursor', ['cursor://anysphere.cursor-retrieval/oauth/callback']).imitates).toBeNull()
  })
  test('a brand redirecting elsewhere imitates it, whatever the look-alike host', () => {
    expect(judgeClient('Google', ['https://accounts.google.com.evil.example/cb']).imitates).toBe('Google')
    expect(judgeClient('Google', ['https://xn--ggle-55da.com/cb']).imitates).toBe('Google')
    expect(judgeClient('Google', ['https://accounts.google.com/cb', 'https://evil.example/cb']).imitates).toBe('Google')
  })
  test('no brand: nothing to imitate', () => {
    expect(judgeClient('My Agent', ['https://agent.example/cb'])).toEqual({ imitates: null, verifiedAs: null, local: false })
  })
})
