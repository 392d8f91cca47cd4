import { describe, test, expect } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { newWebhookSecret, signWebhook, verifyWebhook, webhookHeaders } from '../../src/adapters/webhook-signing.ts'

describe('Standard Webhooks signing', () => {
  test('reproduces the published test vector', () => {
    const sig = signWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('the standardwebhooks library verifies what we sign; a changed byte fails', () => {
    const secret = newWebhookSecret()
    expect(secret).toStartWith('whsec_')
    const body = JSON.stringify({ id: 'evt_1', type: 'connection.live', domain: 'shop.example.com' })
    const now = Math.floor(Date.now() / 1000)
    const headers = webhookHeaders(secret, 'evt_1', now, body)
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(secret).verify(body.replace('live', 'fail'), headers)).toThrow()
    expect(verifyWebhook(secret, headers, body, now)).toBe(true)
    expect(verifyWebhook(secret, headers, body, now + 301)).toBe(false)
    expect(verifyWebhook(newWebhookSecret(), headers, body, now)).toBe(false)
  })
})
