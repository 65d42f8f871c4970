import ArgumentParser

/// `courier-test-helper`: the processes the tests start and watch (crash writers killed at random
/// moments, probes whose figures or crashes must not touch the test runner). Test machinery: built
/// with the tests, in no product.
@main
struct TestHelperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier-test-helper",
        abstract: "Processes Courier's tests start: crash writers and probes.",
        subcommands: [
            CacheWriterCommand.self, StoreWriterCommand.self, OutboxWriterCommand.self, CassetteWriterCommand.self,
            UploadProbeCommand.self, CancelStormCommand.self, BadInputProbeCommand.self, FuzzProbeCommand.self,
            CacheTestsBridgeCommand.self, DownloadWriterCommand.self, UploadWriterCommand.self, DraftUploadServerCommand.self,
            FleetClientCommand.self, HTTPStateCommand.self, CookieProbeCommand.self,
        ])
}
