// Counts heap allocations per thread by defining the C allocation functions in
// the program itself: the dynamic linker binds every library's malloc (Swift's
// runtime, Foundation, OpenSSL) to the executable's definition first, and these
// forward to glibc's own entry points (__libc_malloc and friends), so memory and
// free() are glibc's as before. A thread-local increment is the whole cost.
//
// This is the role ordo-one's package-benchmark gives its MallocInterposer
// (there over jemalloc); here over glibc, with no extra package. Sanitizer
// builds bring their own allocator interceptors, so the definitions are left
// out there and intent_malloc_counting() says so.

#include "MallocCounter.h"

#include <errno.h>
#include <stddef.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define INTENT_MALLOC_COUNTER_DISABLED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define INTENT_MALLOC_COUNTER_DISABLED 1
#endif

#ifndef INTENT_MALLOC_COUNTER_DISABLED

static __thread uint64_t allocations __attribute__((tls_model("initial-exec")));

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

void *malloc(size_t size) {
    allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    return __libc_realloc(pointer, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    // glibc's own checks: a power of two that is a multiple of sizeof(void *).
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0 || alignment == 0) {
        return EINVAL;
    }
    allocations++;
    void *memory = __libc_memalign(alignment, size);
    if (memory == NULL) {
        return ENOMEM;
    }
    *result = memory;
    return 0;
}

uint64_t intent_malloc_count(void) { return allocations; }

int intent_malloc_counting(void) { return 1; }

#else

uint64_t intent_malloc_count(void) { return 0; }

int intent_malloc_counting(void) { return 0; }

#endif
