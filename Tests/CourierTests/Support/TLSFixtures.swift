import Foundation

/// A test CA and certificates made with the `openssl` command line (Debian's openssl) in a
/// temporary folder: servers for `localhost` (good, for another host, expired, RSA), a client
/// certificate of the CA (PEM, encrypted PEM and PKCS#12) and one no CA signed.
struct TLSFixtures {
    let directory: TemporaryDirectory
    /// The PKCS#12 and encrypted key password.
    static let password = "p12-secret-Zq83"

    func url(_ name: String) -> URL { directory.url.appendingPathComponent(name) }
    func text(_ name: String) throws -> String { try String(contentsOf: url(name), encoding: .utf8) }
    func data(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func make() async throws -> TLSFixtures {
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw TestTools.Missing(description: "openssl is not installed (Debian: apt-get install openssl; .ci/run installs it)")
        }
        let directory = try TemporaryDirectory.created()
        let fixtures = TLSFixtures(directory: directory)
        func run(_ arguments: [String]) async throws {
            let outcome = try await ChildProcess.run(
                executable: URL(fileURLWithPath: openssl), arguments: arguments, directory: directory.url, within: .seconds(60))
            guard outcome.succeeded else { throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(outcome)") }
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try await run(["req", "-x509"] + ec + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "3650", "-subj", "/CN=Courier Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try FileManager.default.createDirectory(at: fixtures.url("issued"), withIntermediateDirectories: true)
        try Data().write(to: fixtures.url("index.txt"))
        try Data("1000\n".utf8).write(to: fixtures.url("serial"))
        try Data("""
            [ ca ]
            default_ca = test
            [ test ]
            database = index.txt
            new_certs_dir = issued
            serial = serial
            default_md = sha256
            policy = any
            unique_subject = no
            [ any ]
            commonName = supplied

            """.utf8).write(to: fixtures.url("ca.cnf"))
        // name, subject, alternative names, usage, key, validity
        let leaves: [(String, String, String, String, [String], (String, String))] = [
            ("good", "localhost", "DNS:localhost,IP:127.0.0.1", "serverAuth", ec, ("20240101000000Z", "20991231000000Z")),
            ("rsa", "localhost", "DNS:localhost,IP:127.0.0.1", "serverAuth", ["-newkey", "rsa:2048", "-nodes"], ("20240101000000Z", "20991231000000Z")),
            ("wronghost", "wrong.example", "DNS:wrong.example", "serverAuth", ec, ("20240101000000Z", "20991231000000Z")),
            ("expired", "localhost", "DNS:localhost,IP:127.0.0.1", "serverAuth", ec, ("20200101000000Z", "20210101000000Z")),
            ("client", "courier-client", "DNS:courier-client", "clientAuth", ec, ("20240101000000Z", "20991231000000Z")),
        ]
        for (name, subject, names, usage, key, (start, end)) in leaves {
            try await run(["req", "-new"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(subject)"])
            try Data("[ leaf ]\nbasicConstraints = CA:FALSE\nsubjectAltName = \(names)\nextendedKeyUsage = \(usage)\n".utf8)
                .write(to: fixtures.url("\(name).ext"))
            try await run([
                "ca", "-config", "ca.cnf", "-batch", "-notext", "-keyfile", "ca.key", "-cert", "ca.pem", "-in", "\(name).csr",
                "-out", "\(name).pem", "-startdate", start, "-enddate", end, "-extfile", "\(name).ext", "-extensions", "leaf",
            ])
            try await run(["pkey", "-in", "\(name).key", "-pubout", "-outform", "der", "-out", "\(name).spki"])
        }
        try await run(["pkcs12", "-export", "-inkey", "client.key", "-in", "client.pem", "-out", "client.p12", "-passout", "pass:\(password)"])
        try await run(["pkey", "-in", "client.key", "-aes256", "-passout", "pass:\(password)", "-out", "client-encrypted.key"])
        try await run(["pkey", "-in", "ca.key", "-pubout", "-outform", "der", "-out", "ca.spki"])
        // A client certificate no CA the server knows signed.
        try await run(["req", "-x509"] + ec + ["-keyout", "stranger.key", "-out", "stranger.pem", "-days", "30", "-subj", "/CN=stranger"])
        return fixtures
    }
}
