import Foundation

/// The `math.` namespace: `abs`, `ceil`, `floor`, `round`, `sqrt`, `pow`, `isInfinite`,
/// `isNaN`. `ceil`, `floor` and `round` return ints (round half away from zero); `sqrt` and
/// `pow` return floats.
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
        guard ["abs", "ceil", "floor", "round", "sqrt", "isInfinite", "isNaN"].contains(name) else {
            return .failure(.functionNotFound(qualified))
        }
        if let error = Library.arity(qualified, arguments, 1) { return .failure(error) }
        let argument = arguments[0]
        guard let number = argument.numericValue else { return Library.typeError(qualified, expected: "a number", got: argument) }
        switch name {
        case "abs":
            if case .int(let int) = argument {
                return int == .min ? .failure(.integerOverflow) : .success(.int(Swift.abs(int)))
            }
            return .success(.float(Swift.abs(number)))
        case "sqrt": return .success(.float(number.squareRoot()))
        case "isInfinite": return .success(.bool(number.isInfinite))
        case "isNaN": return .success(.bool(number.isNaN))
        case "ceil": return toInt(argument, number.rounded(.up))
        case "floor": return toInt(argument, number.rounded(.down))
        default: return toInt(argument, number.rounded(.toNearestOrAwayFromZero))
        }
    }

    private static func toInt(_ original: RuleValue, _ rounded: Double) -> RuleOutcome {
        if case .int = original { return .success(original) }
        guard let int = Int64(exactly: rounded) else {
            return .failure(.invalidArgument("\(RuleValue.float(rounded)) cannot be represented as an int."))
        }
        return .success(.int(int))
    }
}
