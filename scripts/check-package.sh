#!/usr/bin/env bash
# The one installable package, checked as a user would get it: build, `npm pack` @tonearm/cli, install the tarball
# with `npm install -g` into a clean prefix (the @tonearm/* packages are bundled; real dependencies come from the
# registry), then boot the installed `tonearm`: --version, serve on a free port (TONEARM_DATABASE_URL when set,
# else the embedded PostgreSQL), /healthz and /openapi.json, Ctrl-C (SIGINT) and a clean exit. Every temporary
# directory is removed at the end, whatever happens.
#   scripts/check-package.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Under /tmp, mode 0755: as root the embedded PostgreSQL runs as the 'postgres' OS user, which must reach it.
work=$(mktemp -d /tmp/tonearm-package-XXXXXX)
chmod 755 "$work"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -INT "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  if declare -F drop_scratch >/dev/null; then drop_scratch; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "check-package: $*" >&2
  if [ -f "$work/server.log" ]; then
    echo "--- server log ---" >&2
    tail -n 40 "$work/server.log" >&2
  fi
  exit 1
}

if [ "${1:-}" != "--no-build" ]; then
  # The web player first: the CLI's build copies packages/web/dist into dist/web.
  pnpm --silent --filter @tonearm/web build >/dev/null
  pnpm --silent --filter @tonearm/cli build >/dev/null
fi

echo "check-package: npm pack"
(cd packages/cli && npm pack --silent --pack-destination "$work" >/dev/null)
tarball=$(ls "$work"/*.tgz)
# Nothing of the workspace may leak into the tarball: no @tonearm/* dependency, no sources.
listing=$(tar -tzf "$tarball")
for file in dist/bin.js dist/engineWorker.js dist/parseWorker.mjs dist/web/index.html; do
  grep -qx "package/$file" <<<"$listing" || fail "$file is missing from the tarball"
done
grep -q '^package/src/' <<<"$listing" && fail "the tarball holds sources (package/src/)"
if tar -xzOf "$tarball" package/package.json | node -e '
  const pkg = JSON.parse(require("fs").readFileSync(0, "utf8"))
  process.exit(Object.keys(pkg.dependencies ?? {}).some((name) => name.startsWith("@tonearm/")) ? 0 : 1)'; then
  fail "the packed package.json depends on an unpublished @tonearm/* package"
fi

echo "check-package: npm install -g $(basename "$tarball") into a clean prefix"
prefix="$work/prefix"
npm install -g --prefix "$prefix" --no-audit --no-fund --loglevel=error "$tarball" >/dev/null
tonearm="$prefix/bin/tonearm"
[ -x "$tonearm" ] || fail "$tonearm is not an executable"

version=$("$tonearm" --version)
expected=$(node -p 'require("./packages/cli/package.json").version')
[ "$version" = "$expected" ] || fail "tonearm --version printed '$version', expected '$expected'"
echo "check-package: tonearm --version → $version"

# A small library of real, tagged files (mp3, flac, m4a, ogg, opus) from the project's own generator (ffmpeg-made
# audio, our tag writers; CI installs ffmpeg for the tests): the scan runs on the installed parse worker.
mkdir -p "$work/music" "$work/data"
pnpm --silent exec tsx packages/server/fixtures/cli.ts generate --out "$work/music" --tracks 60 --seed 1 >/dev/null ||
  fail "the fixture generator could not write the check's library (is ffmpeg installed?)"
chmod -R a+rwX "$work/music" "$work/data"

# An external PostgreSQL gets a throwaway database for the check (created here, dropped at the end), through the
# installed package's own pg.
database_url="${TONEARM_DATABASE_URL:-}"
if [ -n "$database_url" ]; then
  scratch_db="tonearm_package_check_$$_$RANDOM"
  pg_admin() {
    NODE_PATH="$prefix/lib/node_modules/@tonearm/cli/node_modules" node -e '
      const pg = require("pg")
      const client = new pg.Client({ connectionString: process.argv[1] })
      client.connect().then(() => client.query(process.argv[2])).then(() => client.end(), (error) => { console.error(error.message); process.exit(1) })
    ' "$TONEARM_DATABASE_URL" "$1"
  }
  pg_admin "CREATE DATABASE $scratch_db"
  drop_scratch() { pg_admin "DROP DATABASE IF EXISTS $scratch_db WITH (FORCE)" || true; }
  database_url=$(node -e 'const url = new URL(process.argv[1]); url.pathname = "/" + process.argv[2]; console.log(url.toString())' \
    "$TONEARM_DATABASE_URL" "$scratch_db")
fi

port=$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })')
echo "check-package: tonearm serve on 127.0.0.1:$port ($([ -n "${TONEARM_DATABASE_URL:-}" ] && echo "TONEARM_DATABASE_URL" || echo "embedded PostgreSQL"))"
# Run from the temp dir, so nothing resolves from the repository (no TONEARM_DATABASE_URL: embedded).
(cd "$work" && export TONEARM_STATE_DIR="$work/state" TONEARM_CONFIG_DIR="$work/config" && if [ -n "$database_url" ]; then export TONEARM_DATABASE_URL="$database_url"; else unset TONEARM_DATABASE_URL; fi &&
  exec "$tonearm" serve --port "$port" --host 127.0.0.1 --data-dir "$work/data" --library "$work/music") \
  >"$work/server.log" 2>&1 &
server_pid=$!

healthy=""
for _ in $(seq 1 240); do
  kill -0 "$server_pid" 2>/dev/null || fail "the server exited before answering /healthz"
  if health=$(curl -sf "http://127.0.0.1:$port/healthz" 2>/dev/null); then
    healthy=yes
    break
  fi
  sleep 0.25
done
[ -n "$healthy" ] || fail "no answer on /healthz within 60 s"
echo "$health" | grep -q '"status":"ok"' || fail "/healthz answered $health"
curl -sf "http://127.0.0.1:$port/openapi.json" | grep -q '"openapi"' || fail "/openapi.json did not answer an OpenAPI document"
echo "check-package: /healthz $health; /openapi.json answers"
# The web player rides in the package (dist/web) and is served at / with its hashed assets.
page=$(curl -sf -H 'accept: text/html' "http://127.0.0.1:$port/") || fail "/ did not answer"
grep -q '<div id="app">' <<<"$page" || fail "/ is not the web player: $(head -c 300 <<<"$page")"
asset=$(grep -o '/assets/[^"]*\.js' <<<"$page" | head -1)
curl -sfI "http://127.0.0.1:$port$asset" | grep -qi 'cache-control: public, max-age=31536000, immutable' ||
  fail "$asset is not served immutable"
echo "check-package: / serves the web player ($asset)"

# The boot scan of the library runs on the installed parse worker: wait for its summary line.
for _ in $(seq 1 120); do
  grep -Eq "library( [0-9]+)? scan finished" "$work/server.log" && break
  sleep 0.25
done
grep -Eq "library( [0-9]+)? scan finished" "$work/server.log" || fail "the boot scan did not finish within 30 s"
grep -E "library( [0-9]+)? scan finished" "$work/server.log" | grep -q " 0 errors" || fail "the boot scan reported errors"
echo "check-package: boot scan: $(grep -Eo 'library( [0-9]+)? scan finished.*' "$work/server.log")"

# The recommendation engine's worker (dist/engineWorker.js) answers through the installed server: the first
# account registers (admin), and similar artists of a scanned album's artist are computed on the worker.
base="http://127.0.0.1:$port"
token=$(curl -sf -X POST "$base/api/auth/register" -H 'content-type: application/json' \
  -d '{"username":"check","password":"check-package-1"}' | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).token') ||
  fail "could not register the first account"
artist=$(curl -sf "$base/api/library/albums?limit=1" -H "authorization: Bearer $token" |
  node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).items[0].artist_id') || fail "no album after the scan"
curl -sf "$base/api/artists/$artist/similar" -H "authorization: Bearer $token" >/dev/null ||
  fail "GET /api/artists/{id}/similar failed (the engine worker)"
echo "check-package: similar artists answered by the installed engine worker"

kill -INT "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" -eq 0 ] || fail "tonearm serve exited with status $status after SIGINT"
if [ -z "${TONEARM_DATABASE_URL:-}" ]; then
  grep -q "embedded PostgreSQL stopped" "$work/server.log" || fail "the embedded PostgreSQL was not stopped"
  if pgrep -f "$work/data/postgres" >/dev/null; then fail "a PostgreSQL process of the data directory is still running"; fi
fi
echo "check-package: SIGINT → clean exit (status 0)"
echo "check-package: ok ($root)"
