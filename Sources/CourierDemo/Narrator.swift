import Courier
import Foundation

/// Prints the demo's narration.
final class Narrator: Sendable {
    private let stepNumber = Locked(0)
    private let output: @Sendable (String) -> Void

    init(output: @escaping @Sendable (String) -> Void) { self.output = output }

    func title(_ text: String) { output("\n== \(text) ==") }

    func step(_ text: String) {
        let number = stepNumber.withLock { value in
            value += 1
            return value
        }
        output("\n\(number). \(text)")
    }

    func say(_ text: String) { output("   \(text)") }
}

/// A one-line text progress bar.
final class ProgressBar: Sendable {
    private let narrator: Narrator
    private let lastDrawn = Locked(-1)

    init(narrator: Narrator) { self.narrator = narrator }

    func update(_ progress: TransferProgress) {
        guard let fraction = progress.fractionCompleted else { return }
        let percent = Int(fraction * 100)
        let draw = lastDrawn.withLock { last in
            guard percent >= last + 10 || (percent == 100 && last != 100) else { return false }
            last = percent
            return true
        }
        if draw {
            let filled = percent / 5
            narrator.say("[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "] \(percent)%  \(progress)")
        }
    }
}
