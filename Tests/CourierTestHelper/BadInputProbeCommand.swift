import ArgumentParser
import CourierDemo
import CourierProbes
import Foundation

/// `courier-test-helper bad-input-probe`: sends requests the app built wrongly to an in-process server and
/// prints what each got. For the bad-input test runs it in a process of its own, so a crash
/// fails that test alone.
struct BadInputProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bad-input-probe", abstract: "Send badly built requests and print what each got.")

    @OptionGroup var probe: ProbeOptions

    func run() async throws {
        ParentWatch.start()
        let (outcomes, seen) = try await BadInputProbe.run(transport: probe.transport, directory: probe.directoryURL)
        for outcome in outcomes { print(outcome) }
        print("server-requests=\(seen)")
    }
}
