import Synchronization

/// Runs an operation `count` times from `concurrency` workers and times the whole batch.
enum LoadRunner {
    static func run(count: Int, concurrency: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Duration {
        let next = Ticket()
        let clock = ContinuousClock()
        return try await clock.measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<concurrency {
                    group.addTask {
                        while next.take() < count {
                            try await operation()
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Hands out increasing numbers to concurrent workers.
final class Ticket: Sendable {
    private let value = Atomic<Int>(0)

    func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
