import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper store-writer`: imports generations of users into a store until killed. For tests: the
/// store's crash test kills it at random moments and checks the database holds one whole generation.
struct StoreWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-writer", abstract: "Import into a store until killed (for crash tests).")

    @Option(help: "The store's file.")
    var path: String

    @Option(help: "Users per import.")
    var count = 2_000

    func run() async throws {
        ParentWatch.start()
        try await StoreCrashWriter.run(path: URL(fileURLWithPath: path), count: count)
    }
}
