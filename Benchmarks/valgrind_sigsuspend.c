/*
 * Lets Valgrind 3.19 (Debian 12) run `parse-porter`: preloaded into the program under Valgrind,
 * it replaces sigsuspend(2) with one that passes the kernel a copy of the signal mask.
 *
 * `parse-porter` ends its main thread in libdispatch's `dispatch_main`, which parks it in
 * `sigsuspend` with a mask that is a constant in libdispatch's read-only segment. Valgrind
 * 3.19 writes into the mask it is given while it handles rt_sigsuspend, faults on that
 * read-only page and aborts with "VALGRIND INTERNAL ERROR: Valgrind received a signal 11
 * (SIGSEGV)" (si_code=2, at the mask's address). A copy on the stack is writable, and the
 * call does the same.
 *
 * Build: gcc -O2 -shared -fPIC -o valgrind_sigsuspend.so valgrind_sigsuspend.c
 * Use:   LD_PRELOAD=/path/valgrind_sigsuspend.so valgrind --tool=callgrind parse-porter ...
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    /* The kernel's sigset is 8 bytes on x86-64 (glibc's sigset_t is larger). */
    return (int)syscall(SYS_rt_sigsuspend, &copy, (size_t)8);
}
