import Foundation

/// This process's CPU time (user and system, every thread), from `getrusage`: what a
/// benchmark run in this process cost, beside its wall time, which on a shared machine
/// moves with the neighbours more than the CPU a run needs does.
enum ProcessCPU {
    static func seconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }
}
