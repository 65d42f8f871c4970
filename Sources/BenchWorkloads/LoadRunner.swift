import Synchronization

/// Runs an operation `count` times from `concurrency` workers and times the whole batch.
package enum LoadRunner {
    /// A batch's wall time and, when asked for, the latency of each operation.
    package struct Outcome: Sendable {
        /// Wall time of the whole batch.
        package var duration: Duration
        /// One entry per operation, in no particular order; empty unless latencies were asked for.
        package var latencies: [Duration]
    }

    /// Runs the batch; `recordingLatencies` times each operation as well (a clock read before and after).
    package static func run(
        count: Int, concurrency: Int, recordingLatencies: Bool = false, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Outcome {
        let next = Ticket()
        let clock = ContinuousClock()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var own: [Duration] = []
                    if recordingLatencies { own.reserveCapacity(count / concurrency + 1) }
                    while next.take() < count {
                        if recordingLatencies {
                            let began = clock.now
                            try await operation()
                            own.append(clock.now - began)
                        } else {
                            try await operation()
                        }
                    }
                    return own
                }
            }
            var all: [Duration] = []
            for try await own in group { all += own }
            return all
        }
        return Outcome(duration: clock.now - start, latencies: latencies)
    }
}

/// Hands out increasing numbers to concurrent workers.
package final class Ticket: Sendable {
    private let value = Atomic<Int>(0)

    /// Creates a counter at zero.
    package init() {}

    /// The next number.
    package func take() -> Int { value.add(1, ordering: .relaxed).oldValue }
}

/// A benchmark that could not run or saw a wrong answer.
package struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    package let description: String
    /// Creates the error.
    package init(_ description: String) { self.description = description }
}
