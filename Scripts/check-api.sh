#!/usr/bin/env bash
# Lists the changes to the libraries' public API that would break users' code, against the last
# release tag (or the tag or commit given), with SwiftPM's API digester:
#   Scripts/check-api.sh            # against the newest tag, e.g. 0.1.0
#   Scripts/check-api.sh 0.1.0
# It exits non-zero when it finds a breaking change. The baseline is built in a scratch folder of
# its own (.build-api/), so a first run takes as long as a clean build.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

baseline="${1:-$(git describe --tags --abbrev=0)}"
echo "Public API of Courier, CourierAsyncHTTPClient, CourierStore and CourierTesting against $baseline"
swift package --scratch-path .build-api diagnose-api-breaking-changes "$baseline" \
    --products Courier CourierAsyncHTTPClient CourierStore CourierTesting
