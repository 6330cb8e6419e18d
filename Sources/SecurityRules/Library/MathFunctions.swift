import Foundation

/// The `math.` namespace: `abs`, `ceil`, `floor`, `round`, `sqrt`, `pow`, `isNaN`.
///
/// These follow the official emulator, which behaves like Java's `Math`: `ceil`, `floor`,
/// `sqrt` and `pow` return floats (also for an int argument), `round` returns an int, rounding
/// halves up (`math.round(-2.5) == -2`), NaN to 0 and saturating beyond the int range. There
/// is no `math.isInfinite`; compare with `1.0 / 0` instead.
enum MathFunctions {
    static func call(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        let qualified = "math.\(name)"
        if name == "pow" {
            if let error = Library.arity(qualified, arguments, 2) { return .failure(error) }
            guard let base = arguments[0].numericValue, let exponent = arguments[1].numericValue else {
                return .failure(.invalidArgument("math.pow() expects two numbers."))
            }
            return .success(.float(Foundation.pow(base, exponent)))
        }
        guard ["abs", "ceil", "floor", "round", "sqrt", "isNaN"].contains(name) else {
            return .failure(.functionNotFound(qualified))
        }
        if let error = Library.arity(qualified, arguments, 1) { return .failure(error) }
        let argument = arguments[0]
        guard let number = argument.numericValue else { return Library.typeError(qualified, expected: "a number", got: argument) }
        switch name {
        case "abs":
            if case .int(let int) = argument {
                // Java's Math.abs: the smallest int has no positive counterpart and stays itself.
                return .success(.int(int == .min ? .min : Swift.abs(int)))
            }
            return .success(.float(Swift.abs(number)))
        case "sqrt": return .success(.float(number.squareRoot()))
        case "isNaN": return .success(.bool(number.isNaN))
        case "ceil": return .success(.float(number.rounded(.up)))
        case "floor": return .success(.float(number.rounded(.down)))
        default:
            if case .int = argument { return .success(argument) }
            return .success(.int(roundedHalfUp(number)))
        }
    }

    /// Java's `Math.round(double)`: the nearest int, halves toward positive infinity, NaN as
    /// 0, and values beyond the int range clamped to its ends.
    static func roundedHalfUp(_ number: Double) -> Int64 {
        if number.isNaN { return 0 }
        let floor = number.rounded(.down)
        // Exact: the difference of a double and its floor is representable.
        let nearest = number - floor >= 0.5 ? floor + 1 : floor
        if nearest >= 0x1p63 { return .max }
        if nearest < -0x1p63 { return .min }
        return Int64(nearest)
    }
}
