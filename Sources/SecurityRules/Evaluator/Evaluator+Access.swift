/// Member access, indexing, slices and path literals.
extension Evaluator {
    /// `value.name`: a map entry; `null` and missing keys are errors.
    func member(_ name: String, of value: RuleValue) -> RuleOutcome {
        switch value {
        case .map(let map): map[name].map(RuleOutcome.success) ?? .failure(.undefinedProperty(name))
        case .null: .failure(.nullValue)
        case .constrained(let c): .failure(c.unknown("Its property `\(name)`"))
        default: .failure(.undefinedProperty(name))
        }
    }

    func evaluateIndex(_ receiver: Expr, _ index: Expr, _ env: Environment) -> RuleOutcome {
        let base = evaluate(receiver, env)
        guard case .success(let container) = base else { return base }
        let key = evaluate(index, env)
        guard case .success(let keyValue) = key else { return key }
        switch (container, keyValue) {
        case (.map, .string(let name)):
            return member(name, of: container)
        case (.list(let values), .int(let position)):
            guard position >= 0, position < values.count else { return .failure(Self.outOfRange(position, values.count)) }
            return .success(values[Int(position)])
        case (.string(let text), .int(let position)):
            // UTF-16 code units, as Java strings in the official emulator ("a😀b"[3] == "b").
            let units = Array(text.utf16)
            guard position >= 0, position < units.count else { return .failure(Self.outOfRange(position, units.count)) }
            return .success(.string(Self.string(utf16: units[Int(position)...Int(position)])))
        case (.path(let path), .int(let position)):
            guard position >= 0, position < path.segments.count else {
                return .failure(Self.outOfRange(position, path.segments.count))
            }
            return .success(.string(path.segments[Int(position)]))
        case (.null, _):
            return .failure(.nullValue)
        default:
            return .failure(.unsupported("\(container.typeName)[\(keyValue.typeName)]"))
        }
    }

    /// Text from UTF-16 code units; a surrogate cut off from its pair becomes U+FFFD.
    static func string(utf16 units: ArraySlice<UInt16>) -> String {
        String(decoding: units, as: UTF16.self)
    }

    static func outOfRange(_ position: Int64, _ count: Int) -> RuleError {
        RuleError("Index \(position) is out of range for size \(count).")
    }

    func evaluateSlice(_ receiver: Expr, _ from: Expr?, _ to: Expr?, _ env: Environment) -> RuleOutcome {
        let base = evaluate(receiver, env)
        guard case .success(let container) = base else { return base }
        var bounds: [Int64?] = []
        for bound in [from, to] {
            guard let bound else {
                bounds.append(nil)
                continue
            }
            switch evaluate(bound, env) {
            case .success(.int(let value)): bounds.append(value)
            case .success(let value): return .failure(RuleError("Range bounds must be ints; got \(value.typeName).", origin: bound.id))
            case .failure(let error): return .failure(error)
            }
        }
        // As the official emulator checks them: a bound given is an index, the start one of the
        // elements (0 ≤ start < size) and the end one past an element (1 ≤ end ≤ size), and the
        // start is not after the end; a bound left out is not checked. So `[1, 2, 3][2:2]` is
        // empty while `[3:3]`, `[0:0]` and `[][0:]` fail, and `[][:]` is empty.
        func range(_ count: Int) -> Result<Range<Int>, RuleError> {
            let lower = bounds[0] ?? 0
            let upper = bounds[1] ?? Int64(count)
            let size = Int64(count)
            guard bounds[0].map({ $0 >= 0 && $0 < size }) ?? true, bounds[1].map({ $0 >= 1 && $0 <= size }) ?? true,
                  lower <= upper else {
                return .failure(RuleError("Index out of bound error: range [\(lower):\(upper)] of size \(count)."))
            }
            return .success(Int(lower)..<Int(upper))
        }
        switch container {
        case .list(let values):
            return range(values.count).map { .list(Array(values[$0])) }
        case .string(let text):
            let units = Array(text.utf16)
            return range(units.count).map { .string(Self.string(utf16: units[$0])) }
        case .path(let path):
            // A path's segments [from:to] make a path: /c/d[…] as the emulator slices it.
            return range(path.segments.count).map { .path(RulePath(Array(path.segments[$0]))) }
        case .null:
            return .failure(.nullValue)
        default:
            return .failure(.unsupported("\(container.typeName)[int:int]"))
        }
    }

    /// Builds a path from a path literal. An interpolation that is a whole segment and gives a
    /// path splices in its segments; otherwise a segment's text and interpolated strings and
    /// ints (in decimal) make one segment, even when a string contains `/` (as in the official
    /// emulator, where `$('users/alice')` is one segment, not a document path). An empty
    /// segment is an error. With `keepingPlaceholders` (the receiver of `.bind()`), a `{name}`
    /// segment and an undefined bare name in `$(name)` stay as `{name}` placeholders.
    func evaluatePath(_ segments: [PathSegmentExpr], _ env: Environment, keepingPlaceholders: Bool) -> RuleOutcome {
        var result: [String] = []
        for segment in segments {
            var text = ""
            var spliced: [String]?
            for piece in segment.pieces {
                switch piece {
                case .text(let literal):
                    text += literal
                case .templateVariable(let name):
                    guard keepingPlaceholders else { return .failure(RuleError("Variable \(name) is not bound in path template.")) }
                    text += "{\(name)}"
                case .interpolation(let expr):
                    if keepingPlaceholders, case .identifier(let name) = expr.kind, env.lookup(name) == nil {
                        text += "{\(name)}"
                        continue
                    }
                    switch evaluate(expr, env) {
                    case .success(.string(let value)): text += value
                    case .success(.int(let value)): text += String(value)
                    case .success(.path(let path)) where segment.pieces.count == 1: spliced = path.segments
                    case .success(.path(let path)): text += path.segments.joined(separator: "/")
                    case .success(let value):
                        return .failure(RuleError("Cannot use a \(value.typeName) in a path; expected a string.", origin: expr.id))
                    case .failure(let error): return .failure(error)
                    }
                }
            }
            let parts = spliced ?? [text]
            guard !parts.isEmpty, !parts.contains(where: \.isEmpty) else {
                return .failure(RuleError("Path segment is empty."))
            }
            result.append(contentsOf: parts)
        }
        return .success(.path(RulePath(result)))
    }
}
