#!/usr/bin/env bash
# Scores Courier's cookie jar with the http-state cookie cases (the IETF http-state working group's
# tests/data/parser.json, 222 cases) on both transports: Scripts/http-state-server.py serves the
# cases as the HTTP proxy for the hosts they name, and `courier-test-helper http-state` runs each
# case through an APIClient and its CookieJar. Prints a line per case (with why a case is scored by
# RFC 6265bis rather than by its old expectation), then "http-state: N of 222" per transport.
#
# Usage: Scripts/http-state.sh [PARSER_JSON]
#   PARSER_JSON  the cases; default: $COURIER_HTTP_STATE, else ../shared/http-state/parser.json (a
#                copy kept beside this repository; it is not part of Courier).
# Needs python3 (its standard library only). Fails when a transport passes fewer than
# $COURIER_HTTP_STATE_MINIMUM cases (default 200). Without the cases it says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."

cases="${1:-${COURIER_HTTP_STATE:-../shared/http-state/parser.json}}"
minimum="${COURIER_HTTP_STATE_MINIMUM:-200}"
if [ ! -f "$cases" ]; then
    echo "http-state: no copy of the http-state cases at $cases (tests/data/parser.json of"
    echo "https://github.com/abarth/http-state); give its path as the first argument or in"
    echo "COURIER_HTTP_STATE to score Courier's cookie jar. Nothing was run."
    exit 0
fi
if ! build_log="$(swift build --product courier-test-helper 2>&1)"; then
    echo "$build_log" >&2
    echo "http-state: building courier-test-helper failed." >&2
    exit 1
fi
helper="$(swift build --show-bin-path)/courier-test-helper"
results=.build/http-state
mkdir -p "$results"

server_log="$(mktemp)"
python3 Scripts/http-state-server.py "$cases" > "$server_log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$server_log"' EXIT
port=""
for _ in $(seq 1 100); do
    port="$(sed -n 's/^listening at 127.0.0.1://p' "$server_log")"
    [ -n "$port" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$port" ]; then
    cat "$server_log" >&2
    echo "http-state: Scripts/http-state-server.py did not start." >&2
    exit 1
fi

status=0
declare -A counts
for transport in urlsession ahc; do
    timeout 600 "$helper" http-state --transport "$transport" --cases "$cases" --port "$port" < /dev/null > "$results/$transport.txt"
    counts[$transport]="$(tail -n 1 "$results/$transport.txt")"
    passed="$(sed -n 's/^http-state: \([0-9]*\) of.*/\1/p' "$results/$transport.txt")"
    if ! [[ "$passed" =~ ^[0-9]+$ ]] || [ "$passed" -lt "$minimum" ]; then
        echo "http-state: $transport passed ${passed:-nothing}, below $minimum." >&2
        status=1
    fi
done
for transport in urlsession ahc; do
    echo "Cases not passed on $transport:"
    grep '^FAIL' "$results/$transport.txt" | sed 's/^/  /' || echo "  none"
    echo "Cases scored by RFC 6265bis or today's date, not by their old expectation, on $transport:"
    grep -c 'scored by RFC 6265bis' "$results/$transport.txt" | sed 's/^/  /'
done
echo "${counts[urlsession]}"
echo "${counts[ahc]}"
echo "Per-case results: $results/"
exit "$status"
