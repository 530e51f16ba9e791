#ifndef INTENT_PIPELINE_MALLOC_COUNTER_H
#define INTENT_PIPELINE_MALLOC_COUNTER_H

#include <stdint.h>

/// Heap allocations (malloc, calloc, realloc, aligned_alloc, posix_memalign) made
/// so far by the calling thread, counted by this target's definitions of those
/// functions, which take the place of glibc's in a program that links it. Per
/// thread, so a measurement is not disturbed by what other threads allocate.
uint64_t intent_malloc_count(void);

/// 1 when the counting definitions are linked in and active; 0 when they are
/// compiled out (under a sanitizer, which brings its own allocator), so a
/// measurement can tell "counted none" from "could not count".
int intent_malloc_counting(void);

#endif
