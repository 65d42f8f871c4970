import ArgumentParser
import CourierDemo
import Foundation

/// The options the hidden probe commands share: the transport and a scratch folder.
struct ProbeOptions: ParsableArguments {
    @Option(help: "The transport: ahc or urlsession.")
    var transport = DemoTransport.ahc

    @Option(help: "Where the probe's files go (removed afterwards).")
    var directory = FileManager.default.temporaryDirectory.path

    /// ``directory`` as a URL.
    var directoryURL: URL { URL(fileURLWithPath: directory) }
}

extension DemoTransport: ExpressibleByArgument {}
