import Courier
import Foundation

/// An image's metadata as the demo keeps it in a `CourierStore`: no CodingKeys, no schema code
/// (the payload's `id` is read for `uid`, `mimeType` as is).
package struct StoredImage: Codable, Identified, Sendable {
    /// The image's id on the server.
    package var uid: Int
    /// The title.
    package var title: String
    /// The MIME type.
    package var mimeType: String
    /// The size in bytes.
    package var size: Int
}
