#!/usr/bin/env bash
# Installs the Python tools the interoperability tests run, pinned, into virtual environments
# under .build (nothing outside the repository is touched):
#   .build/test-tools       mitmproxy (records HAR files in front of the sample server, reads
#                           Courier's back) and haralyzer (a second HAR reader that is not ours);
#   .build/test-frameworks  FastAPI, Django REST framework, Flask + webargs/marshmallow, whose
#                           validation errors Scripts/validation-errors.py prints for the tests;
#   .build/test-schemathesis schemathesis, which tests the sample server against its own OpenAPI
#                           document (ServerDocumentFuzzTests, settings in Scripts/schemathesis.toml).
# (Separate environments: mitmproxy pins an older h11 than FastAPI's test client needs, and
# schemathesis pins its own hypothesis.)
# `.ci/run` runs it before `swift test`; run it once yourself before `swift test` on a new clone.
set -euo pipefail
cd "$(dirname "$0")/.."

install() {
    local environment="$1"
    shift
    local requirements="$*"
    if [ -x "$environment/bin/python" ] && [ -f "$environment/installed" ] && [ "$(cat "$environment/installed")" = "$requirements" ]; then
        return 0
    fi
    rm -rf "$environment"
    python3 -m venv "$environment"
    # shellcheck disable=SC2086
    "$environment/bin/pip" install --quiet --disable-pip-version-check $requirements
    echo "$requirements" > "$environment/installed"
    echo "Installed into $environment: $requirements"
}

if ! python3 -m venv --help >/dev/null 2>&1; then
    echo "Installing python3-venv"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 python3-venv
fi
mkdir -p .build
install .build/test-tools mitmproxy==11.0.2 haralyzer==2.4.0
install .build/test-frameworks fastapi==0.115.6 httpx==0.28.1 django==5.1.4 djangorestframework==3.15.2 \
    flask==3.1.0 webargs==8.6.0 marshmallow==3.23.2
install .build/test-schemathesis schemathesis==4.32.5
