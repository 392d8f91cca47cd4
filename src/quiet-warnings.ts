// Imported first by the entry points, before any dependency runs: drops start-up warnings that do
// not concern a Portico user. oidc-provider warns "Unsupported runtime" on every runtime but the
// Node.js LTS lines, Bun included, though Portico runs it on Bun by design and its tests cover it.
const QUIET = [/^oidc-provider WARNING: Unsupported runtime\b/]

const warn = console.warn.bind(console)
console.warn = (...args: unknown[]) => {
  const first = typeof args[0] === 'string' ? args[0].replace(/\x1b\[[0-9;]*m/g, '') : ''
  if (QUIET.some((re) => re.test(first))) return
  warn(...args)
}
