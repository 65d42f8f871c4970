/// One outcome that many callers wait for together: the shape of an exchange shared by identical
/// requests and of a credential refresh shared by every request that met a 401.
///
/// A caller takes a place (``enter(_:)``), then waits in it (``wait(in:)``) with a continuation of
/// its own. A cancelled caller leaves at once with a `CancellationError`, also when it is cancelled
/// between taking its place and waiting (the place remembers), and the outcome goes on for the
/// others. When the outcome comes (``finish(with:)``) every waiting caller gets it; a caller that
/// took a place and has not come to wait finds it kept.
///
/// Each place holds a guest: what the caller brought (an exchange's caller, its progress
/// observer), told of the outcome before the caller is resumed.
///
/// A room that closes when empty also keeps the work to stop (``attachStop(_:)``): the
/// last caller to leave stops it, also when it left before the work could be stopped.
///
/// Everything the room keeps has a layout the compiler knows without the guest's type: guests are
/// classes, continuations are `UnsafeContinuation`s (resumed once, by the state machine below), and
/// a kept outcome is boxed. The state's lock is a generic wrapper whose deinit runs unspecialized,
/// and a field of unknown layout there (a `CheckedContinuation`, a `Result` of the value) costs a
/// run-time type-metadata lookup each time one is copied or destroyed: several a request.
final class WaitingRoom<Guest: WaitingRoomGuest>: Sendable {
    typealias Outcome = Result<Guest.Value, any Error>
    typealias Continuation = UnsafeContinuation<Guest.Value, any Error>

    private struct Place {
        let id: Int
        let guest: Guest
        /// Set once the caller waits; resumed exactly once, after it is taken out of the state.
        var continuation: Continuation?
    }

    /// An outcome kept for callers that took a place and had not waited when it came.
    private final class Kept: Sendable {
        let outcome: Outcome
        init(_ outcome: Outcome) { self.outcome = outcome }
    }

    private struct State {
        /// Place 0, the caller that opened the room, kept apart from the others: a room nearly
        /// always has only it, and an array of one costs an allocation.
        var first: Place?
        /// Places 1 and on. An array, not a set: small arrays cost no hashing.
        var others: [Place] = []
        /// Places whose caller was cancelled before it waited.
        var departed: [Int] = []
        var nextID = 1
        /// The outcome, kept once it came only for callers that took a place but had not waited.
        var kept: Kept?
        /// Stops the work; `nil` before it is known and once the outcome came.
        var stop: (any StoppableWork)?
        /// Everyone left before the outcome: the work is to be stopped.
        var abandoned = false
        /// The outcome came.
        var finished = false

        /// The room takes no one new: the outcome came, or everyone left a room that closes then.
        var closed: Bool { finished || abandoned }

        var isEmpty: Bool { first == nil && others.isEmpty }

        init(first: Place) { self.first = first }

        /// Gives the caller in place `id` its continuation; `false` if the place is not in the room.
        mutating func setContinuation(_ continuation: Continuation, in id: Int) -> Bool {
            if id == 0 {
                guard first != nil else { return false }
                first?.continuation = continuation
                return true
            }
            guard let index = others.firstIndex(where: { $0.id == id }) else { return false }
            others[index].continuation = continuation
            return true
        }

        /// Takes place `id` out of the room, if it is there.
        mutating func remove(_ id: Int) -> Place? {
            if id == 0 {
                var place: Place?
                swap(&place, &first)
                return place
            }
            guard let index = others.firstIndex(where: { $0.id == id }) else { return nil }
            return others.remove(at: index)
        }
    }

    private let state: Locked<State>
    /// Whether the room closes when its last caller leaves before the outcome (an exchange nobody
    /// waits for is stopped; a refresh goes on for the credentials it stores, and others may join).
    private let closesWhenEmpty: Bool

    /// A room whose first place, number 0, is taken by `first`.
    init(first: Guest, closesWhenEmpty: Bool) {
        state = Locked(State(first: Place(id: 0, guest: first)))
        self.closesWhenEmpty = closesWhenEmpty
    }

    /// Takes a place for a caller about to wait; `nil` when the room is closed.
    func enter(_ guest: Guest) -> Int? {
        state.withLock { state in
            guard !state.closed else { return nil }
            defer { state.nextID += 1 }
            state.others.append(Place(id: state.nextID, guest: guest))
            return state.nextID
        }
    }

    /// Keeps the way to stop the work for when the last caller leaves, or stops it now if everyone
    /// has left; not once the outcome came.
    func attachStop(_ stop: any StoppableWork) {
        let stopNow = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if state.abandoned { return true }
            state.stop = stop
            return false
        }
        if stopNow { stop.stop() }
    }

    /// Waits in place `id` for the outcome; cancelling the caller leaves the place at once with a
    /// `CancellationError`, and the last caller to leave a room that closes when empty stops the
    /// work.
    func wait(in id: Int) async throws -> Guest.Value {
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: Continuation) in
                let early: (Outcome, Guest?)? = state.withLock { state in
                    if let index = state.departed.firstIndex(of: id) {
                        state.departed.remove(at: index)
                        return (.failure(CancellationError()), nil)
                    }
                    if let outcome = state.kept?.outcome {
                        guard let place = state.remove(id) else { return (.failure(CancellationError()), nil) }
                        return (outcome, place.guest)
                    }
                    guard state.setContinuation(continuation, in: id) else { return (.failure(CancellationError()), nil) }
                    return nil
                }
                if let (outcome, guest) = early {
                    guest?.arrive(with: outcome)
                    continuation.resume(with: outcome)
                }
            }
        } onCancel: {
            leave(id)
        }
    }

    /// Removes the caller in place `id`, resuming it with a `CancellationError` if it waits; the
    /// last caller to leave a room that closes when empty closes it and stops the work.
    private func leave(_ id: Int) {
        let (left, stop): (Place?, (any StoppableWork)?) = state.withLock { state in
            guard !state.finished, let place = state.remove(id) else { return (nil, nil) }
            if place.continuation == nil { state.departed.append(id) }
            guard closesWhenEmpty, state.isEmpty, !state.abandoned else { return (place, nil) }
            state.abandoned = true
            defer { state.stop = nil }
            return (place, state.stop)
        }
        left?.continuation?.resume(throwing: CancellationError())
        stop?.stop()
    }

    /// Hands the outcome to every waiting caller and keeps it for those that have not come to
    /// wait; the room takes no one new.
    func finish(with outcome: Outcome) {
        let (first, others): (Place?, [Place]) = state.withLock { state in
            state.finished = true
            // The work can hold what holds this room: let it go now that there is nothing to stop.
            state.stop = nil
            // Every place usually waits: take them all, and put back the rare caller that took a
            // place but has not come to wait (it finds the outcome kept for it).
            var first: Place?
            if state.first?.continuation != nil { swap(&first, &state.first) }
            var others: [Place] = []
            swap(&others, &state.others)
            if others.contains(where: { $0.continuation == nil }) {
                state.others = others.filter { $0.continuation == nil }
                others.removeAll { $0.continuation == nil }
            }
            if !state.isEmpty { state.kept = Kept(outcome) }
            return (first, others)
        }
        if let first { Self.hand(outcome, to: first) }
        for place in others { Self.hand(outcome, to: place) }
    }

    private static func hand(_ outcome: Outcome, to place: Place) {
        place.guest.arrive(with: outcome)
        place.continuation?.resume(with: outcome)
    }

    /// The guests of the room now.
    var guests: [Guest] {
        state.withLock { state in
            var guests = state.first.map { [$0.guest] } ?? []
            guests.append(contentsOf: state.others.lazy.map(\.guest))
            return guests
        }
    }
}

/// Work a ``WaitingRoom`` stops when its last caller leaves (an object, so keeping it costs no
/// closure).
protocol StoppableWork: AnyObject, Sendable {
    func stop()
}

/// What a caller brings into a ``WaitingRoom``: told of the outcome before its caller resumes. A
/// class, so that the room stores it without knowing its type's layout.
protocol WaitingRoomGuest: AnyObject, Sendable {
    associatedtype Value: Sendable
    func arrive(with outcome: Result<Value, any Error>)
}
