import Dispatch
import Foundation

extension Request {
    /// A copy with the given header set.
    public func header(_ name: String, _ value: String) -> Request {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    /// A copy with upload progress reported to `handler`.
    public func onUploadProgress(_ handler: @escaping ProgressHandler) -> Request {
        var copy = self
        copy.uploadProgress = handler
        return copy
    }

    /// A copy with download progress reported to `handler`.
    public func onDownloadProgress(_ handler: @escaping ProgressHandler) -> Request {
        var copy = self
        copy.downloadProgress = handler
        return copy
    }

    /// A copy whose callbacks run on `queue`.
    public func callback(on queue: DispatchQueue) -> Request {
        var copy = self
        copy.callbackQueue = queue
        return copy
    }

    /// A copy that does not store its response in the cache.
    public func notSavedInCache() -> Request {
        var copy = self
        copy.shouldSaveInCache = false
        return copy
    }
}
