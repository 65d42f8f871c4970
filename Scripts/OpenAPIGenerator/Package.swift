// swift-tools-version: 6.1
// The OpenAPI generator, pinned, in a package of its own so that nothing else builds it: only
// `Scripts/generate-openapi.sh` does, to regenerate `Generated/ImageStoreAPI/Generated` from the
// sample server's document. A package that depends on Courier never resolves it.
import PackageDescription

let package = Package(
    name: "OpenAPIGenerator",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
    ],
    targets: []
)
