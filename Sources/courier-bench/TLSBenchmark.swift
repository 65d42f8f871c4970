import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Subprocess
import SystemPackage

/// `courier-bench tls`: small GETs over HTTPS on kept-alive connections, Courier on
/// async-http-client with a `TrustPolicy` (the server's self-signed certificate as the only root)
/// against async-http-client's own API on the same `HTTPClient`, so with the same
/// `TLSConfiguration`; concurrency 1 and 32. The sample server serves HTTPS with a certificate
/// the `openssl` command line makes for the run. `tls.ahc.handshake.pins` compares new connections
/// with the server's key pinned against the same without pins.
struct TLSBenchmark {
    let options: BenchOptions

    func run() async throws {
        let directory = try scratchDirectory("tls")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try? await Subprocess.run(
            .name("openssl"),
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "key.pem", "-out",
                "certificate.pem", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], workingDirectory: FilePath(directory.path), output: .discarded, error: .string(limit: 64 * 1024))
        guard let made, made.terminationStatus.isSuccess else {
            print("courier-bench tls: openssl could not make a certificate (Debian: apt-get install openssl): \(made?.standardError ?? "not found")")
            return
        }
        let certificate = try String(contentsOf: directory.appendingPathComponent("certificate.pem"), encoding: .utf8)
        let key = try String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8)
        var serverConfiguration = ServerConfiguration()
        serverConfiguration.tls = (certificate, key)
        let server = try await ImageStoreServer.instrumented(serverConfiguration)
        defer { Task { await server.stop() } }
        var settings = AsyncHTTPClientTransport.Configuration()
        settings.maximumConnectionsPerHost = 32
        settings.trust = TrustPolicy(roots: .only(try TrustPolicy.Certificate.pemEncoded(certificate)))
        let ahc = AsyncHTTPClientTransport(configuration: settings)
        let base = server.baseURL
        for (concurrency, count) in [(1, options.scaled(600)), (32, options.scaled(2000))] {
            let name = "tls.ahc.small.c\(concurrency)"
            guard options.selects(name) else { continue }
            let pair = PairedMeasurement(name: name, count: count, concurrency: concurrency, rounds: options.rounds)
            PairedMeasurement.report(
                name,
                try await pair.run(
                    courier: SmallGet.courier(try SmallGet.client(base, ahc), path: "sample", expectedBytes: nil),
                    raw: SmallGet.rawAHC(ahc.client, baseURL: base, path: "sample", expectedBytes: nil)))
        }
        if options.selects("tls.ahc.handshake.pins") {
            try await handshakes(base: base, certificate: certificate, settings: settings)
        }
        try await ahc.shutdown()
        await server.stop()
    }

    /// `tls.ahc.handshake.pins`: GETs that each open a new connection (`Connection: close`), so
    /// each costs a TLS handshake, with the server's key pinned against the same without pins:
    /// the cost of checking pins on a connection. Concurrency 1.
    private func handshakes(base: URL, certificate: String, settings: AsyncHTTPClientTransport.Configuration) async throws {
        guard let der = try TrustPolicy.Certificate.pemEncoded(certificate).first?.derBytes,
              let key = SubjectPublicKeyInfo.digest(certificate: der)
        else { throw BenchError("tls: the certificate's key could not be read") }
        let backup = Data(repeating: 7, count: 32).base64EncodedString()
        var pinnedSettings = settings
        pinnedSettings.trust.pins = [try TrustPolicy.PublicKeyPins(host: "127.0.0.1", sha256: [key.base64EncodedString(), backup], scope: .leaf)]
        let pinned = AsyncHTTPClientTransport(configuration: pinnedSettings)
        let unpinned = AsyncHTTPClientTransport(configuration: settings)
        func newConnectionEach(_ transport: AsyncHTTPClientTransport) throws -> @Sendable () async throws -> Void {
            let client = try SmallGet.client(base, transport)
            return { _ = try await client.send(Request<Data>(.get, "sample").header("Connection", "close").deduplicated(false)) }
        }
        let name = "tls.ahc.handshake.pins"
        let pair = PairedMeasurement(name: name, count: options.scaled(400), concurrency: 1, rounds: options.rounds)
        let result = try await pair.run(courier: try newConnectionEach(pinned), raw: try newConnectionEach(unpinned))
        print(
            "\(name) ratio=\(String(format: "%.3f", result.ratio)) pinned=\(Int(result.courier.rounded()))/s unpinned=\(Int(result.raw.rounded()))/s"
                + " (a new connection and handshake per GET, pins on the server's key against none)")
        try await pinned.shutdown()
        try await unpinned.shutdown()
    }
}
