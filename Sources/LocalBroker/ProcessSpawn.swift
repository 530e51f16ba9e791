import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a child with `posix_spawn`, as Foundation's `Process.run()` does on Linux but
/// without its crash: Swift 6.3's `Process.run()` copies each `/proc/self/fd` entry's whole
/// 256-byte name field, reading past glibc's buffer when an entry ends a page, and the test
/// suite (which starts hundreds of children beside open sockets) hit that SIGSEGV in CI
/// (swift-corelibs-foundation #5472, fixed after 6.3). What is kept from `Process.run()`:
/// the child gets its own process group, standard input from /dev/null, its output in the
/// given descriptors, and no other descriptor of this process. Unlike it, the child's
/// signals start at their defaults, unblocked.
enum ProcessSpawn {
    /// The child's pid; `environment` is its whole environment.
    static func spawn(
        executable: String, arguments: [String], environment: [String: String], standardOutput: Int32,
        standardError: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "addopen /dev/null")
        try check(posix_spawn_file_actions_adddup2(&actions, standardOutput, 1), "adddup2 stdout")
        try check(posix_spawn_file_actions_adddup2(&actions, standardError, 2), "adddup2 stderr")
        // Every other descriptor is closed in the child (an inherited socket would keep a
        // port, a pipe's end or a lock alive for as long as the child runs).
        for descriptor in 3...max(3, highestOpenDescriptor()) {
            try check(posix_spawn_file_actions_addclose(&actions, descriptor), "addclose")
        }
        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        // Signals as a shell would start it: none blocked, every one with its default action.
        // A child inherits the mask of the thread that spawns it and every ignored signal, and
        // this process ignores SIGTERM while a service group handles it (swift-service-
        // lifecycle) and SIGPIPE (the runtime): a child that inherited those would ignore the
        // SIGTERM ``ManagedProcess/stop(grace:)`` sends, and be killed after the grace.
        var none = sigset_t()
        sigemptyset(&none)
        try check(posix_spawnattr_setsigmask(&attributes, &none), "posix_spawnattr_setsigmask")
        var all = sigset_t()
        sigemptyset(&all)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&all, signal) }
        try check(posix_spawnattr_setsigdefault(&attributes, &all), "posix_spawnattr_setsigdefault")
        // Its own process group, so a terminal's ^C reaches this process, which stops it.
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
        try check(result, "posix_spawn \(executable)")
        return pid
    }

    /// The highest descriptor open now, read from /proc/self/fd by each entry's name as a C
    /// string (never the whole `d_name` field); `getdtablesize()` without /proc.
    private static func highestOpenDescriptor() -> Int32 {
        guard let directory = opendir("/proc/self/fd") else { return getdtablesize() }
        defer { closedir(directory) }
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
        var highest: Int32 = 0
        while let entry = readdir(directory) {
            let name = String(
                cString: UnsafeRawPointer(entry).advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
            highest = max(highest, Int32(name) ?? 0)
        }
        return highest
    }

    private static func check(_ code: Int32, _ call: String) throws {
        guard code == 0 else { throw LocalBrokerError.system(call, code) }
    }
}
