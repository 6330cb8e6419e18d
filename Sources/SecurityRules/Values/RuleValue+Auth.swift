package import HearthIdentity
package import HearthJSON

extension RuleValue {
    /// `request.auth` as Firestore and Storage rules see it: null without credentials (and
    /// for the admin, whom rules never judge), else `{uid, token}` with every claim of the ID
    /// token; the uid is the `sub` claim, as on the official emulators.
    package static func auth(_ identity: Identity) -> RuleValue {
        guard let token = identity.token else { return .null }
        var claims: [String: RuleValue] = [:]
        for (name, value) in token.claims { claims[name] = claim(value) }
        return .map(["uid": token.uid.map(RuleValue.string) ?? .null, "token": .map(claims)])
    }

    /// A claim's plain JSON as a rule value: numbers whose value is whole and fits 64 bits are
    /// ints however they are written (`1`, `1.0`, `1e2`, as the emulator reads a token:
    /// fixtures/differential/rules/round-11.json), other numbers floats.
    package static func claim(_ json: JSON) -> RuleValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n):
            if let i = Int64(n) ?? JSON.exactInteger(n) { return .int(i) }
            return .float(Double(n) ?? .nan)
        case .string(let s): return .string(s)
        case .array(let a): return .list(a.map(claim))
        case .object(let pairs):
            var m: [String: RuleValue] = [:]
            for (k, v) in pairs { m[k] = claim(v) }
            return .map(m)
        }
    }
}
