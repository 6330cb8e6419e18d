import Foundation
import HearthRulesTest

/// `hearth test` throughput (`hearth-bench --only rulestest`): a generated spec of 1,000 cases
/// against rules/tasks.rules (reads, queries, listeners, creates, updates, deletes, batches and
/// transactions, allowed and denied, a third of them writes whose documents are restored from the seed before the next case), run
/// in process as `hearth test` runs it, YAML reading included; then the same spec through the
/// `hearth` binary, process start included. The issue's bar: 1,000 cases in under 2 s.
enum RulesTestBenchmark {
    static let steps = [
        "{as: alice, get: tasks/t1, expect: allow}",
        "{as: bob, get: tasks/t1, expect: deny}",
        "{as: alice, list: tasks, where: [userId, ==, alice], orderBy: [createdTime], limit: 10, expect: allow}",
        "{as: alice, list: tasks, expect: deny}",
        "{as: alice, listen: tasks/t2, expect: allow}",
        "{as: alice, create: tasks/new, data: {userId: alice, title: New, priority: low, completed: false, createdTime: !serverTimestamp }, expect: allow}",
        "{as: alice, create: tasks/new, data: {userId: bob, title: New, priority: low, completed: false}, expect: deny}",
        "{as: alice, update: tasks/t1, data: {completed: true}, expect: allow}",
        "{as: bob, update: tasks/t1, data: {completed: true}, expect: deny}",
        "{as: alice, delete: tasks/t2, expect: allow}",
        "{as: alice, batch: [{update: tasks/t1, data: {completed: true}}, {delete: tasks/t5}], expect: deny}",
        "{as: alice, transaction: [{get: tasks/t1}, {update: tasks/t1, data: {title: Changed}}], expect: allow}",
    ]

    static func spec(cases: Int) -> String {
        var yaml = """
            rules: \(FileManager.default.currentDirectoryPath)/rules/tasks.rules
            identities:
              alice: {uid: alice}
              bob: {uid: bob}
            seed:

            """
        for i in 0..<50 {
            yaml += "  tasks/t\(i): {userId: \(i % 5 == 0 ? "bob" : "alice"), title: Task \(i), priority: low, completed: false, createdTime: !timestamp 2024-05-01T09:00:00Z}\n"
        }
        yaml += "cases:\n"
        for i in 0..<cases { yaml += "  - " + steps[i % steps.count] + "\n" }
        return yaml
    }

    static func run(hearth: String?, cases: Int = 1000) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-rulestest-\(getpid()).yaml").path
        try spec(cases: cases).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var samples: [Double] = []
        for round in 0..<4 {
            let t0 = monotonicNanos()
            let outcome = await RulesTestRunner.run(path: path)
            let elapsed = Double(monotonicNanos() - t0)
            guard outcome.isPassed, outcome.results.count == cases else {
                let failure = outcome.results.first { !$0.isPassed }
                print("rulestest: the generated spec did not pass: \(outcome.setupFailure ?? "")\(failure.map { "\($0.testCase.name): \($0.explanation)" } ?? "")")
                return
            }
            if round > 0 { samples.append(elapsed) }
        }
        print("hearth test, \(cases) cases in process (YAML read, engine, written documents restored from the seed after each case): p50 \(ms(percentile(samples, 0.5))), "
              + "\(String(format: "%.1f", percentile(samples, 0.5) / 1e3 / Double(cases))) µs per case")
        guard let hearth, FileManager.default.isExecutableFile(atPath: hearth) else { return }
        var wall: [Double] = []
        for _ in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: hearth)
            process.arguments = ["test", path]
            process.standardOutput = FileHandle.nullDevice
            let t0 = monotonicNanos()
            try process.run()
            process.waitUntilExit()
            wall.append(Double(monotonicNanos() - t0))
            guard process.terminationStatus == 0 else {
                print("rulestest: `hearth test` exited \(process.terminationStatus)")
                return
            }
        }
        print("hearth test, \(cases) cases through the binary (process start included): p50 \(ms(percentile(wall, 0.5)))")
    }
}
