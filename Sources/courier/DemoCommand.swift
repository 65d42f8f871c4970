import ArgumentParser
import CourierDemo
import Foundation

/// `courier demo`: starts the sample server in-process and walks through the library.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "Start the sample server in-process and run a narrated tour of Courier.")

    @Option(help: "The transport to use: urlsession or ahc (async-http-client).")
    var transport: DemoTransport = .ahc

    func run() async throws {
        do {
            try await DemoScenario(transport: transport).run()
        } catch {
            FileHandle.standardError.write(Data("courier demo failed: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

extension DemoTransport: ExpressibleByArgument {}
