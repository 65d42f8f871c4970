// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Courier",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Courier", targets: ["Courier"]),
        .library(name: "CourierAsyncHTTPClient", targets: ["CourierAsyncHTTPClient"]),
        .library(name: "CourierTesting", targets: ["CourierTesting"]),
        .library(name: "CourierStore", targets: ["CourierStore"]),
        .library(name: "CourierPostgres", targets: ["CourierPostgres"]),
        .library(name: "ImageStoreServer", targets: ["ImageStoreServer"]),
        .library(name: "ImageStoreTesting", targets: ["ImageStoreTesting"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .executable(name: "courier", targets: ["courier"]),
        .executable(name: "courier-bench", targets: ["courier-bench"]),
        .executable(name: "courier-probe", targets: ["courier-probe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Documentation only (`Scripts/build-docs.sh`): a command plugin, linked into no product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "Courier",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(
            name: "CourierAsyncHTTPClient",
            dependencies: [
                "Courier",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ]
        ),
        .target(name: "CourierTesting", dependencies: ["Courier"]),
        // A swift-openapi-runtime `ClientTransport` on an `APIClient`, for generated clients.
        .target(
            name: "CourierOpenAPI",
            dependencies: [
                "Courier",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(name: "CourierExamples", dependencies: ["Courier", "CourierStore", "CourierTesting"]),
        .target(
            name: "CourierStore",
            dependencies: [
                "Courier",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A response cache that several processes share, in PostgreSQL.
        .target(
            name: "CourierPostgres",
            dependencies: [
                "Courier",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "ImageStoreServer",
            dependencies: [
                "Courier",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSCompression", package: "hummingbird-websocket"),
            ],
            resources: [.embedInCode("OpenAPI/openapi.yaml")]
        ),
        // The sample server's test instrumentation (counters, hold gates, test routes, port holding),
        // added through its ServerExtension: for Courier's tests and benchmarks.
        .target(
            name: "ImageStoreTesting",
            dependencies: [
                "Courier",
                "ImageStoreServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "CourierDemo",
            dependencies: ["Courier", "CourierAsyncHTTPClient", "CourierExamples", "CourierStore", "ImageStoreServer", "ImageStoreTesting"]
        ),
        // Test machinery, in no product: the crash writers and probes the tests run in processes
        // of their own (through courier-test-helper).
        .target(
            name: "CourierProbes",
            dependencies: [
                "BenchWorkloads", "Courier", "CourierAsyncHTTPClient", "CourierStore", "CourierTesting", "CourierDemo", "ImageStoreServer",
                "ImageStoreTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/CourierProbes"
        ),
        .executableTarget(
            name: "courier-test-helper",
            dependencies: [
                "Courier", "CourierAsyncHTTPClient", "CourierDemo", "CourierProbes", "CourierPostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOResumableUpload", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            path: "Tests/CourierTestHelper"
        ),
        .executableTarget(
            name: "courier",
            dependencies: [
                "Courier",
                "CourierDemo",
                "ImageStoreServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "BenchWorkloads",
            dependencies: [
                "Courier",
                "CourierTesting",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "courier-probe",
            dependencies: [
                "BenchWorkloads",
                "Courier",
                "CourierAsyncHTTPClient",
                "ImageStoreServer",
                "ImageStoreTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        .executableTarget(
            name: "courier-bench",
            dependencies: [
                "BenchWorkloads",
                "Courier",
                "CourierAsyncHTTPClient",
                "CourierExamples",
                "CourierStore",
                "CourierPostgres",
                "CourierTesting",
                "CourierOpenAPI",
                "ImageStoreAPI",
                "ImageStoreServer",
                "ImageStoreTesting",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCompression", package: "swift-websocket"),
            ],
        ),
        // The sample server's client, generated from its document by Scripts/generate-openapi.sh
        // and committed (the generator is in a package of its own, which nothing here builds), for
        // CourierOpenAPITests and `courier-bench openapi`. Generated code, apart from the code we write.
        .target(
            name: "ImageStoreAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Generated/ImageStoreAPI",
            exclude: ["openapi-generator-config.yaml", "openapi.sha256"]
        ),
        // The watcher the tests run their tools from PyPI under (mitmproxy, schemathesis, pip): C,
        // for what a child must do between fork and exec. Test machinery: no product names it.
        .executableTarget(name: "courier-watch", path: "Tests/CourierWatch"),
        .testTarget(
            name: "CourierTests",
            dependencies: [
                "BenchWorkloads",
                "Courier",
                "CourierAsyncHTTPClient",
                "CourierTesting",
                "CourierStore",
                "CourierPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                "CourierDemo",
                "CourierProbes",
                "CourierExamples",
                .product(name: "GRDB", package: "GRDB.swift"),
                "ImageStoreServer",
                "ImageStoreTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                // Entry files of an earlier format, written by hand.
                .product(name: "Crypto", package: "swift-crypto"),
                // Crash tests spawn hundreds of children: Foundation's Process.run on Linux
                // (Swift 6.3) over-reads /proc/self/fd entries and crashes now and then.
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "CourierOpenAPITests",
            dependencies: [
                "BenchWorkloads",
                "Courier",
                "CourierAsyncHTTPClient",
                "CourierOpenAPI",
                "ImageStoreAPI",
                "ImageStoreServer",
                "ImageStoreTesting",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
