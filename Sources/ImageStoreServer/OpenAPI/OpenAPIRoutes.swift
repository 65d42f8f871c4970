import Hummingbird
import NIOCore

/// `GET /openapi.yaml`: the OpenAPI 3.1 document of the image store (openapi.yaml beside this
/// file, compiled in), from which swift-openapi-generator makes a client.
struct OpenAPIRoutes {
    /// The document's bytes.
    static let document = PackageResources.openapi_yaml

    func add(to router: Router<BasicRequestContext>) {
        router.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(bytes: Self.document)))
        }
    }
}
