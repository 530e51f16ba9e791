import ArgumentParser
import Foundation

/// Refuses secret files other users could read, as ssh refuses a private
/// key: a key that leaked through a world- or group-readable file cannot be
/// trusted, and starting anyway would hide the problem.
///
/// The rule: no permission bits for others, and none for the group, except
/// that a file owned by root may be readable (not writable) by its group.
/// That exception (PostgreSQL's rule for server keys) is how Kubernetes
/// mounts a Secret for a non-root process: owner root, group the pod's
/// `fsGroup`, mode 0440.
public enum KeyFilePermissions {
    /// Why a file with this `mode` (`st_mode`) owned by `owner` is too open, or nil.
    public static func problem(path: String, mode: UInt32, owner: UInt32) -> String? {
        let permissions = mode & 0o7777
        let allowed: UInt32 = owner == 0 ? 0o040 : 0
        guard permissions & 0o077 & ~allowed != 0 else { return nil }
        let octal = String(permissions & 0o777, radix: 8)
        let shown = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        return "Permissions \(shown) for '\(path)' are too open: a key file must not be accessible by group or others."
            + " Run chmod 600 '\(path)'."
    }

    /// Throws when the file at `path` (after symbolic links) is too open; a
    /// missing file is left to the read that follows.
    public static func check(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }
        if let problem = problem(path: path, mode: UInt32(status.st_mode), owner: UInt32(status.st_uid)) {
            throw ValidationError(problem)
        }
    }
}
