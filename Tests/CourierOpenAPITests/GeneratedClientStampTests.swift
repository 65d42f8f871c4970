import Crypto
import Foundation
import Testing

/// The sample server's client in Generated/ImageStoreAPI/Generated is generated from its document and
/// committed; its stamp is the SHA-256 of the document and the generator's configuration it was
/// generated from. A changed document needs `Scripts/generate-openapi.sh` run again.
@Test func theCommittedClientIsGeneratedFromTheCurrentDocument() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let document = try Data(contentsOf: root.appending(path: "Sources/ImageStoreServer/OpenAPI/openapi.yaml"))
    let configuration = try Data(contentsOf: root.appending(path: "Generated/ImageStoreAPI/openapi-generator-config.yaml"))
    let stamp = try String(contentsOf: root.appending(path: "Generated/ImageStoreAPI/openapi.sha256"), encoding: .utf8)
    let digest = SHA256.hash(data: document + configuration).map { String(format: "%02x", $0) }.joined()
    #expect(
        stamp.trimmingCharacters(in: .whitespacesAndNewlines) == digest,
        "openapi.yaml or the generator's configuration changed since the client was generated: run Scripts/generate-openapi.sh and commit Generated/ImageStoreAPI")
}
