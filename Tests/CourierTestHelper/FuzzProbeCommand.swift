import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper fuzz-probe`: sends a file of random requests through the public API and prints what
/// they got. For the public-API fuzz test runs it in a process of its own, so a crash fails
/// that test alone (the last `case=` line names the case).
struct FuzzProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz-probe", abstract: "Send a file of random requests and print what they got.")

    @Option(help: "The JSON file of cases.")
    var cases: String

    @Option(help: "The transport: ahc, urlsession or stub.")
    var transport = "ahc"

    func run() async throws {
        ParentWatch.start()
        // Unbuffered writes: the last line before a crash must reach the file.
        let write: @Sendable (String) -> Void = { FileHandle.standardOutput.write(Data(($0 + "\n").utf8)) }
        let summary = try await FuzzProbe.run(cases: URL(fileURLWithPath: cases), transport: transport, output: write)
        write("\(summary)")
    }
}
