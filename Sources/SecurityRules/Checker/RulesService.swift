/// The product a ruleset protects, from `service cloud.firestore { … }`.
package enum RulesService: String, Sendable, Hashable, CaseIterable {
    /// `service cloud.firestore`.
    case firestore = "cloud.firestore"
    /// `service firebase.storage`.
    case storage = "firebase.storage"
}
