#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`), which
/// bounds how many connections the HTTP server can hold at all; the
/// connection cap is derived from it (see ``HTTPServerLimits``).
public enum FileDescriptorLimit {
    /// The soft limit now in force (what `ulimit -n` shows); 1024 if it cannot be read.
    public static var current: Int { rawLimits().map { Int(clamping: $0.rlim_cur) } ?? 1024 }

    /// Raises the soft limit to at least `wanted` (never above the hard limit)
    /// and returns the soft limit in force afterwards. Tests that hold
    /// thousands of sockets call it, since common defaults are 1024.
    @discardableResult
    public static func raise(to wanted: Int) -> Int {
        guard var limit = rawLimits() else { return current }
        let target = min(rlim_t(clamping: wanted), limit.rlim_max)
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    private static func rawLimits() -> rlimit? {
        var limit = rlimit()
        return getrlimit(resource, &limit) == 0 ? limit : nil
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
