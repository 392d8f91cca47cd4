import { describe, test, expect } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { newWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from '../../src/adapters/webhook-signing.ts'

describe('Standard Webhooks signing', () => {
  test('reproduces the published test vector', () => {
    const sig = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('a new secret is whsec_ + base64 of 32 random bytes, different each time', () => {
    const a = newWebhookSecret()
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/)
    expect(Buffer.from(a.slice('whsec_'.length), 'base64').length).toBe(32)
    expect(newWebhookSecret()).not.toBe(a)
  })

  test('the standardwebhooks library verifies what we sign; a changed byte fails', () => {
    const secret = newWebhookSecret()
    const body = JSON.stringify({ id: 'evt_1', type: 'connection.live', domain: 'shop.example.com' })
    const now = Math.floor(Date.now() / 1000)
    const headers = webhookHeaders(secret, 'evt_1', now, body)
    expect(headers['content-type']).toBe('application/json')
    expect(headers['webhook-id']).toBe('evt_1')
    expect(headers['webhook-timestamp']).toBe(String(now))
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(secret).verify(body.replace('live', 'fail'), headers)).toThrow()
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow()
  })

  test('our verifier agrees with the library, including its signatures, and enforces the 5-minute window', () => {
    const secret = newWebhookSecret()
    const body = '{"type":"connection.failed"}'
    const now = 1_700_000_000
    const theirs = new Webhook(secret).sign('evt_2', new Date(now * 1000), body)
    const headers = { 'Webhook-Id': 'evt_2', 'Webhook-Timestamp': String(now), 'Webhook-Signature': theirs }
    expect(theirs).toBe(signWebhook(secret, 'evt_2', now, body))
    expect(verifyWebhook(secret, headers, body, now)).toBe(true)
    expect(verifyWebhook(secret, new Headers(headers), body, now + 300)).toBe(true)
    expect(verifyWebhook(secret, headers, body, now + 301)).toBe(false)
    expect(verifyWebhook(secret, headers, body, now - 301)).toBe(false)
    expect(verifyWebhook(secret, headers, body + ' ', now)).toBe(false)
    expect(verifyWebhook(newWebhookSecret(), headers, body, now)).toBe(false)
    expect(verifyWebhook(secret, { ...headers, 'Webhook-Id': 'evt_3' }, body, now)).toBe(false)
  })

  test('a signature list from a rotation verifies when any v1 entry matches', () => {
    const [oldSecret, newSecret] = [newWebhookSecret(), newWebhookSecret()]
    const body = '{}'
    const sig = `${signWebhook(oldSecret, 'evt_4', 10, body)} ${signWebhook(newSecret, 'evt_4', 10, body)}`
    const headers = { 'webhook-id': 'evt_4', 'webhook-timestamp': '10', 'webhook-signature': sig }
    expect(verifyWebhook(newSecret, headers, body, 10)).toBe(true)
    expect(verifyWebhook(oldSecret, headers, body, 10)).toBe(true)
    expect(verifyWebhook(newSecret, { ...headers, 'webhook-signature': sig.replaceAll('v1,', 'v2,') }, body, 10)).toBe(false)
  })
})
