extension RunningEmulators {
    /// The variables through which SDKs and tools find the running services, as
    /// `firebase emulators:exec` sets them (firebase-tools' `setEnvVarsForEmulators`): one per
    /// service that serves, `STORAGE_EMULATOR_HOST` with its scheme (the Cloud Storage clients
    /// want one), and `GCLOUD_PROJECT`.
    package func environment(project: String) -> [String: String] {
        var variables = ["GCLOUD_PROJECT": project]
        for entry in entries {
            let address = entry.hostAndPort
            switch entry.name {
            case .firestore:
                variables["FIRESTORE_EMULATOR_HOST"] = address
                variables["FIREBASE_FIRESTORE_EMULATOR_ADDRESS"] = address
            case .auth: variables["FIREBASE_AUTH_EMULATOR_HOST"] = address
            case .database: variables["FIREBASE_DATABASE_EMULATOR_HOST"] = address
            case .storage:
                variables["FIREBASE_STORAGE_EMULATOR_HOST"] = address
                variables["STORAGE_EMULATOR_HOST"] = "http://" + address
            case .hub: variables["FIREBASE_EMULATOR_HUB"] = address
            default: break
            }
        }
        return variables
    }
}
