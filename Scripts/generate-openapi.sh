#!/usr/bin/env bash
# Regenerates the sample server's Swift client (Generated/ImageStoreAPI/Generated) from its document,
# Sources/ImageStoreServer/OpenAPI/openapi.yaml, with swift-openapi-generator pinned in
# Scripts/OpenAPIGenerator (a package of its own, so that neither this package's build nor a
# package that depends on Courier ever builds the generator):
#   Scripts/generate-openapi.sh           # write the generated files and their stamp
#   Scripts/generate-openapi.sh --check   # fail when the committed files differ from a fresh run
# The first run builds the generator (a few minutes). The stamp, openapi.sha256, is the SHA-256 of
# the document and the generator's configuration; GeneratedClientStampTests fails when the document
# changed and this script was not run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

document=Sources/ImageStoreServer/OpenAPI/openapi.yaml
config=Generated/ImageStoreAPI/openapi-generator-config.yaml
target=Generated/ImageStoreAPI/Generated
stamp=Generated/ImageStoreAPI/openapi.sha256

swift build --package-path Scripts/OpenAPIGenerator --product swift-openapi-generator >&2
generator="$(swift build --package-path Scripts/OpenAPIGenerator --show-bin-path)/swift-openapi-generator"

output="$(mktemp -d)"
trap 'rm -rf "$output"' EXIT
"$generator" generate "$document" --config "$config" --output-directory "$output" >&2
# The generator writes an empty Server.swift for a configuration that asks for no server.
find "$output" -name '*.swift' -empty -delete
# Its imports are `package import`, and Swift 6.3 warns of each that no package declaration uses
# (6.4 reads the attribute the generator puts before them). A plain import has no such warning and
# declares the same: the target then builds without warnings, and without a flag to silence them.
for file in "$output"/*.swift; do
    sed -e 's/^\(@_spi(Generated) \)\{0,1\}package import /\1import /' "$file" > "$file.plain"
    mv "$file.plain" "$file"
done
if command -v sha256sum >/dev/null; then digest=(sha256sum); else digest=(shasum -a 256); fi
cat "$document" "$config" | "${digest[@]}" | cut -d' ' -f1 > "$output/openapi.sha256"

if [ "${1:-}" = "--check" ]; then
    if diff -r -x openapi.sha256 "$output" "$target" >&2 && cmp -s "$output/openapi.sha256" "$stamp"; then
        echo "The generated client is current."
    else
        echo "The generated client differs from a fresh run: run Scripts/generate-openapi.sh and commit the result." >&2
        exit 1
    fi
else
    rm -rf "$target"
    mkdir -p "$target"
    cp "$output"/*.swift "$target"/
    cp "$output/openapi.sha256" "$stamp"
    echo "Wrote $target and $stamp."
fi
