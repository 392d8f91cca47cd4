// How an Authorization header presents a token (src/http/dpop.ts): the plain `Bearer <token>` form is
// read without the general pattern, and every other form still reads as the pattern says.
import { expect, test } from 'bun:test'
import { presentation } from '../../src/http/dpop.ts'

const read = (authorization: string | null, dpop?: string) => {
  const headers = new Headers()
  if (authorization !== null) headers.set('authorization', authorization)
  if (dpop) headers.set('dpop', dpop)
  return presentation({ headers, method: 'GET', url: 'http://portico.test/v1/applications/app_1?x=1' }, 'https://api.example')
}

test('Bearer and DPoP forms read as before the plain form had its own path', () => {
  expect(read('Bearer tok_1')).toEqual({ token: 'tok_1', presented: { scheme: 'bearer', method: 'GET', url: '', proof: null } })
  expect(read('bearer   tok_1  ')).toEqual({ token: 'tok_1', presented: { scheme: 'bearer', method: 'GET', url: '', proof: null } })
  expect(read('DPoP tok_2', 'proof')).toEqual({ token: 'tok_2', presented: { scheme: 'dpop', method: 'GET', url: 'https://api.example/v1/applications/app_1', proof: 'proof' } })
  for (const refused of [null, '', 'Bearer', 'Bearer ', 'Bearer a b', 'Bearer a\tb', 'Basic abc', 'Token abc']) expect(read(refused)).toBeNull()
})
