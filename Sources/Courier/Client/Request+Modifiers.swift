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

    /// A copy that uses the cache as `option` says.
    public func cache(_ option: CacheOption) -> Request {
        var copy = self
        copy.cacheOption = option
        return copy
    }

    /// A copy with offline mode on or off, whatever the client's setting.
    public func offlineMode(_ enabled: Bool = true) -> Request {
        var copy = self
        copy.settings.offlineMode = enabled
        return copy
    }

    /// ``RequestSettings/offlineMode``, read and written in place. Spelled out because the
    /// modifier ``offlineMode(_:)`` shares its name, which hides the setting from
    /// `@dynamicMemberLookup`.
    public var offlineMode: Bool? {
        get { settings.offlineMode }
        set { settings.offlineMode = newValue }
    }

    /// A copy retried under `policy` instead of the client's policy.
    public func retry(_ policy: RetryPolicy) -> Request {
        var copy = self
        copy.retryPolicy = policy
        return copy
    }

    /// A copy that shares identical in-flight exchanges (`true`, any method) or never does (`false`).
    public func deduplicated(_ enabled: Bool = true) -> Request {
        var copy = self
        copy.deduplication = enabled
        return copy
    }

    /// A copy named `name` for metrics and traces.
    public func named(_ name: String) -> Request {
        var copy = self
        copy.name = name
        return copy
    }

    /// A copy that does not store its response in the cache.
    public func notSavedInCache() -> Request {
        var copy = self
        copy.shouldSaveInCache = false
        return copy
    }
}
