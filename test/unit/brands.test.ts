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

  // The names that passed before skeletons (issue 21): Latin alpha, a digit, Cherokee letters, Cyrillic ge.
  test.each([
    ['Clɑude', 'Anthropic'], // U+0251 Latin small alpha
    ['Cl4ude', 'Anthropic'],
    ['Ꮯlaude', 'Anthropic'], // U+13DF Cherokee
    ['ᎪnthropiᏟ', 'Anthropic'], // U+13AA, U+13DF Cherokee
    ['Cursoг', 'Cursor'], // U+0433 Cyrillic ge
    ['Perplexity', 'Perplexity'],
    ['Windsurf', 'Windsurf'],
    ['Mistral Le Chat', 'Mistral'],
    ['Le Chat', 'Mistral'],
    ['Grok', 'xAI'],
    ['Portico', 'Portico'],
    ['P0rtic0 admin', 'Portico'],
  ])('%s claims %s', (name, brand) => {
    expect(names(name)).toContain(brand)
  })

  test('every confusable name is refused for a redirect elsewhere, and for loopback it is only local', () => {
    for (const n of ['Clɑude', 'Cl4ude', 'Ꮯlaude', 'ᎪnthropiᏟ', 'Cursoг', 'Perplexity', 'Windsurf', 'Mistral Le Chat', 'Grok', 'Portico']) {
      expect({ n, imitates: judgeClient(n, ['https://agent.example/cb']).imitates }).toEqual({ n, imitates: expect.any(String) })
    }
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
  test('a brand app scheme is allowed but never verified: any program can register a scheme', () => {
    expect(judgeClient('Cursor', ['cursor://anysphere.cursor-retrieval/oauth/callback'])).toEqual({ imitates: null, verifiedAs: null, local: false })
    for (const [name, uri] of [['Claude', 'claude://cb'], ['VS Code', 'vscode://cb'], ['Cursor', 'cursor://cb'], ['Slack', 'slack://cb']]) {
      expect(judgeClient(name!, [uri!]).verifiedAs).toBeNull()
    }
    // Mixed: one https redirect of the brand and its scheme is not verified either.
    expect(judgeClient('Claude', ['https://claude.ai/cb', 'claude://cb']).verifiedAs).toBeNull()
  })
  test('Portico is never verified for an agent client', () => {
    expect(judgeClient('Portico', ['https://portico.example/cb']).imitates).toBe('Portico')
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
