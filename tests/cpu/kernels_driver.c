/* Runs random kernels once each, as one thread, for tests/tests/llvm_kernels_cpu.rs.
 *
 * Every case is reached through a wrapper `void w(void *global, void *shared, void *args,
 * void *out)` (written by the test in LLVM IR) that passes the case's arguments to the kernel.
 * Input (argv[1]), per case: u64 argument bytes, u64 output bytes, the argument block, the
 * global region, the shared region. Output (argv[2]), per case: a status byte (0 ran, 1 still
 * running after TIME_LIMIT seconds, 2 died), then the global region, the shared region and the
 * output block after the call. Each case runs in a child process, so that a kernel that never
 * returns or crashes costs only its own result. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kernel_cases.h" /* CASES, REGION, case_fns[] */
#include "runtime.h"      /* __truncsfbf2 */

typedef void (*wrapper_fn)(void *, void *, void *, void *);

enum { MAX_ARGS = 1 << 14, MAX_OUT = 1 << 12, TIME_LIMIT = 2 };

/* The buffers a case works on, shared with the child that runs it. */
struct buffers {
    _Alignas(128) unsigned char global[REGION];
    _Alignas(128) unsigned char shared[REGION];
    _Alignas(128) unsigned char args[MAX_ARGS];
    _Alignas(128) unsigned char result[MAX_OUT];
};

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    FILE *in = fopen(argv[1], "rb");
    FILE *out = fopen(argv[2], "wb");
    if (!in || !out) return 2;
    struct buffers *b = mmap(NULL, sizeof *b, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED) return 2;
    for (int i = 0; i < CASES; i++) {
        uint64_t sizes[2];
        if (fread(sizes, 8, 2, in) != 2 || sizes[0] > MAX_ARGS || sizes[1] > MAX_OUT) return 2;
        if (fread(b->args, 1, sizes[0], in) != sizes[0]) return 2;
        if (fread(b->global, 1, REGION, in) != REGION || fread(b->shared, 1, REGION, in) != REGION)
            return 2;
        memset(b->result, 0, sizeof b->result);
        fflush(out);
        pid_t child = fork();
        if (child < 0) return 2;
        if (child == 0) {
            alarm(TIME_LIMIT);
            ((wrapper_fn)case_fns[i])(b->global, b->shared, b->args, b->result);
            _exit(0);
        }
        int status = 0;
        if (waitpid(child, &status, 0) != child) return 2;
        unsigned char outcome = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0
                                : WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? 1
                                                                                     : 2;
        fwrite(&outcome, 1, 1, out);
        fwrite(b->global, 1, REGION, out);
        fwrite(b->shared, 1, REGION, out);
        fwrite(b->result, 1, sizes[1], out);
    }
    return fclose(out) != 0;
}
