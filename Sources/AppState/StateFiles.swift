import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the store's files private to the service's user: every user's
/// payments, balances and messages are in them.
///
/// - A missing directory is created 0700.
/// - A missing database file is created 0600 (with `O_EXCL`, so nobody can
///   have opened it in between) before SQLite opens it. SQLite creates its
///   `-journal`, `-wal` and `-shm` files with the database file's mode, so
///   they are 0600 too.
/// - Files left from before (database, journal, WAL, shared memory) that are
///   open to group or others are narrowed to 0600, with a warning.
/// - An existing directory open to group or others is kept as it is, with a
///   warning: it may be shared (the default `.intent/` also holds the local
///   broker's files), the files in it are 0600 anyway, and changing the mode
///   of a directory we did not create could break whoever did.
enum StateFiles {
    /// Prepares `path` for SQLite as above; returns the warnings to log.
    static func prepare(databaseAt path: String) throws -> [String] {
        var warnings: [String] = []
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if FileManager.default.fileExists(atPath: directory) {
            let mode = try Self.mode(of: directory)
            if mode & 0o077 != 0 {
                warnings.append(
                    "the state directory \(directory) is open to group or others (mode \(octal(mode))); "
                        + "its files are 0600, but chmod 700 it if nothing else needs it")
            }
        } else {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        try createPrivately(path)
        for file in [path, path + "-journal", path + "-wal", path + "-shm"]
        where FileManager.default.fileExists(atPath: file) {
            let mode = try Self.mode(of: file)
            guard mode & 0o077 != 0 else { continue }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            warnings.append("\(file) was open to group or others (mode \(octal(mode))); narrowed to 0600")
        }
        return warnings
    }

    /// Creates an empty file with mode 0600 if there is none.
    private static func createPrivately(_ path: String) throws {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw CreationFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The database file could not be created.
    struct CreationFailed: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot create \(path): \(reason)" }
    }

    private static func mode(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? 0
    }

    private static func octal(_ mode: Int) -> String {
        "0" + String(mode & 0o777, radix: 8)
    }
}
