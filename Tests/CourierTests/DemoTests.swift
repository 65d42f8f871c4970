import Courier
import CourierDemo
import CourierProbes
import Testing

/// `courier demo` is the main job: its scenario runs to the end on both transports.
@Suite struct DemoTests {
    @Test(arguments: DemoTransport.allCases)
    func demoRunsToTheEnd(transport: DemoTransport) async throws {
        let lines = Locked<[String]>([])
        try await DemoScenario(transport: transport) { line in lines.withLock { $0.append(line) } }.run()
        let text = lines.withLock { $0.joined(separator: "\n") }
        #expect(text.contains("Done: every step behaved as described."))
        #expect(text.contains("The callback reported: The request was cancelled."))
        #expect(text.contains("404 → .notFound"))
        #expect(text.contains("Logged out; GET /me → .unauthorized"))
        #expect(text.contains("422 → .validationFailed: has already been taken (email)"))
        #expect(text.contains("The store already shows the new title: \"Final\"."))
        #expect(text.contains("title \"Final\"; GET /documents/notes → \"written offline\"; the outbox is empty."))
    }
}
