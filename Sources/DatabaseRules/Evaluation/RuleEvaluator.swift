import DatabaseModel
import Foundation
import HearthJSON

/// A rule failing at run time (a type error, a method on null, `parent()` of the root): the
/// rule then counts as false.
package struct RuleRuntimeError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// Evaluates checked rule expressions against variables.
///
/// Semantics (from targaryen's evaluator and the production-recorded cases it is tested on):
/// a member of `null` is `null`; calling something that is not a method, arithmetic on
/// non-numbers, ordering values of different types and `==` on snapshots are errors; `+`
/// concatenates when either side is a string; `x / 0` is `NaN`; `&&`, `||` and `?:` evaluate
/// lazily; a string's `length` counts UTF-16 code units.
package struct RuleEvaluator {
    package var variables: [String: RuleValue]

    package init(variables: [String: RuleValue]) {
        self.variables = variables
    }

    func fail(_ message: String) -> RuleRuntimeError { RuleRuntimeError(message: message) }

    package func evaluate(_ expr: RuleExpr) throws(RuleRuntimeError) -> RuleValue {
        switch expr.kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        case .regex(let r): return .regex(r)
        case .array(let items):
            var values: [RuleValue] = []
            for item in items { values.append(try evaluate(item)) }
            return .array(values)
        case .identifier(let name):
            guard let value = variables[name] else { throw fail("unknown variable \(name)") }
            return value
        case .member(let object, let name):
            return member(name, of: try evaluate(object))
        case .index(let object, let index):
            let target = try evaluate(object)
            switch try evaluate(index) {
            case .string(let name): return member(name, of: target)
            case .number(let n): return member(RuleValue.jsString(n), of: target)
            case .null: return .null
            default: throw fail("invalid property access")
            }
        case .call(let callee, let arguments):
            var values: [RuleValue] = []
            for argument in arguments { values.append(try evaluate(argument)) }
            guard case .method(let name, let receiver) = try evaluate(callee) else {
                throw fail("\(callee.kind) is not a function or method")
            }
            return try call(name, on: receiver, values)
        case .unary(let op, let operand):
            let value = try evaluate(operand)
            if op == "!" {
                guard case .bool(let b) = value else { throw fail("! only operates on booleans, got \(value.typeName)") }
                return .bool(!b)
            }
            guard case .number(let n) = value else { throw fail("- only operates on numbers, got \(value.typeName)") }
            return .number(-n)
        case .binary(let op, let left, let right):
            return try binary(op, try evaluate(left), try evaluate(right))
        case .logical(let op, let left, let right):
            guard case .bool(let l) = try evaluate(left) else { throw fail("left operand of \(op) is not a boolean") }
            if op == "&&" ? !l : l { return .bool(l) }
            guard case .bool(let r) = try evaluate(right) else { throw fail("right operand of \(op) is not a boolean") }
            return .bool(r)
        case .conditional(let test, let yes, let no):
            if case .bool(true) = try evaluate(test) { return try evaluate(yes) }
            return try evaluate(no)
        }
    }

    func member(_ name: String, of value: RuleValue) -> RuleValue {
        switch value {
        case .string(let s):
            if name == "length" { return .number(Double(s.utf16.count)) }
            return RuleMethod.stringMethods[name] != nil ? .method(name, receiver: .string(s)) : .null
        case .snapshot(let snap):
            return RuleMethod.snapshotMethods[name] != nil ? .method(name, receiver: .snapshot(snap)) : .null
        case .query(let q):
            return q.member(name)
        case .json(let json):
            if case .array(let items) = json {
                guard let i = Int(name), i >= 0, i < items.count else { return name == "length" ? .number(Double(items.count)) : .null }
                return RuleValue(json: items[i])
            }
            return json[name].map { RuleValue(json: $0) } ?? .null
        case .tree(let node):
            return KeyRules.isValidKey(name) ? RuleValue(node: node.child(DatabaseKey(name))) : .null
        default:
            return .null
        }
    }

    func string(_ value: RuleValue, _ method: String) throws(RuleRuntimeError) -> String {
        guard case .string(let s) = value else { throw fail("\(method) expects a string argument, got \(value.typeName)") }
        return s
    }

    func call(_ name: String, on receiver: RuleValue.Receiver, _ args: [RuleValue]) throws(RuleRuntimeError) -> RuleValue {
        switch receiver {
        case .string(let s):
            switch name {
            case "contains": return .bool(Self.find(Array(try string(args.first ?? .null, name).utf8), in: Array(s.utf8), from: 0) != nil)
            case "beginsWith": return .bool(s.utf8.starts(with: try string(args.first ?? .null, name).utf8))
            case "endsWith": return .bool(s.utf8.reversed().starts(with: try string(args.first ?? .null, name).utf8.reversed()))
            case "replace":
                guard args.count == 2 else { throw fail("replace expects 2 arguments") }
                let (a, b) = (try string(args[0], name), try string(args[1], name))
                return .string(Self.replacingAll(a, with: b, in: s))
            case "toLowerCase": return .string(s.lowercased())
            case "toUpperCase": return .string(s.uppercased())
            case "matches":
                guard case .regex(let r)? = args.first else { throw fail("matches expects a regular expression") }
                return .bool(r.matches(s))
            default: throw fail("no method \(name) on strings")
            }
        case .snapshot(let snap):
            switch name {
            case "val": return RuleValue(node: snap.node)
            case "child": return .snapshot(snap.child(try string(args.first ?? .null, name)))
            case "parent":
                guard let parent = snap.path.parent else { throw fail("parent() of the root") }
                return .snapshot(RuleSnapshot(root: snap.root, path: parent))
            case "hasChild": return .bool(!snap.child(try string(args.first ?? .null, name)).node.isEmpty)
            case "hasChildren":
                guard let list = args.first else { return .bool(snap.node.childCount > 0) }
                guard case .array(let names) = list else { throw fail("hasChildren expects an array of strings") }
                for n in names where snap.child(try string(n, name)).node.isEmpty { return .bool(false) }
                return .bool(true)
            case "exists": return .bool(!snap.node.isEmpty)
            case "getPriority":
                switch snap.node.priority {
                case .number(let n)?: return .number(n)
                case .string(let s)?: return .string(s)
                case nil: return .null
                }
            case "isNumber": if case .leaf(.number, _) = snap.node { return .bool(true) } else { return .bool(false) }
            case "isString": if case .leaf(.string, _) = snap.node { return .bool(true) } else { return .bool(false) }
            case "isBoolean": if case .leaf(.bool, _) = snap.node { return .bool(true) } else { return .bool(false) }
            default: throw fail("no method \(name) on snapshots")
            }
        }
    }

    /// The first offset of `needle` in `haystack` at or after `start` (bytes, as JavaScript
    /// compares strings: no canonical equivalence).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        if needle.isEmpty { return start }
        guard haystack.count >= needle.count else { return nil }
        var i = start
        while i + needle.count <= haystack.count {
            if haystack[i] == needle[0], haystack[i..<i + needle.count].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// `s` with every occurrence of `a` replaced by `b` (the database's `replace` replaces all).
    static func replacingAll(_ a: String, with b: String, in s: String) -> String {
        let (needle, haystack) = (Array(a.utf8), Array(s.utf8))
        guard !needle.isEmpty else { return s }
        var out: [UInt8] = []
        var i = 0
        while let j = find(needle, in: haystack, from: i) {
            out += haystack[i..<j]
            out += Array(b.utf8)
            i = j + needle.count
        }
        out += haystack[i...]
        return String(decoding: out, as: UTF8.self)
    }

    func binary(_ op: String, _ l: RuleValue, _ r: RuleValue) throws(RuleRuntimeError) -> RuleValue {
        switch op {
        case "+":
            switch (l, r) {
            case (.number(let a), .number(let b)): return .number(a + b)
            case (.string(let a), .string(let b)): return .string(a + b)
            case (.string(let a), .number(let b)): return .string(a + RuleValue.jsString(b))
            case (.number(let a), .string(let b)): return .string(RuleValue.jsString(a) + b)
            default: throw fail("+ needs numbers or strings, got \(l.typeName) and \(r.typeName)")
            }
        case "-", "*", "/", "%":
            guard case .number(let a) = l, case .number(let b) = r else {
                throw fail("\(op) needs numbers, got \(l.typeName) and \(r.typeName)")
            }
            switch op {
            case "-": return .number(a - b)
            case "*": return .number(a * b)
            case "/": return .number(b == 0 ? .nan : a / b)
            default: return .number(b == 0 ? .nan : fmod(a, b))
            }
        case "==", "===": return .bool(try equal(l, r))
        case "!=", "!==": return .bool(!(try equal(l, r)))
        default:
            let c: Int
            switch (l, r) {
            case (.number(let a), .number(let b)):
                if a.isNaN || b.isNaN { return .bool(false) }
                c = a == b ? 0 : (a < b ? -1 : 1)
            case (.string(let a), .string(let b)): c = DatabaseKey.compareUTF16(a, b)
            default: throw fail("\(op) needs two numbers or two strings, got \(l.typeName) and \(r.typeName)")
            }
            switch op {
            case "<": return .bool(c < 0)
            case "<=": return .bool(c <= 0)
            case ">": return .bool(c > 0)
            default: return .bool(c >= 0)
            }
        }
    }

    func equal(_ l: RuleValue, _ r: RuleValue) throws(RuleRuntimeError) -> Bool {
        switch (l, r) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.json(let a), .json(let b)): return a == b
        case (.tree(let a), .tree(let b)): return a == b
        case (.snapshot, _), (_, .snapshot), (.query, _), (_, .query), (.regex, _), (_, .regex), (.method, _), (_, .method):
            throw fail("== cannot compare \(l.typeName) and \(r.typeName)")
        default: return false
        }
    }
}
