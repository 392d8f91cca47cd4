// HTTP/1.x spoken byte for byte, for the tests of what a server puts on the wire (framing, HEAD,
// HTTP/1.0, how many writes an answer takes): fetch would hide exactly that.
import { connect } from 'node:net'

/** Sends `raw` on a fresh loopback connection to `port` and reads until the server closes it. */
export function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    const c = connect(port, '127.0.0.1', () => c.write(raw))
    c.on('data', (d: Buffer) => chunks.push(d))
    c.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
    c.on('error', reject)
  })
}

/** The status code of a raw answer. */
export const statusOf = (answer: string) => Number(answer.slice(9, 12))

/** A header field's value in a raw answer, or null. */
export const headerOf = (answer: string, name: string) =>
  new RegExp(`\\r\\n${name}:[ \\t]*([^\\r]*)`, 'i').exec(answer.slice(0, answer.indexOf('\r\n\r\n')))?.[1] ?? null
