#!/usr/bin/env bash
# Builds the DocC documentation of the Courier library with swift-docc-plugin, fails on any
# documentation warning, and prints DocC's coverage summary (the share of public symbols with a
# summary line). The archive is written under .build-docs/ (ignored by git):
#   Scripts/build-docs.sh
# Serve the archive with any static file server, or open it in Xcode.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift package --scratch-path .build-docs generate-documentation --target Courier \
    --experimental-skip-synthesized-symbols --experimental-documentation-coverage --warnings-as-errors 2>&1 | tee "$log" \
    | grep -v -E '^\[[0-9]+/[0-9]+\]|^(Fetching|Fetched|Computing|Computed|Creating working|Working copy)' || true
status=${PIPESTATUS[0]}

# Warnings from DocC itself (not SwiftPM's notes about dependencies' files) fail the build.
if grep -E '^(warning|error):' "$log" | grep -v -E "found [0-9]+ file\(s\) which are unhandled" >/dev/null; then
    echo "Documentation warnings or errors above." >&2
    exit 1
fi
[ "$status" -eq 0 ] || exit "$status"

archive=.build-docs/plugins/Swift-DocC/outputs/Courier.doccarchive
echo "Archive: $archive"
