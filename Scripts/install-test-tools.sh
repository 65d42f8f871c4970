#!/usr/bin/env bash
# Installs the Python tools the interoperability tests run, pinned, into .build/test-tools (a
# virtual environment; nothing outside the repository is touched):
#   mitmproxy  records HAR files in front of the sample server, and reads Courier's back;
#   haralyzer  a second HAR reader that is not ours.
# `.ci/run` runs it before `swift test`; run it once yourself before `swift test` on a new clone.
set -euo pipefail
cd "$(dirname "$0")/.."

tools=".build/test-tools"
requirements="mitmproxy==11.0.2 haralyzer==2.4.0"

if [ -x "$tools/bin/mitmdump" ] && [ -f "$tools/installed" ] && [ "$(cat "$tools/installed")" = "$requirements" ]; then
    exit 0
fi

if ! python3 -m venv --help >/dev/null 2>&1; then
    echo "Installing python3-venv"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 python3-venv
fi

rm -rf "$tools"
mkdir -p .build
python3 -m venv "$tools"
# shellcheck disable=SC2086
"$tools/bin/pip" install --quiet --disable-pip-version-check $requirements
echo "$requirements" > "$tools/installed"
"$tools/bin/mitmdump" --version | head -1
