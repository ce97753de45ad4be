/* dlopen without RTLD_DEEPBIND, for the sanitizer builds (make test-sanitize, make test-tsan).
 *
 * oneTBB, which OpenVINO runs on, loads its hardware-topology helper libtbbbind with
 * RTLD_DEEPBIND the first time it builds a task arena. A library loaded that way binds to its
 * own dependencies' malloc, free and pthread functions before the sanitizer runtime's, so the
 * ASan and TSan runtimes refuse the flag and end the process ("You are trying to dlopen a
 * libtbbbind... with RTLD_DEEPBIND flag which is incompatible with sanitizer runtime"). TBB does
 * not need the flag to work (it only keeps libtbbbind's hwloc apart from another hwloc in the
 * process, and there is none here), so this dlopen clears it and calls the next dlopen, which
 * is the sanitizer's interceptor, then glibc's.
 *
 * The sanitizer builds link this file into each of their executables (CMake option
 * PT2OV_SANITIZE): a definition in the executable comes first in the symbol lookup order,
 * ahead of the sanitizer runtime, so libtbb's call reaches it. A process whose executable is
 * not built here (a Python interpreter loading an instrumented module) can load it as a
 * shared library instead, after the runtime:
 *   LD_PRELOAD="$(gcc -print-file-name=libasan.so):libno_deepbind.so"
 * It is not compiled with the sanitizer itself.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

typedef void *(*dlopen_function)(const char *, int);

void *dlopen(const char *filename, int flags) {
    static dlopen_function next_dlopen = NULL;
    if (next_dlopen == NULL) next_dlopen = (dlopen_function)dlsym(RTLD_NEXT, "dlopen");
    return next_dlopen(filename, flags & ~RTLD_DEEPBIND);
}
