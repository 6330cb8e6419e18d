package import FirestoreModel
import HearthIdentity

/// How one case went: what happened, whether that was what the spec expected, and why.
package struct CaseResult: Sendable {
    /// What the engine answered.
    package enum Outcome: Sendable {
        /// The request succeeded; `grantedBy` lists each rules decision that allowed it
        /// (`get on /databases/… allowed by tasks.rules:31:7 allow read: if …`), empty for the
        /// admin or a request no rule judged.
        case allowed(grantedBy: [String])
        /// The request failed with this error (for a denial, its message holds the trace).
        case failed(FirestoreError)
    }

    package var testCase: RulesTestCase
    package var outcome: Outcome
    package var seconds: Double

    /// Whether the outcome is the expected one.
    package var isPassed: Bool {
        switch (testCase.expectation, outcome) {
        case (.allow, .allowed): true
        case (.error(let code), .failed(let error)): error.code == code && testCase.because.map(error.message.contains) ?? true
        default: false
        }
    }

    /// The outcome in the spec's words: `allow`, `deny`, or an error code.
    package var actualDescription: String {
        switch outcome {
        case .allowed: "allow"
        case .failed(let error): RulesExpectation.error(error.code).description
        }
    }

    /// Why the case failed, on several lines: what was expected, what happened, and the
    /// decision trace behind it. Empty for a passed case.
    package var explanation: String {
        guard !isPassed else { return "" }
        var lines = ["expected \(testCase.expectation), got \(actualDescription)"]
        if let because = testCase.because, case .failed(let error) = outcome, testCase.expectation == .error(error.code) {
            lines = ["expected \(testCase.expectation) because of `\(because)`, got \(actualDescription) for another reason"]
        }
        switch outcome {
        case .allowed(let grants):
            if grants.isEmpty {
                lines.append(testCase.identity.isAdmin ? "(admin requests bypass the rules)" : "(no rules decision was made)")
            }
            lines += grants
        case .failed(let error):
            lines += error.message.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        return lines.joined(separator: "\n")
    }
}
