#!/usr/bin/env bash
# Starts Portico the way the README says (no DATABASE_URL: embedded PostgreSQL under DATA_DIR), checks
# /healthz, creates a tenant, restarts, and checks the tenant is still there.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d /tmp/portico-smoke.XXXXXX)
chmod 755 "$dir"
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
export DATA_DIR="$dir/data" PORT="$port" MANAGEMENT_KEY=smoke-mgmt-key PUBLIC_URL="http://127.0.0.1:$port" HOST=127.0.0.1
# Only loopback DNS from CI (the machine's resolv.conf may name another host).
export DNS_RESOLVERS=127.0.0.1:53
unset DATABASE_URL PROVISION_SECRET

start() {
  # Own process group, so stopping reaches npm, bun and the embedded server alike.
  setsid npm start --silent >"$dir/portico.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    if curl -fsS "http://127.0.0.1:$port/healthz" >"$dir/health.json" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  cat "$dir/portico.log" >&2
  echo "smoke: service did not come up" >&2
  exit 1
}
stop() {
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  echo "smoke: service did not stop on SIGTERM" >&2
  kill -KILL -- "-$pid" 2>/dev/null || true
  exit 1
}

start
cat "$dir/health.json"; echo
grep -q '"db":"ok"' "$dir/health.json"
# Development with PROVISION_SECRET unset: generated into DATA_DIR, and the start says how to use it.
grep -q 'Provision a first tenant' "$dir/portico.log"
curl -fsS -X POST "http://127.0.0.1:$port/v1/tenants:provision" -H "X-Provision-Secret: $(cat "$DATA_DIR/provision-secret")" \
  --json '{"tenant_name":"Smoke","owner_email":"ops@smoke.example"}' | grep -q '"api_key":"ptc_'
! grep -q 'Unsupported runtime' "$dir/portico.log"
tenant=$(curl -fsS -X POST "http://127.0.0.1:$port/v1/tenants" -H "authorization: Bearer $MANAGEMENT_KEY" \
  -H 'content-type: application/json' -d '{"name":"Smoke"}' | node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>console.log(JSON.parse(d).id))')
stop
start
curl -fsS "http://127.0.0.1:$port/v1/tenants/$tenant" -H "authorization: Bearer $MANAGEMENT_KEY" | grep -q '"name":"Smoke"'
stop
rm -rf "$dir"
echo "smoke: embedded start, health, restart and persistence ok ($tenant)"
