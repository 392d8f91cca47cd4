// Mail to a person of a workspace (a sign-in link), sent through the workspace's own email sender: the
// most recently verified SMTP sender of one of its applications (PUT /v1/applications/{id}/email-sender),
// connected to an address checked like any customer target. Without one, through the deployment's own
// (SMTP_URL and MAIL_FROM, the operator's: trusted, connected as configured). Without either, outside
// production the message is printed to the log (development: the link is there to click); in
// production it is not sent and a warning says why (and the start said so already: src/server.ts).
import type { Config } from '../src/config.ts'
import type { Sql } from '../src/db/sql.ts'
import type { Dns } from '../src/adapters/dns.ts'
import { verifiedSenderOfTenant } from '../src/db/email-senders.ts'
import { sendSmtp } from '../src/adapters/email.ts'
import { guardUrl } from '../src/adapters/ssrf.ts'
import { addressResolver } from '../src/domain/webhook-delivery.ts'
import { decrypt } from '../src/crypto.ts'
import { errorFields, log } from '../src/logger.ts'

export interface PersonMail {
  tenantId: string
  to: string
  subject: string
  text: string
}

/** How a message went: through the workspace's sender, to the log (not production), or nowhere. */
export type MailOutcome = 'sent' | 'logged' | 'unsent'

export type MailPeople = (m: PersonMail) => Promise<MailOutcome>

const SMTP_PASSWORD = 'smtp-password'

/** What a start must say when people may get no mail at all: production without SMTP_URL (src/server.ts logs it). */
export function peopleMailWarning(config: Pick<Config, 'appEnv' | 'deploymentMail'>): string | null {
  if (config.appEnv !== 'production' || config.deploymentMail) return null
  return 'no SMTP_URL and MAIL_FROM: people of a workspace that saved no verified email sender get no sign-in links (consent, Your agents, confirmations) and cannot sign in. Set SMTP_URL and MAIL_FROM'
}

export function workspaceMail(deps: { config: Config; db: Sql; dns: Dns }): MailPeople {
  return async (m) => {
    const sender = await verifiedSenderOfTenant(deps.db, m.tenantId)
    const own = deps.config.deploymentMail
    if (!sender && own) {
      try {
        await sendSmtp({ host: own.host, address: own.host, port: own.port, username: own.username, password: own.password, tls: own.tls }, { from: own.from, fromName: own.fromName, replyTo: null, to: m.to, subject: m.subject, text: m.text })
        return 'sent'
      } catch (err) {
        log.warn('mail to a person failed (the deployment\'s SMTP_URL)', { tenant_id: m.tenantId, ...errorFields(err) })
        return 'unsent'
      }
    }
    if (!sender) {
      if (deps.config.appEnv !== 'production') {
        log.info('mail to a person (no email sender saved in this workspace; printed outside production)', { tenant_id: m.tenantId, to: m.to, subject: m.subject, text: m.text })
        return 'logged'
      }
      log.warn('mail to a person not sent: the workspace has no verified email sender and the deployment no SMTP_URL', { tenant_id: m.tenantId })
      return 'unsent'
    }
    const host = sender.smtp_host
    const guard = await guardUrl(`https://${host.includes(':') ? `[${host}]` : host}/`, { allowLoopback: deps.config.webhookAllowLoopback, resolve: addressResolver(deps.dns) })
    if (!guard.ok) {
      log.warn('mail to a person not sent: the sender\'s host is refused', { tenant_id: m.tenantId, reason: guard.reason })
      return 'unsent'
    }
    try {
      await sendSmtp(
        {
          host,
          address: guard.address,
          port: sender.smtp_port,
          username: sender.smtp_username,
          password: sender.password_sealed ? decrypt(deps.config.secretsKey, sender.password_sealed, SMTP_PASSWORD) : null,
          tls: sender.tls,
        },
        { from: sender.from_address, fromName: sender.from_name, replyTo: sender.reply_to, to: m.to, subject: m.subject, text: m.text },
      )
      return 'sent'
    } catch (err) {
      log.warn('mail to a person failed', { tenant_id: m.tenantId, ...errorFields(err) })
      return 'unsent'
    }
  }
}
