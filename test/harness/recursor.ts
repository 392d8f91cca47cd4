// A real caching resolver (Debian pdns-recursor) in front of the test PowerDNS, as production has
// between Portico and the world: it caches answers and, above all, NXDOMAIN for the zone's negative
// TTL (RFC 2308; PowerDNS's default SOA gives 3,600 s), with its negative cache left at its default.
// Every name is forwarded to the authoritative server (`forward-zones=.`), root hints and the
// security poll are off: it sends nothing beyond loopback.
import { spawn, type Subprocess } from 'bun'
import { mkdtempSync, chmodSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Recursor {
  /** `127.0.0.1:PORT`, for DNS_RESOLVERS. */
  address: string
  stop(): Promise<void>
}

const setpriv = Bun.which('setpriv')

/** A loopback port free for both UDP and TCP now (the recursor binds both). */
async function freePort(): Promise<number> {
  for (;;) {
    const t = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
    const port = t.port
    try {
      const u = await Bun.udpSocket({ hostname: '127.0.0.1', port })
      u.close()
      return port
    } catch {
      // Taken for UDP by someone else: another.
    } finally {
      t.stop(true)
    }
  }
}

/** Starts a recursor forwarding every name to `upstream`; a port taken between the check and the
 * recursor's bind (other processes share the machine) is tried again with another. */
export async function startRecursor(upstream: string): Promise<Recursor> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(upstream)
    } catch (err) {
      if (attempt >= 3 || !/Address already in use/.test(String(err))) throw err
    }
  }
}

/** One start on a fresh port (`upstream`: `host:port` of an authoritative server). */
async function startOnce(upstream: string): Promise<Recursor> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-recursor-'))
  chmodSync(dir, 0o755)
  const port = await freePort()
  const lines = [
    'local-address=127.0.0.1',
    `local-port=${port}`,
    `forward-zones=.=${upstream}`,
    'hint-file=no',
    'security-poll-suffix=',
    'dnssec=off',
    'daemon=no',
    `socket-dir=${dir}`,
    'quiet=yes',
    'threads=1',
    'allow-from=127.0.0.0/8',
  ]
  writeFileSync(join(dir, 'recursor.conf'), lines.join('\n') + '\n')
  const cmd = ['pdns_recursor', `--config-dir=${dir}`]
  const proc: Subprocess = spawn(setpriv ? [setpriv, '--pdeathsig', 'KILL', ...cmd] : cmd, { stdout: 'ignore', stderr: 'pipe' })
  const killNow = () => proc.kill('SIGKILL')
  process.on('exit', killNow)
  // Up when it answers a query (REFUSED or anything else: a reply at all).
  const probe = Buffer.from('abcd01000001000000000000047465737400000600 01'.replace(/ /g, ''), 'hex')
  for (let i = 0; ; i++) {
    const got = await new Promise<boolean>((resolve) => {
      void Bun.udpSocket({
        socket: {
          data: (s) => {
            s.close()
            resolve(true)
          },
          // Port unreachable while the recursor starts: the next probe tells.
          error: () => {},
        },
      }).then((s) => {
        s.send(probe, port, '127.0.0.1')
        setTimeout(() => {
          s.close()
          resolve(false)
        }, 100)
      })
    })
    if (got) break
    if (proc.exitCode !== null || i > 50) {
      proc.kill('SIGKILL')
      throw new Error(`pdns_recursor did not start: ${await new Response(proc.stderr as ReadableStream).text()}`)
    }
  }
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      proc.kill('SIGTERM')
      await proc.exited
      process.off('exit', killNow)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
