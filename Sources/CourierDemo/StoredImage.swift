import Courier
import Foundation

/// An image's metadata as the demo keeps it in a `CourierStore`: no CodingKeys, no schema code
/// (the payload's `id` is read for `uid`, `mimeType` as is).
public struct StoredImage: Codable, Identified, Sendable {
    /// The image's id on the server.
    public var uid: Int
    /// The title.
    public var title: String
    /// The MIME type.
    public var mimeType: String
    /// The size in bytes.
    public var size: Int
}
