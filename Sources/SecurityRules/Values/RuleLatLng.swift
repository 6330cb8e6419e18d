import Foundation

/// A geographic point, made with `latlng.value(lat, lng)`.
package struct RuleLatLng: Sendable, Hashable, CustomStringConvertible {
    /// Degrees north, -90…90.
    package let latitude: Double
    /// Degrees east, -180…180.
    package let longitude: Double

    /// Creates a point; nil when either coordinate is out of range or not a number.
    package init?(latitude: Double, longitude: Double) {
        guard (-90.0...90.0).contains(latitude), (-180.0...180.0).contains(longitude) else { return nil }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Points are equal when their coordinates are, sign of zero included: the official emulator
    /// tells `latlng.value(-0.0, 0)` from `latlng.value(0, 0)` (`==`, `in`, sets;
    /// fixtures/differential/rules/round-12.json, r12-geo-neg-zero-*).
    package static func == (lhs: RuleLatLng, rhs: RuleLatLng) -> Bool {
        lhs.latitude.bitPattern == rhs.latitude.bitPattern && lhs.longitude.bitPattern == rhs.longitude.bitPattern
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(latitude.bitPattern)
        hasher.combine(longitude.bitPattern)
    }

    /// The mean Earth radius used for distances, in meters (the S2 library's value).
    static let earthRadiusMeters = 6_371_010.0

    /// The great-circle distance to another point, in meters (haversine formula).
    package func distance(to other: RuleLatLng) -> Double {
        let toRadians = Double.pi / 180
        let lat1 = latitude * toRadians
        let lat2 = other.latitude * toRadians
        let dLat = lat2 - lat1
        let dLng = (other.longitude - longitude) * toRadians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLng / 2) * sin(dLng / 2)
        let angle = 2 * atan2(sqrt(a), sqrt(max(0, 1 - a)))
        return angle * Self.earthRadiusMeters
    }

    /// `latlng(37.5, -122.25)`.
    package var description: String {
        "latlng(\(RuleValue.float(latitude)), \(RuleValue.float(longitude)))"
    }
}
