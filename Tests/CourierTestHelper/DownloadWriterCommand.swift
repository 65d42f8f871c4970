import ArgumentParser
import Courier
import CourierProbes
import Foundation

/// `courier-test-helper download-writer`: downloads `--url` resumably, keeping the part under
/// `--directory`, until it is whole or the process is killed. Prints `ready` once bytes arrive,
/// for the test that kills it at random moments and resumes after.
struct DownloadWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download-writer", abstract: "Download resumably until killed (for crash tests).")

    @Option(help: "The file's URL.")
    var url: String

    @Option(help: "Where the partial download is kept.")
    var directory: String

    @Option(help: "Where the whole file goes.")
    var destination: String

    @Option(help: "The download's identifier.")
    var identifier = "crash"

    func run() async throws {
        ParentWatch.start()
        guard let fileURL = URL(string: url) else { throw ValidationError("--url is not a URL") }
        var configuration = ClientConfiguration(baseURL: fileURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.resumableDownloadsDirectory = URL(fileURLWithPath: directory)
        let client = APIClient(configuration: configuration, transport: URLSessionTransport())
        var request = Request<Data>(.get, url)
        request.downloadProgress = { progress in
            if progress.completed > 0 { CrashPoint.ready() }
        }
        _ = try await client.download(request, to: URL(fileURLWithPath: destination), resuming: identifier)
        CrashPoint.ready()
        FileHandle.standardOutput.write(Data("done\n".utf8))
    }
}
