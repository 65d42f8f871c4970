import ArgumentParser
import Courier
import Foundation

/// `courier-test-helper cookie-probe`: stores `Set-Cookie` lines whose text is canonically equivalent
/// to other text of another length in bytes (a Kelvin sign is a `K`), then asks which cookies go to
/// URLs they would match as text: the matching that once crashed on them runs in a process of its
/// own, so a crash fails one test. Prints, per URL, the names of the cookies that go there.
struct CookieProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cookie-probe", abstract: "Match cookies whose paths and domains are canonically equivalent to other text.")

    func run() async throws {
        ParentWatch.start()
        let jar = CookieJar()
        guard let origin = URL(string: "http://example.com/") else { return }
        jar.store(["path=1; Path=/\u{212A}", "wide=1; Domain=\u{212A}.example.com", "plain=1; Path=/K"], for: origin)
        // An http cookie that may not shadow a Secure one compares both stored paths.
        if let secure = URL(string: "https://example.com/") {
            jar.store(["s=1; Secure; Path=/\u{212A}"], for: secure)
            jar.store(["s=2; Path=/K"], for: origin)
        }
        for text in ["http://example.com/Kx", "http://example.com/K", "http://k.example.com/", "http://example.com/%E2%84%AA"] {
            guard let url = URL(string: text) else { continue }
            print("\(text) " + jar.cookies(for: url).map(\.name).joined(separator: ","))
        }
    }
}
