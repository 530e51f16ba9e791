import Glibc

/// CPU time used by the calling thread (CLOCK_THREAD_CPUTIME_ID): unlike wall time,
/// it does not count the time another process (a build beside the benchmark) had the
/// core, so per-record costs compare across load better. Still not exact enough to
/// gate a test on: the gate holds allocation counts; this is reported.
public enum ThreadCPUClock {
    /// Nanoseconds of CPU this thread has used.
    public static var nanoseconds: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
