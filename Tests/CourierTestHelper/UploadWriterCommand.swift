import ArgumentParser
import Courier
import CourierAsyncHTTPClient
import CourierProbes
import Foundation
import Synchronization

/// `courier-test-helper upload-writer`: uploads `--file` resumably (tus, or the IETF draft with
/// `--protocol ietf-draft`) to `--url`,
/// keeping the upload's record under `--directory`, until it is whole or the process is killed.
/// Prints `ready` once the server confirmed bytes, for the test that kills it at random moments
/// and resumes after; a writer that finishes writes the upload's URL to `--report`.
struct UploadWriterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload-writer", abstract: "Upload resumably until killed (for crash tests).")

    @Option(help: "The tus endpoint's URL.")
    var url: String

    @Option(help: "Where the upload's record is kept.")
    var directory: String

    @Option(help: "The file to upload.")
    var file: String

    @Option(help: "The bytes sent per request.")
    var chunkSize = 256 * 1024

    @Option(help: "urlsession or ahc.")
    var transport = "urlsession"

    @Option(help: "The upload's identifier.")
    var identifier = "crash"

    @Option(help: "A file to write the finished upload's URL to, and on the next line the answer's body.")
    var report: String

    @Option(help: "tus or ietf-draft.")
    var `protocol` = "tus"

    func run() async throws {
        ParentWatch.start()
        guard let endpoint = URL(string: url) else { throw ValidationError("--url is not a URL") }
        var configuration = ClientConfiguration(baseURL: endpoint)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.resumableDownloadsDirectory = URL(fileURLWithPath: directory)
        configuration.callbackQueue = DispatchQueue(label: "upload-writer")
        let client = APIClient(configuration: configuration, transport: transport == "ahc" ? AsyncHTTPClientTransport() : URLSessionTransport())
        var request = Request<Data>(.post, url)
        // Ready once this process moved the upload on: the first report is what was kept.
        let first = Mutex<Int64?>(nil)
        request.uploadProgress = { progress in
            let moved = first.withLock { first in
                guard let start = first else {
                    first = progress.completed
                    return false
                }
                return progress.completed > start
            }
            if moved { CrashPoint.ready() }
        }
        let answer = try await client.upload(
            request, from: URL(fileURLWithPath: file), resuming: identifier, using: `protocol` == "tus" ? .tus : .ietfDraft, chunkSize: chunkSize)
        try Data((answer.url.absoluteString + "\n").utf8 + answer.data).write(to: URL(fileURLWithPath: report))
        CrashPoint.ready()
        FileHandle.standardOutput.write(Data("done\n".utf8))
    }
}
