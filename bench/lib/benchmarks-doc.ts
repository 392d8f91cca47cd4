// docs/benchmarks.md, written from the record (bench/record.jsonl): the prose below says what each
// bench measures and why the code is shaped as it is, and every figure in the page comes from a
// recorded run. Rewritten by each recorded run and by `bun bench/docs.ts`; a unit test fails when the
// page differs from what this renders, so no figure can be typed in by hand.
import { FIGURES, median, specOf, type Entry } from './record.ts'

const INTRO = `# Benchmarks

Back to the [README](../README.md).

<!-- Generated from bench/record.jsonl by bench/lib/benchmarks-doc.ts: edit those, not this page. -->

\`npm run bench\` runs every script below, one after another, and says which ran (\`npm run bench --
verify\` runs one; \`BENCH_CONNECTIONS\`, \`BENCH_DOMAINS\`, \`BENCH_SECONDS\` and \`BENCH_ROUNDS\` shrink
them). They use the test harness's PowerDNS and a database of their own on \`DATABASE_URL\` or the
embedded server. Each prints its figure next to a baseline measured in the same run (the machines are
shared and noisy: a ratio moves by about 0.1 between runs, an absolute rate by a third).

Every run of a ratio bench appends its figures, commit, machine and settings to \`bench/record.jsonl\`
and rewrites this page from it (\`BENCH_RECORD=0\` keeps a try out). The figures below are the record's:
this page cannot quote a figure no run measured.

| script | measures | baseline | goal |
| --- | --- | --- | --- |
| \`bun bench/auth-read.ts\` | authenticated \`GET /v1/applications/{id}\` (wrk, 50 connections, request log on) | bare \`Bun.serve\` doing one \`SELECT 1\` on the same database; beside it, a bare \`Bun.serve\` reading the same application row with the same statement (its rate against \`SELECT 1\` is the most any server reading the row reaches; Portico against it is \`ratio to the same read\`) | 0.8 |
| \`bun bench/webhooks.ts\` | 10,000 events delivered to a loopback receiver, each its connection's first (the in-order path; \`BENCH_UNORDERED=1\` sends them as events of no connection): fair claims (each send leased and its \`in flight\` attempt row committed before it goes out), SSRF check, signing, pinned POSTs, answers recorded (both sides warmed up first). \`BENCH_IDLE_ENDPOINTS=5000\` adds endpoints with nothing queued | plain signed POSTs from a script to the same receiver, 128 in flight | 0.5 |
| \`bun bench/verify.ts\` | verification sweep over 10,000 propagating connections against PowerDNS on loopback; every one goes live and writes its event; median of five rounds after a warm-up, each from freshly loaded tables | the same 10,000 DNS questions sent raw over UDP by a script, 64 in flight | 0.5 |
| \`bun bench/monitor.ts\` | monitor over 20,000 live domains (1% drifted, drift events on): an hour of sweeps, the clock moving five minutes per sweep, every domain checked once | the same DNS questions sent raw by a script | 0.5 |
| \`bun bench/scale.ts\` | the cost curve: 10,000, 100,000 and 1,000,000 connections across 1,000 Zipf-sized workspaces (with audit rows, events, delivery attempts, monitor rows, certificates); p50/p99 of get, list (first and a deep page of 50), count and domain check under load from the largest workspace; sweep cost per item, bytes per connection, RSS, \`/metrics\` gauges; writes \`bench/scale.svg\`. \`--sizes=10k,100k\` picks sizes; the million takes minutes to seed and about 6 GB | the \`SELECT 1\` baseline of \`auth-read\`, same round; a list page against a get | list within 2x a get (0.5); p99 growth to the largest size at most 1.5x |
| \`bun bench/dns-raw.ts\` | raw DNS query rate against the harness PowerDNS | — | prints its rate; not recorded |
| \`bun bench/time-to-live.ts\` | what a customer waits: CNAME written → \`connection.live\` webhook (with and without a click, behind a recursor), \`live\` → certificate served, a backlog of 200 | the goals: click p95 ≤ 1 s, no click p95 ≤ 10 s, certificate p95 ≤ 3 s, backlog ≤ 60 s | prints its figures; not recorded |
| \`bun bench/dcv.ts\` | records added → certificate on every edge, one domain at a time, 20 per path: before cutover (ownership TXT and \`_acme-challenge\` delegation, DNS-01 through the DCV zone) and the usual path (routing CNAME, HTTP-01 once live) | — | prints its figures; not recorded |
| \`bun bench/widget-weight.ts\` | the widget's bytes and time to the records screen on a throttled phone profile | — | prints its figures; not recorded |
`

const CHECKING = `## Checking for regressions

\`npm run bench:check\` reruns the ratio benches, each \`BENCH_CHECK_RUNS\` times (3 by default;
\`npm run bench:check -- auth-read webhooks\` picks some; \`BENCH_SCALE_SIZES\` sets the sizes scale runs,
10k by default), and for each figure takes the **median of those fresh runs**. It compares that with the
**best per-commit median** in the record: the runs of each earlier commit on the same machine with the
same settings are reduced to their median, and the best of those medians is the bar. The settings name
what shapes a figure besides the code, the load tool among them (\`tool=wrk -t1\` or \`tool=fetch loop\`
for auth-read; \`path=in-order\` or \`unordered\` for webhooks), so a fetch-loop run is never compared with
a wrk run. A figure more than 10 % worse than the bar is named, with the commit that set it and how many
runs its median took; the check exits 1 when any is named. Medians on both sides keep one freak run (a
quiet minute on a shared machine, or a stalled one) from setting the bar or tripping it, once its
commit ran more than twice; a commit that ran once is its own median. Run it before a change that
touches a hot path (the request path, sweeps, delivery) is submitted, and say what it printed.

\`test/integration/bench-check.test.ts\` runs the check for real against a deliberate slowdown: the
authenticated-read bench twice, one run per check (\`BENCH_CHECK_RUNS=1\`), into a record of its own (\`BENCH_RECORD_PATH\`, which leaves this page
alone), the second time with every answer of the Portico process costing 400 µs more CPU (\`BENCH_SLOWDOWN=400\`,
\`bench/lib/slowdown.ts\`; about five times a read's own cost, so that a first run slowed by whatever else the machine is doing
cannot hide it: two-second runs under a busy neighbour read 0.40 for a usual 0.55), and expects that figure named against the
first and the exit code 1.
`

const MAINTAINER = `## What a maintainer needs to know

- **The authenticated read** pays one database round trip (the application row) and nothing written:
  API keys are cached per process and evicted by NOTIFY on revocation; addresses are parsed once per
  address seen; the failure throttle looks nothing up while no failure was counted; one deadline race
  per request; the request histogram and the request log line are built without a label set or a copy
  of the fields per request.
- **List pages** read two columns a row (id and the row's \`xmin\` version) along
  \`connections_tenant_page\`, from the cursor on (51 index entries however deep the page: its id is
  compared bytewise, an order no other index holds, so no plan walks the primary key or the pages before
  the cursor), and show the rows the process already holds at that version as it made them; only rows not
  seen at their version are read whole (\`src/domain/connection-views.ts\`). Writing, reading and
  serialising every column of fifty rows is what made a page cost eight reads. A page asked again while
  its rows are unchanged (the same ids at the same versions) is the same answer, its UTF-8 and its zstd
  and gzip forms made once: compressing and encoding 52 KB were half of a cached page's CPU. A read of
  one connection asks for its version (and who may see it) first, and reads the row whole only for a
  version this process has not rendered. Only the filters given
  are in the statement, so prepared statements get plans that walk the index; counts come from a
  cached table kept by triggers (\`status_counts\`); \`/metrics\` reads the same counts. A page is over
  16 KB, which Bun 1.4.5 writes after an \`await\` without corking the socket: its status line and
  headers leave in a dozen \`send()\` calls, about half of what a page costs beyond a get, on both sides.
- **Webhook delivery**: a lease and an attempt's answer write no index entry (HOT: the lease keeps
  the due time, half-free pages), a drain holds one connection with one plan, each worker counts its
  own sends per endpoint, and a claimed send starts after the next round trip is on its way. The claim
  reads only endpoints that have deliveries queued (a skip scan of the queue's endpoint index).
- **The sweeps**: per 10,000 items PowerDNS spends the same in the bench and its raw baseline. The
  verification sweep cannot skip its writes (every connection in the bench goes live: a connection
  update, an outbox event and a queue removal each); the monitor's hourly watch writes nothing for an
  unchanged check. Batches travel to PostgreSQL column by column (\`src/db/columns.ts\`), not as JSON
  records; the going-live statement runs a cached generic plan; the verification schedule lives in its
  own narrow queue table with a low fillfactor so updates stay HOT; one wait per batch; the monitor
  enrols connections from the outbox rather than in the going-live statement.
- **Bench hygiene.** Each round starts from truncated tables (not deleted rows, which leave dead index
  entries and autovacuum running alongside) and rounds after a warm-up round are counted, as a
  long-lived worker runs.
`

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2))
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ')

function figuresTable(entries: Entry[]): string {
  const rows: string[] = ['| bench | figure | goal | latest (commit, settings) | last runs, newest first | best commit median on that machine |', '| --- | --- | --- | --- | --- | --- |']
  const names = new Map<string, Set<string>>()
  for (const e of entries) for (const f of Object.keys(e.figures)) (names.get(e.bench) ?? names.set(e.bench, new Set()).get(e.bench)!).add(f)
  const benches = [...Object.keys(FIGURES), ...[...names.keys()].filter((b) => !(b in FIGURES))].filter((b) => names.has(b))
  for (const bench of benches) {
    for (const figure of [...names.get(bench)!].sort()) {
      const spec = specOf(bench, figure)
      const runs = entries.filter((e) => e.bench === bench && e.figures[figure] !== undefined)
      const latest = runs.at(-1)!
      const same = runs.filter((e) => e.machine === latest.machine && e.settings === latest.settings)
      // The bar bench:check holds a figure to: the best of the commits' medians.
      const byCommit = new Map<string, number[]>()
      for (const e of same) (byCommit.get(e.commit) ?? byCommit.set(e.commit, []).get(e.commit)!).push(e.figures[figure]!)
      const medians = [...byCommit.values()].map(median)
      const best = spec?.lower ? Math.min(...medians) : Math.max(...medians)
      const v = latest.figures[figure]!
      const meets = spec ? (spec.lower ? v <= spec.goal : v >= spec.goal) : true
      rows.push(
        `| ${bench} | ${figure} | ${spec ? `${spec.lower ? '≤' : '≥'} ${spec.goal}` : '—'} | **${fmt(v)}**${meets ? '' : ' (below goal)'} (${latest.commit}, ${day(latest.at)}, ${latest.settings || 'defaults'}) | ` +
          `${same.slice(-5).reverse().map((e) => fmt(e.figures[figure]!)).join(', ')} | ${fmt(best)} (${same.length} run${same.length === 1 ? '' : 's'}, ${byCommit.size} commit${byCommit.size === 1 ? '' : 's'}) |`,
      )
    }
  }
  return rows.join('\n')
}

function runsTable(entries: Entry[]): string {
  const machines = [...new Set(entries.map((e) => e.machine))]
  const rows = ['| when (UTC) | bench | commit | settings | what it printed |', '| --- | --- | --- | --- | --- |']
  for (const e of entries.slice(-40).reverse()) rows.push(`| ${day(e.at)} | ${e.bench} | ${e.commit} | ${e.settings || 'defaults'} | ${e.detail.replace(/\|/g, '\\|')} |`)
  return `Machines: ${machines.map((m, i) => `${i + 1}. ${m}`).join('; ')}. The last ${Math.min(40, entries.length)} runs (\`bench/record.jsonl\` keeps all ${entries.length}):\n\n${rows.join('\n')}`
}

export function renderDoc(entries: Entry[]): string {
  const figures = entries.length ? `${figuresTable(entries)}\n\n${runsTable(entries)}` : 'No run recorded yet.'
  return `${INTRO}\n## Recorded figures\n\nFrom \`bench/record.jsonl\`; a commit ending in \`+\` ran with uncommitted changes. A figure is compared only with runs on the same machine and settings (the load tool among them); the best column is the best of the commits' medians, the bar \`npm run bench:check\` holds a figure to.\n\n${figures}\n\n${CHECKING}\n${MAINTAINER}`
}
