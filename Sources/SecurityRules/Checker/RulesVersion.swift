/// The rules language version a file declares with `rules_version`; version 1 when absent.
///
/// The versions differ in recursive wildcards: in version 1 `{name=**}` must end a match path
/// and matches one or more segments; in version 2 it may appear anywhere (once per match)
/// and matches zero or more segments. `let` bindings in functions need version 2.
package enum RulesVersion: String, Sendable, Hashable {
    case v1 = "1"
    case v2 = "2"
}
