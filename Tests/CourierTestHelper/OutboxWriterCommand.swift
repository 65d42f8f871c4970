import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper outbox-writer`: enqueues and sends writes through an outbox until they are all sent.
/// For the outbox's crash test kills it at random moments and checks that the server got
/// every write once, in order.
struct OutboxWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox-writer", abstract: "Send writes through an outbox (for crash tests).")

    @Option(help: "The store's file.")
    var path: String

    @Option(help: "The server's base URL.")
    var url: String

    @Option(help: "Writes per scope.")
    var writes = 100

    @Option(help: "Scopes.")
    var scopes = 4

    func run() async throws {
        ParentWatch.start()
        guard let baseURL = URL(string: url) else { throw ValidationError("\(url) is not a URL.") }
        try await OutboxCrashWriter.run(path: URL(fileURLWithPath: path), baseURL: baseURL, writes: writes, scopes: scopes)
    }
}
