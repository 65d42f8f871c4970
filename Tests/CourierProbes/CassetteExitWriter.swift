import Courier
import CourierTesting
import Foundation

/// Records GETs of `/sample` into a cassette and ends the process at once, for the test that a
/// cassette's last recordings reach its file when the process exits: the cassette is given to
/// the transport (no `use`, no `flush()`), and the process exits before the write scheduled a
/// moment after the recordings comes due.
package enum CassetteExitWriter {
    /// Records `count` GETs from the server at `baseURL` into `file`, prints `recorded N`, and exits with status 0.
    /// A negative `count` is an ``Courier/CourierError/Kind/invalidRequest`` error.
    package static func run(file: URL, baseURL: URL, count: Int) async throws -> Never {
        guard count >= 0 else { throw CourierError(.invalidRequest, "A cassette writer records 0 GETs or more; \(count) is not a count.") }
        var configuration = ClientConfiguration(baseURL: baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        let cassette = try Cassette(file: file, mode: .all)
        let client = APIClient(configuration: configuration, transport: RecordingTransport(wrapping: URLSessionTransport(), cassette: cassette))
        for index in 0..<count { _ = try await client.send(Request<Data>(.get, "sample", query: ["n": .int(index)])) }
        FileHandle.standardOutput.write(Data("recorded \(cassette.entryCount)\n".utf8))
        exit(0)
    }
}
