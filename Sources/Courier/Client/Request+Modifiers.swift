import Dispatch
import Foundation

extension Request {
    /// A copy with `setting` set to `value`: what each modifier below is.
    func with<Setting>(_ setting: WritableKeyPath<RequestSettings, Setting>, _ value: Setting) -> Request {
        var copy = self
        copy.settings[keyPath: setting] = value
        return copy
    }

    /// A copy with the given header set.
    public func header(_ name: String, _ value: String) -> Request {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    /// A copy with upload progress reported to `handler`.
    public func onUploadProgress(_ handler: @escaping ProgressHandler) -> Request {
        with(\.uploadProgress, handler)
    }

    /// A copy with download progress reported to `handler`.
    public func onDownloadProgress(_ handler: @escaping ProgressHandler) -> Request {
        with(\.downloadProgress, handler)
    }

    /// A copy whose callbacks run on `queue`.
    public func callback(on queue: DispatchQueue) -> Request {
        with(\.callbackQueue, queue)
    }

    /// A copy that uses the cache as `option` says.
    public func cache(_ option: CacheOption) -> Request {
        with(\.cacheOption, option)
    }

    /// A copy with offline mode on or off, whatever the client's setting.
    public func offlineMode(_ enabled: Bool = true) -> Request {
        with(\.offlineMode, enabled)
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
        with(\.retryPolicy, policy)
    }

    /// A copy that shares identical in-flight exchanges (`true`, any method) or never does (`false`).
    public func deduplicated(_ enabled: Bool = true) -> Request {
        with(\.deduplication, enabled)
    }

    /// A copy named `name` for metrics and traces.
    public func named(_ name: String) -> Request {
        with(\.name, name)
    }

    /// A copy that does not store its response in the cache.
    public func notSavedInCache() -> Request {
        with(\.shouldSaveInCache, false)
    }
}
