/// The static types of the rules language, as production checks them when rules load
/// (targaryen's type inference, checked against production, is the model): values whose type
/// is only known at run time (`auth` and its members, `getPriority()`) are `any`; a
/// snapshot's `val()` is `primitive` (some primitive, used as a string for method lookup).
indirect enum RuleType: Equatable, Sendable, CustomStringConvertible {
    case boolean, number, string, null
    case snapshot, query, regex
    case any, primitive
    case array([RuleType])
    case method(RuleMethod)

    var isFuzzy: Bool { self == .any || self == .primitive }

    var isPrimitive: Bool {
        switch self {
        case .string, .number, .boolean, .null, .primitive: true
        default: false
        }
    }

    var description: String {
        switch self {
        case .boolean: "boolean"
        case .number: "number"
        case .string: "string"
        case .null: "null"
        case .snapshot: "RuleDataSnapshot"
        case .query: "Query"
        case .regex: "RegExp"
        case .any: "any"
        case .primitive: "primitive"
        case .array: "array"
        case .method(let m): "method \(m.name)"
        }
    }
}

/// A method of a string or snapshot: its arguments and result.
struct RuleMethod: Equatable, Sendable {
    enum Arguments: Equatable, Sendable {
        case fixed([RuleType])
        /// `hasChildren()` or `hasChildren([names…])`.
        case optionalNameList
    }

    var name: String
    var arguments: Arguments
    var result: RuleType

    static let stringMethods: [String: RuleMethod] = [
        "contains": RuleMethod(name: "contains", arguments: .fixed([.string]), result: .boolean),
        "beginsWith": RuleMethod(name: "beginsWith", arguments: .fixed([.string]), result: .boolean),
        "endsWith": RuleMethod(name: "endsWith", arguments: .fixed([.string]), result: .boolean),
        "replace": RuleMethod(name: "replace", arguments: .fixed([.string, .string]), result: .string),
        "toLowerCase": RuleMethod(name: "toLowerCase", arguments: .fixed([]), result: .string),
        "toUpperCase": RuleMethod(name: "toUpperCase", arguments: .fixed([]), result: .string),
        "matches": RuleMethod(name: "matches", arguments: .fixed([.regex]), result: .boolean),
    ]

    static let snapshotMethods: [String: RuleMethod] = [
        "val": RuleMethod(name: "val", arguments: .fixed([]), result: .primitive),
        "child": RuleMethod(name: "child", arguments: .fixed([.string]), result: .snapshot),
        "parent": RuleMethod(name: "parent", arguments: .fixed([]), result: .snapshot),
        "hasChild": RuleMethod(name: "hasChild", arguments: .fixed([.string]), result: .boolean),
        "hasChildren": RuleMethod(name: "hasChildren", arguments: .optionalNameList, result: .boolean),
        "exists": RuleMethod(name: "exists", arguments: .fixed([]), result: .boolean),
        "getPriority": RuleMethod(name: "getPriority", arguments: .fixed([]), result: .any),
        "isNumber": RuleMethod(name: "isNumber", arguments: .fixed([]), result: .boolean),
        "isString": RuleMethod(name: "isString", arguments: .fixed([]), result: .boolean),
        "isBoolean": RuleMethod(name: "isBoolean", arguments: .fixed([]), result: .boolean),
    ]

    static let queryProperties: [String: RuleType] = [
        "orderByKey": .boolean, "orderByPriority": .boolean, "orderByValue": .boolean, "orderByChild": .string,
        "startAt": .primitive, "endAt": .primitive, "equalTo": .primitive, "limitToFirst": .number, "limitToLast": .number,
    ]

    /// The type of `name` on a value of `type` (nil when there is no such member).
    static func member(_ name: String, of type: RuleType) -> RuleType? {
        switch type {
        case .string, .primitive:
            if name == "length" { return .number }
            return stringMethods[name].map { .method($0) }
        case .snapshot: return snapshotMethods[name].map { .method($0) }
        case .query: return queryProperties[name]
        default: return nil
        }
    }
}
