extension Task where Success == Void, Failure == Never {
    /// A task that starts running on the calling thread, up to its first suspension (where the
    /// platform has `Task.immediate`), so starting it costs no hop to another thread.
    package static func startingHere(_ operation: sending @escaping @isolated(any) () async -> Void) -> Task<Void, Never> {
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }
}
