#!/usr/bin/env bash
# Builds the JSON fuzz target with libFuzzer and AddressSanitizer and runs it.
# Usage: Fuzz/run.sh [seconds] [extra libFuzzer flags…]   (default: 300 seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-300}"
shift || true
# Courier's dependencies, built once in debug; their objects are linked into the fuzzer as they are.
for target in Logging CoreMetrics Tracing Crypto; do swift build --target "$target" >/dev/null; done
mkdir -p .build/fuzz/corpus
# Courier's sources are compiled into the fuzzer with instrumentation; its dependencies (swift-log,
# swift-metrics' CoreMetrics, swift-distributed-tracing with swift-service-context, swift-crypto and
# BoringSSL) are linked from the debug build as they are.
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name CourierFuzz -package-name courier \
    -I .build/debug/Modules \
    $(find Sources/Courier -name '*.swift') Fuzz/JSONFuzzTarget.swift \
    .build/debug/Logging.build/*.o \
    $(find .build/debug/CoreMetrics.build .build/debug/Tracing.build .build/debug/Instrumentation.build \
        .build/debug/ServiceContextModule.build -name '*.o') \
    $(find .build/debug/Crypto.build .build/debug/CryptoBoringWrapper.build .build/debug/CCryptoBoringSSL.build \
        .build/debug/CCryptoBoringSSLShims.build -name '*.o') \
    -o .build/fuzz/courier-json-fuzz
cp -n Fuzz/seeds/* .build/fuzz/corpus/ 2>/dev/null || true
export SWIFT_BACKTRACE=enable=no  # libFuzzer reports crashes itself
exec .build/fuzz/courier-json-fuzz .build/fuzz/corpus -max_total_time="$seconds" -max_len=4096 -artifact_prefix=.build/fuzz/ "$@"
