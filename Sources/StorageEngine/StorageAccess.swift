#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
package import HearthIdentity
package import StorageModel

/// Who a request acts as: the admin (the GCS JSON API, which the official emulator never
/// judges, and `Bearer owner` / `Firebase owner` anywhere), or a caller the storage rules judge.
package enum StorageAccess: Sendable, Equatable {
    case admin
    case rules(Identity)

    /// The access of a Firebase API request with this `Authorization` header: admin for the
    /// owner credential, else the rules judge the identity (a JWT's claims, or nobody). Storage
    /// SDKs send `Firebase <token>`; `Bearer <token>` is accepted as well. A header that is
    /// neither is a 401.
    package static func firebase(authorization: String?) throws(StorageError) -> StorageAccess {
        let identity: Identity
        do {
            identity = try Identity.decode(authorization: authorization, schemes: ["bearer", "firebase"])
        } catch {
            throw StorageError(.unauthenticated, "Invalid authorization: \(error.reason)")
        }
        return identity.isAdmin ? .admin : .rules(identity)
    }
}

/// The system clock in microseconds since the epoch; tests inject their own.
package protocol StorageClock: Sendable {
    func nowMicros() -> Int64
}

/// The real clock.
package struct SystemStorageClock: StorageClock {
    package init() {}

    package func nowMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}
