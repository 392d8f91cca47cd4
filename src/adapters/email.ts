// The SMTP adapter: verifies an integrator's SMTP settings with a real SMTP conversation (connect,
// TLS as asked, authenticate) through nodemailer, connecting to an address the caller checked.
import nodemailer from 'nodemailer'

export interface SmtpSettings {
  host: string
  /** The checked address to connect to (the host name is still used for TLS). */
  address: string
  port: number
  username: string | null
  password: string | null
  tls: 'implicit' | 'starttls' | 'none'
}

/** A transport to the checked address, TLS as asked, the host name kept for TLS. */
function transportFor(s: SmtpSettings, timeoutMs: number) {
  return nodemailer.createTransport({
    host: s.address,
    port: s.port,
    secure: s.tls === 'implicit',
    requireTLS: s.tls === 'starttls',
    ignoreTLS: s.tls === 'none',
    tls: { servername: s.host },
    auth: s.username ? { user: s.username, pass: s.password ?? '' } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  })
}

export async function verifySmtp(s: SmtpSettings, timeoutMs = 10_000): Promise<{ ok: true } | { ok: false; error: string }> {
  const transport = transportFor(s, timeoutMs)
  try {
    await transport.verify()
    return { ok: true }
  } catch (err) {
    const e = err as { message?: string; responseCode?: number }
    return { ok: false, error: e.responseCode ? `${e.responseCode}: ${e.message}` : (e.message ?? String(err)) }
  } finally {
    transport.close()
  }
}

export interface MailMessage {
  from: string
  fromName: string | null
  replyTo: string | null
  to: string
  subject: string
  text: string
}

/** Sends one message through the SMTP settings (the same connection rules as `verifySmtp`). */
export async function sendSmtp(s: SmtpSettings, m: MailMessage, timeoutMs = 10_000): Promise<void> {
  const transport = transportFor(s, timeoutMs)
  try {
    await transport.sendMail({
      from: m.fromName ? { name: m.fromName, address: m.from } : m.from,
      to: m.to,
      replyTo: m.replyTo ?? undefined,
      subject: m.subject,
      text: m.text,
    })
  } finally {
    transport.close()
  }
}
