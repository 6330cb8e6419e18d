package import DatabaseModel

/// Something told about committed writes at and below a location: an SSE stream or a
/// WebSocket listen. The engine calls ``deliver(_:)`` under the namespace's write lock, in
/// commit order, so a listener must only enqueue (never block or call back into the engine).
package protocol DatabaseListener: AnyObject, Sendable {
    /// The location listened to.
    var path: DatabasePath { get }
    /// Who is listening (their read permission is checked again when rules or data change).
    var caller: DatabaseCaller { get }
    /// The query, for the rules' `query` variable (nil: a plain listen).
    var query: DatabaseQuery? { get }
    /// A write that touches the location (at, above or below it).
    func deliver(_ change: DataChange)
    /// The listen is no longer allowed (rules changed, or the data they depend on).
    func revoke()
}
