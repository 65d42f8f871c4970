#!/usr/bin/env bash
# Builds the `courier` tool with full cross-module optimisation (`-cross-module-optimization`,
# which an app may turn on for its release builds, so that Courier's code is optimised into the
# app's) and runs `courier demo` with it: every step of the demo must behave as described.
#   Scripts/check-cmo.sh
# The build has a scratch folder of its own (.build-cmo/), so a first run takes as long as a clean
# release build (about 10 minutes on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

swift build -c release --product courier -Xswiftc -cross-module-optimization --scratch-path .build-cmo
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tool="$(swift build -c release --product courier -Xswiftc -cross-module-optimization --scratch-path .build-cmo --show-bin-path)/courier"
(cd "$work" && "$tool" demo)
