import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper cassette-writer`: records GETs into a cassette and exits at once. For tests: the
/// cassette tests check that recordings not yet written when the process exits reach the file.
struct CassetteWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cassette-writer", abstract: "Record GETs into a cassette, then exit (for cassette tests).")

    @Option(help: "The cassette's file.")
    var file: String

    @Option(help: "The server's base URL.")
    var url: String

    @Option(help: "How many GETs to record.")
    var count = 5

    func run() async throws {
        ParentWatch.start()
        guard let baseURL = URL(string: url) else { throw ValidationError("\(url) is not a URL.") }
        try await CassetteExitWriter.run(file: URL(fileURLWithPath: file), baseURL: baseURL, count: count)
    }
}
