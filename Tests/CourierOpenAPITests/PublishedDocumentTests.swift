import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// The OpenAPI document the sample server serves at `/openapi.yaml` is the one the client is
/// generated from, and it names exactly the image store's routes.
@Suite struct PublishedDocumentTests {
    /// The document in the source tree (the generated client's target links to it).
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/ImageStoreServer/OpenAPI/openapi.yaml").standardizedFileURL

    @Test func theServerServesTheDocumentTheClientIsGeneratedFrom() async throws {
        try await OpenAPITransportKind.asyncHTTPClient.withServer { server, transport, _ in
            let client = server.courierClient(transport)
            let served = try await client.send(Request<Data>(.get, "openapi.yaml"))
            #expect(served.headers["Content-Type"] == "application/yaml")
            #expect(served.value == (try Data(contentsOf: Self.file)))
        }
    }

    @Test func theDocumentNamesEveryImageStoreRouteAndOnlyRoutesTheServerHas() async throws {
        let documented = try Self.operations(in: String(contentsOf: Self.file, encoding: .utf8))
        let server = try await ImageStoreServer.instrumented()
        let routes = Set(server.routes)
        await server.stop()
        // Every documented operation is a route of the server…
        #expect(documented.subtracting(routes).isEmpty, "documented but not served: \(documented.subtracting(routes).sorted())")
        // …and every route of the image store proper (accounts and images) is documented.
        let store = routes.filter { route in
            let path = route.split(separator: " ").last ?? ""
            return ["/auth", "/me", "/images"].contains { path == $0 || path.hasPrefix($0 + "/") }
        }
        #expect(store.subtracting(documented).isEmpty, "served but not documented: \(store.subtracting(documented).sorted())")
        #expect(documented.count >= 12)
    }

    /// `METHOD /path` for each operation of an OpenAPI document written as this one is (paths
    /// at two spaces, methods at four).
    static func operations(in yaml: String) throws -> Set<String> {
        let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var operations: Set<String> = []
        var path: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") { inPaths = line == "paths:"; path = nil; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                path = String(line.dropFirst(2).dropLast())
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if methods.contains(String(key)) { operations.insert("\(key.uppercased()) \(path)") }
            }
        }
        return operations
    }
}
