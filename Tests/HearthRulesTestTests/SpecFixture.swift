import Foundation
@testable import HearthRulesTest

/// A spec written to a fresh temporary directory beside its rules file, so that tests read and
/// run specs exactly as `hearth test` does.
struct SpecFixture {
    let directory: URL

    init(rules: String, name: String = "test.rules") throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-rulestest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try rules.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    /// Writes `text` as `name` and returns its path.
    func write(_ text: String, as name: String = "spec.yaml") throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func parse(_ text: String) -> Result<RulesSpec, SpecFailure> {
        RulesSpec.parse(text, file: "spec.yaml", directory: directory)
    }

    func run(_ text: String) async throws -> SpecOutcome {
        await RulesTestRunner.run(path: try write(text))
    }

    static let ownerRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /notes/{id} {
              allow read, delete: if request.auth != null && resource.data.owner == request.auth.uid;
              allow create: if request.auth != null && request.resource.data.owner == request.auth.uid
                && request.resource.data.keys().hasOnly(['owner', 'text', 'at', 'tags', 'n']);
              allow update: if request.auth != null && resource.data.owner == request.auth.uid
                && request.resource.data.owner == resource.data.owner;
            }
          }
        }
        """
}
