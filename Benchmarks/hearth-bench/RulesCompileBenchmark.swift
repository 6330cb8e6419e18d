import Foundation
import SecurityRules

/// Rules compile time (`hearth-bench --only rulescompile`): milliseconds to lex, parse and check
/// rulesets of about 10,000 tokens and of the 256 KiB limit, realistic and hostile, in process
/// (the HTTP PUT adds only JSON decoding). Each figure is the median of several compiles after
/// one warm-up.
enum RulesCompileBenchmark {
    /// A realistic block: helper functions with `let`s, a validated collection, a subcollection.
    static func block(_ i: Int) -> String {
        """
            function isOwner\(i)(data) {
              let uid = request.auth.uid;
              let owner = data.get('userId', null);
              return request.auth != null && owner == uid;
            }
            function isValid\(i)(data) {
              return data.keys().hasAll(['title', 'priority', 'completed', 'userId'])
                && data.keys().hasOnly(['title', 'priority', 'completed', 'userId', 'createdTime'])
                && data.title is string && data.title.size() <= 1000
                && data.priority in ['high', 'medium', 'low']
                && data.completed is bool
                && (!('createdTime' in data) || data.createdTime == request.time);
            }
            match /tasks\(i)/{taskId} {
              allow read: if isOwner\(i)(resource.data);
              allow create: if isOwner\(i)(request.resource.data) && isValid\(i)(request.resource.data);
              allow update: if isOwner\(i)(resource.data) && isOwner\(i)(request.resource.data)
                && isValid\(i)(request.resource.data)
                && request.resource.data.diff(resource.data).affectedKeys().hasOnly(['title', 'priority', 'completed']);
              allow delete: if isOwner\(i)(resource.data);
              match /comments/{commentId} {
                allow read: if exists(/databases/$(database)/documents/tasks\(i)/$(taskId))
                  && get(/databases/$(database)/documents/tasks\(i)/$(taskId)).data.userId == request.auth.uid;
                allow create: if request.resource.data.text is string && request.resource.data.text.matches('^[^<>]{1,500}$');
              }
            }

        """
    }

    static func ruleset(_ body: String) -> String {
        "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n\(body)  }\n}\n"
    }

    /// Realistic blocks repeated until the ruleset has at least `tokens` tokens.
    static func realistic(tokens: Int) -> String {
        var body = "", i = 0
        while true {
            body += block(i)
            i += 1
            if i % 4 == 0, Self.tokens(ruleset(body)) >= tokens { return ruleset(body) }
        }
    }

    static func tokens(_ text: String) -> Int {
        Lexer.tokenize(RulesSource(name: "b", text: text)).tokens.count
    }

    static func run() {
        let maxSize = Ruleset.maxSourceSize
        var shapes: [(String, String)] = [("realistic, 10k tokens", realistic(tokens: 10_000))]
        var body = "", i = 0
        while ruleset(body + block(i)).utf8.count < maxSize { body += block(i); i += 1 }
        shapes.append(("realistic, at the 256 KiB limit", ruleset(body)))
        func fn(_ body: String) -> String { "    function f() {\n\(body)\n      return true;\n    }\n    match /a/{b} { allow read: if f(); }\n" }
        shapes.append(("1,000 lets in one function (refused)", ruleset(fn((1...1000).map { "      let v\($0) = \($0);" }.joined(separator: "\n")))))
        shapes.append(("5,000-term && chain (refused)", ruleset("    match /a/{b} { allow read: if \(Array(repeating: "true", count: 5000).joined(separator: " && ")); }\n")))
        shapes.append(("3,300 functions, 10k tokens", ruleset((1...1100).map { "    function f\($0)() { return true; }\n" }.joined())))
        shapes.append(("2,000 sibling matches", ruleset((1...2000).map { "    match /c\($0)/{d} { allow read: if request.auth != null; }\n" }.joined())))
        shapes.append(("deep parentheses and negations (refused)", ruleset("    match /a/{b} { allow read: if \(String(repeating: "(!", count: 5000))true\(String(repeating: ")", count: 5000)); }\n")))
        print("rules compile (lex, parse, check), median of 9 after a warm-up:")
        for (name, text) in shapes {
            let source = RulesSource(name: "firestore.rules", text: text)
            var samples: [Double] = []
            var compiled = false
            for round in 0..<10 {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let compilation = Ruleset.compile(files: [source], expectedService: .firestore)
                let t1 = DispatchTime.now().uptimeNanoseconds
                compiled = compilation.ruleset != nil
                if round > 0 { samples.append(Double(t1 - t0) / 1e6) }
            }
            samples.sort()
            let median = samples[samples.count / 2]
            let line = "  \(name): \(text.utf8.count / 1024) KiB, \(tokens(text)) tokens, \(compiled ? "compiles" : "refused"): "
                + String(format: "%.2f ms", median)
            print(line)
        }
    }
}
