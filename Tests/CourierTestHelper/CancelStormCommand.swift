import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper cancel-storm`: requests cancelled at random moments against an in-process server.
/// For the cancellation tests run it in a process of their own, so a crash or a deadlock fails
/// one test. Exits non-zero when a completion ran other than once, a request failed other than by
/// cancellation, or a file was left behind.
struct CancelStormCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-storm", abstract: "Send requests cancelled at random moments and check every completion.")

    @Option(help: "mixed, upload or race.")
    var mode = CancelStorm.Mode.mixed

    @Option(help: "The transport: ahc or urlsession.")
    var transport = DemoTransport.ahc

    @Option(help: "How many requests to send.")
    var requests = 1000

    @Option(help: "How many requests run at once.")
    var concurrency = 16

    @Option(help: "Where upload and download files go (removed afterwards).")
    var directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-storm-\(UUID().uuidString)").path

    func run() async throws {
        ParentWatch.start()
        let folder = URL(fileURLWithPath: directory)
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CancelStorm.run(mode: mode, transport: transport, requests: requests, concurrency: concurrency, directory: folder)
        print(result)
        if !result.passed { throw ExitCode.failure }
    }
}

extension CancelStorm.Mode: ExpressibleByArgument {}
