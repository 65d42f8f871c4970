import Foundation
import ImageStoreServer
import ImageStoreTesting

extension EchoReply {
    /// The body bytes the server received.
    var bodyData: Data { Data(base64Encoded: body) ?? Data() }
    /// The body the server received, as UTF-8 text.
    var bodyText: String { String(decoding: bodyData, as: UTF8.self) }
}
