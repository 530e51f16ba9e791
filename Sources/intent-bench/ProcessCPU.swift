import Foundation

/// This process's CPU time (user and system, every thread), from `getrusage`: what a
/// benchmark run in this process cost, beside its wall time, which on a shared machine
/// moves with the neighbours more than the CPU a run needs does.
enum ProcessCPU {
    /// The calling thread's CPU time: a synchronous piece of work (a seed of the simulation,
    /// which never suspends) measured apart from what runs beside it on other threads.
    static func threadSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func seconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }
}
