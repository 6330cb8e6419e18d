/// Literals make tables of values readable: `"x"`, `3`, `true`.
extension Value: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
    package init(booleanLiteral value: Bool) { self = .boolean(value) }
}
