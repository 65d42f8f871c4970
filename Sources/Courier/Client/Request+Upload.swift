import Foundation

extension Request where Value: Decodable {
    /// An upload (seed 003's `MJApiUploadRequest`): a multipart body of `parts`, sent with POST
    /// unless another method is given. File parts are streamed from disk.
    ///
    /// ```swift
    /// let upload = Request<ImageInfo>.upload("images", parts: [
    ///     .text("title", "Sunset"), .file("image", photoURL),
    /// ]).onUploadProgress { print($0.fractionCompleted ?? 0) }
    /// ```
    public static func upload(
        _ path: String, method: HTTPMethod = .post, parts: [MultipartPart], query: Parameters = [:], headers: HTTPHeaders = [:]
    ) -> Request {
        Request(method, path, query: query, body: .multipart(parts), headers: headers)
    }
}

extension Request where Value == JSONValue {
    /// An upload answered with untyped JSON; see the `Decodable` variant.
    public static func upload(
        _ path: String, method: HTTPMethod = .post, parts: [MultipartPart], query: Parameters = [:], headers: HTTPHeaders = [:]
    ) -> Request {
        Request(method, path, query: query, body: .multipart(parts), headers: headers)
    }
}

extension Request where Value == Data {
    /// An upload answered with the raw body; see the `Decodable` variant.
    public static func upload(
        _ path: String, method: HTTPMethod = .post, parts: [MultipartPart], query: Parameters = [:], headers: HTTPHeaders = [:]
    ) -> Request {
        Request(method, path, query: query, body: .multipart(parts), headers: headers)
    }
}
