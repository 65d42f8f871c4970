import Foundation

/// A test CA and certificates made by `Scripts/tls-tools.py fixtures` (cryptography, from PyPI,
/// in the `test-servers` environment) in a temporary folder: servers for `localhost` (good, for
/// another host, expired, RSA), a client certificate of the CA (PEM, encrypted PEM and PKCS#12)
/// and one no CA signed. Keys are PKCS#8 PEM, `NAME.spki` the DER of each public key.
struct TLSFixtures {
    let directory: TemporaryDirectory
    /// The PKCS#12 and encrypted key password.
    static let password = "p12-secret-Zq83"

    func url(_ name: String) -> URL { directory.url.appendingPathComponent(name) }
    func text(_ name: String) throws -> String { try String(contentsOf: url(name), encoding: .utf8) }
    func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    static func make() async throws -> TLSFixtures {
        let directory = try TemporaryDirectory.created()
        do {
            let script = TestTools.root.appendingPathComponent("Scripts/tls-tools.py").path
            _ = try await TestTools.runPython([script, "fixtures", directory.url.path, password], in: .servers)
        } catch {
            directory.remove()
            throw error
        }
        return TLSFixtures(directory: directory)
    }
}
