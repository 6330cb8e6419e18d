/// `latlng.value(lat, lng)` and the methods of points: `distance` (meters), `latitude`,
/// `longitude`.
enum LatLngFunctions {
    static func namespaceFunction(_ name: String, _ arguments: [RuleValue]) -> RuleOutcome {
        guard name == "value" else { return .failure(.functionNotFound("latlng.\(name)")) }
        if let error = Library.arity("latlng.value", arguments, 2) { return .failure(error) }
        guard let latitude = arguments[0].numericValue, let longitude = arguments[1].numericValue else {
            return .failure(.invalidArgument("latlng.value() expects two numbers."))
        }
        guard let point = RuleLatLng(latitude: latitude, longitude: longitude) else {
            return .failure(.invalidArgument("latitude must be within [-90, 90] and longitude within [-180, 180]."))
        }
        return .success(.latlng(point))
    }

    static func call(_ name: String, _ point: RuleLatLng, _ arguments: [RuleValue]) -> RuleOutcome {
        switch name {
        case "latitude", "longitude":
            if let error = Library.arity(name, arguments, 0) { return .failure(error) }
            return .success(.float(name == "latitude" ? point.latitude : point.longitude))
        case "distance":
            if let error = Library.arity(name, arguments, 1) { return .failure(error) }
            guard case .latlng(let other) = arguments[0] else { return Library.typeError(name, expected: "a latlng", got: arguments[0]) }
            return .success(.float(point.distance(to: other)))
        default:
            return .failure(.functionNotFound(name))
        }
    }
}
