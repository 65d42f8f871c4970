import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper upload-probe`: uploads a large file through Courier to an in-process server and prints
/// the peak memory growth. For the memory test runs it in a process of its own.
struct UploadProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload-probe", abstract: "Upload a large file and print the peak memory growth.")

    @Option(help: "Megabytes (MiB) to upload.")
    var megabytes = 200

    @OptionGroup var probe: ProbeOptions

    func run() async throws {
        ParentWatch.start()
        let result = try await UploadProbe.run(
            size: Int64(megabytes) << 20, transport: probe.transport, directory: probe.directoryURL)
        print(result)
        if !result.arrivedIntact { throw ExitCode.failure }
    }
}
