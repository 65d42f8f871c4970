import ArgumentParser
import Dispatch
import Foundation
import ImageStoreServer
import Logging

/// `courier serve`: runs the sample server until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve", abstract: "Run the sample image-store server until interrupted (Ctrl-C).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: "The SQLite database file (default: a temporary file deleted on exit).")
    var database: String?

    @Option(help: "A PEM certificate chain (the server's certificate first) to serve HTTPS with; needs --tls-key.")
    var tlsCertificate: String?

    @Option(help: "The PEM private key of --tls-certificate.")
    var tlsKey: String?

    func run() async throws {
        var logger = Logger(label: "courier.serve")
        logger.logLevel = .info
        let tls = try tls()
        let server: ImageStoreServer
        do {
            var configuration = ServerConfiguration(host: host, port: port, databasePath: database)
            configuration.tls = tls
            server = try await ImageStoreServer.start(configuration, logger: logger)
        } catch {
            throw ValidationError("Could not start the server on \(host):\(port): \(error)")
        }
        print("ImageStoreServer listening on \(server.baseURL.absoluteString) (database: \(server.databasePath)); Ctrl-C to stop.")
        let signals = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Task { await server.stop() } }
            source.resume()
            return source
        }
        await server.waitUntilStopped()
        signals.forEach { $0.cancel() }
        print("Stopped.")
    }

    /// The certificate chain and key to serve HTTPS with, read from their files; `nil` for HTTP.
    private func tls() throws -> (certificateChainPEM: String, privateKeyPEM: String)? {
        switch (tlsCertificate, tlsKey) {
        case (nil, nil):
            return nil
        case (let certificate?, let key?):
            do {
                return (try String(contentsOfFile: certificate, encoding: .utf8), try String(contentsOfFile: key, encoding: .utf8))
            } catch {
                throw ValidationError("Could not read the TLS certificate or key: \(error.localizedDescription)")
            }
        default:
            throw ValidationError("Give both --tls-certificate and --tls-key to serve HTTPS, or neither.")
        }
    }
}
