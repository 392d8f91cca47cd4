#!/usr/bin/env bash
# The test command (npm test). Installs the Debian daemons the integration tests run against when
# they are missing (PowerDNS, Caddy, Pebble, Prometheus, Chromium, a CJK font and strace; needs root and apt), then runs bun test.
# Without DATABASE_URL the tests start an embedded PostgreSQL under .test-data/.
set -uo pipefail
cd "$(dirname "$0")/.."

need=()
command -v pdns_server >/dev/null || need+=(pdns-server pdns-backend-sqlite3)
command -v pdns_recursor >/dev/null || need+=(pdns-recursor)
command -v sqlite3 >/dev/null || need+=(sqlite3)
command -v dig >/dev/null || need+=(dnsutils)
command -v caddy >/dev/null || need+=(caddy)
command -v pebble >/dev/null || need+=(pebble)
command -v openssl >/dev/null || need+=(openssl)
command -v chromium >/dev/null || need+=(chromium)
command -v prometheus >/dev/null || need+=(prometheus)
# The server's own system calls on an answer's socket (test/integration/answer-writes.test.ts).
command -v strace >/dev/null || need+=(strace)
# Japanese and Chinese glyphs for the widget's screenshot checks (no string overflows in every locale).
fc-list 2>/dev/null | grep -qi 'IPAGothic' || need+=(fonts-ipafont-gothic)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "not root: install them with apt-get first" >&2
    exit 1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

out=$(mktemp)
# The per-test timeout is given here: setDefaultTimeout in the preload does not reach every file.
node_modules/.bin/bun test --timeout 60000 "$@" 2>&1 | tee "$out"
code=${PIPESTATUS[0]}
# bun prints " N pass" / " N fail"; repeat them as the plain closing line CI reads.
pass=$(grep -E '^ *[0-9]+ pass$' "$out" | tail -1 | tr -dc '0-9')
fail=$(grep -E '^ *[0-9]+ fail$' "$out" | tail -1 | tr -dc '0-9')
rm -f "$out"
echo "tests: ${pass:-0} passed, ${fail:-0} failed"
if [ "${pass:-0}" = "0" ] && [ "$code" = "0" ]; then
  echo "no test ran" >&2
  exit 1
fi
exit "$code"
