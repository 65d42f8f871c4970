import Foundation

/// `courier-bench SUITE [--rounds N]`: speed ratios against baselines measured in the same run.
let arguments = Array(CommandLine.arguments.dropFirst())
let suites: [String: @Sendable (BenchOptions) async throws -> Void] = [
    "transport": { try await TransportBenchmark(options: $0).run() },
    "overhead": {
        try await OverheadBenchmark(options: $0).run()
        try await HotPathBenchmark(options: $0).run()
    },
    "hotpath": { try await HotPathBenchmark(options: $0).run() },
    "decode": { try DecodeBenchmark(options: $0).run() },
    "cache": { try await CacheBenchmark(options: $0).run() },
    "upload": {
        try await UploadBenchmark(options: $0).run()
        try await ResumableUploadBenchmark(options: $0).run()
    },
    "download": { try await DownloadBenchmark(options: $0).run() },
    "dedup": { try await DedupBenchmark(options: $0).run() },
    "store": { try await StoreBenchmark(options: $0).run() },
    "replay": { try await ReplayBenchmark(options: $0).run() },
    "errors": { try ValidationErrorsBenchmark(options: $0).run() },
    "openapi": { try await OpenAPIBenchmark(options: $0).run() },
    "outbox": { try await OutboxBenchmark(options: $0).run() },
    "stream": { try await StreamBenchmark(options: $0).run() },
    "tls": { try await TLSBenchmark(options: $0).run() },
    "fleet": { try await FleetBenchmark(options: $0).run() },
    "websocket": { try await WebSocketBenchmark(options: $0).run() },
]

// One process of `courier-bench fleet`, which starts four.
if arguments.first == "fleet-worker" {
    do {
        try await FleetWorker.run(Array(arguments.dropFirst()))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("courier-bench fleet-worker failed: \(error)\n".utf8))
        exit(1)
    }
}

guard let name = arguments.first, let suite = suites[name] else {
    FileHandle.standardError.write(Data("usage: courier-bench \(suites.keys.sorted().joined(separator: "|")) [--rounds N] [--scale X] [--only TEXT]\n".utf8))
    exit(2)
}
do {
    try await suite(try BenchOptions(arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("courier-bench \(name) failed: \(error)\n".utf8))
    exit(1)
}
