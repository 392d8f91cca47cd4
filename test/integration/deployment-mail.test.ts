// The deployment's own mail (SMTP_URL, MAIL_FROM): a person of a workspace that saved no email sender
// still gets their sign-in link, from the operator's sender, through a real SMTP server on loopback; a
// production start without any way to mail people says so. The settings are parsed strictly.
import { describe, test, expect, beforeAll, afterAll } from 'bun:test'
import { SMTPServer } from 'smtp-server'
import type { AddressInfo } from 'node:net'
import { livePortico, mailSettled, ownerEmail, type LivePortico } from '../harness/agents.ts'
import { provision } from '../harness/portico.ts'
import { loadConfig } from '../../src/config.ts'
import { peopleMailWarning } from '../../oauth/mail.ts'

let smtp: SMTPServer
let port: number
const received: { from: string; to: string[]; data: string }[] = []

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, done) {
      let data = ''
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')))
      stream.on('end', () => {
        received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data })
        done()
      })
    },
  })
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', () => resolve()))
  port = (smtp.server.address() as AddressInfo).port
})

afterAll(async () => {
  await new Promise<void>((resolve) => smtp?.close(() => resolve()))
})

describe('the deployment\'s own mail', () => {
  test('a workspace with no sender: the sign-in link goes out through SMTP_URL, from MAIL_FROM', async () => {
    const p: LivePortico = await livePortico({ SMTP_URL: `smtp://127.0.0.1:${port}?tls=none`, MAIL_FROM: 'Portico <no-reply@portico.test>' }, { realMail: true })
    try {
      const ws = await provision(p)
      const owner = await ownerEmail(p.url, ws.apiKey)
      const asked = await fetch(`${p.url}/oauth/agents`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ email: owner }).toString() })
      expect(asked.status).toBe(200)
      await mailSettled()
      const mail = received.find((m) => m.to.includes(owner))!
      expect(mail).toBeDefined()
      expect(mail.from).toBe('no-reply@portico.test')
      expect(mail.data).toContain('From: Portico <no-reply@portico.test>')
      expect(mail.data.replace(/=\r?\n/g, '')).toContain(`${p.url}/oauth/signin/`)
    } finally {
      await p.stop()
    }
  })

  test('SMTP_URL and MAIL_FROM are read strictly; production without them says so at start', () => {
    const base = { SECRETS_KEY: '11'.repeat(32), DNS_RESOLVERS: '127.0.0.1:53', APP_ENV: 'test' }
    expect(loadConfig({ ...base, SMTP_URL: 'smtps://mailer:p%40ss@smtp.example.com', MAIL_FROM: '"Example Ops" <ops@example.com>' }).deploymentMail).toEqual({
      host: 'smtp.example.com',
      port: 465,
      username: 'mailer',
      password: 'p@ss',
      tls: 'implicit',
      from: 'ops@example.com',
      fromName: 'Example Ops',
    })
    expect(loadConfig({ ...base, SMTP_URL: 'smtp://smtp.example.com', MAIL_FROM: 'ops@example.com' }).deploymentMail).toMatchObject({ port: 587, tls: 'starttls', fromName: null })
    expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://smtp.example.com' })).toThrow(/SMTP_URL and MAIL_FROM go together/)
    expect(() => loadConfig({ ...base, SMTP_URL: 'https://smtp.example.com', MAIL_FROM: 'ops@example.com' })).toThrow(/smtp:\/\/ or smtps:\/\//)
    expect(() => loadConfig({ ...base, SMTP_URL: 'smtp://smtp.example.com', MAIL_FROM: 'not an address' })).toThrow(/MAIL_FROM/)
    expect(peopleMailWarning({ appEnv: 'production', deploymentMail: null })).toContain('Set SMTP_URL and MAIL_FROM')
    expect(peopleMailWarning({ appEnv: 'production', deploymentMail: loadConfig({ ...base, SMTP_URL: 'smtp://h.example', MAIL_FROM: 'a@b.example' }).deploymentMail })).toBeNull()
    expect(peopleMailWarning({ appEnv: 'development', deploymentMail: null })).toBeNull()
  })
})
