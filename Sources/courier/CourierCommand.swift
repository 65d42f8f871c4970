import ArgumentParser

/// The `courier` command-line tool.
@main
struct CourierCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "Courier's sample server and a guided demo of the library.",
        subcommands: [DemoCommand.self, ServeCommand.self])
}
