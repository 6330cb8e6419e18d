import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port that could not be listened on: the address and why, in words, instead of the socket
/// call's own error (`bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`).
package struct ListenError: Error, CustomStringConvertible {
    package let host: String
    package let port: Int
    package let cause: any Error

    /// Another process (often another emulator) holds the port.
    package var isAddressInUse: Bool { (cause as? IOError)?.errnoCode == EADDRINUSE }

    package var description: String {
        let reason: String = switch (cause as? IOError)?.errnoCode {
        case EADDRINUSE: "the port is in use (another emulator or program holds it)"
        case EACCES: "permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL: "this machine has no such address"
        default: "\(cause)"
        }
        return "cannot listen on \(host):\(port): \(reason)"
    }
}
