/* Threaded driver for the x86-64 output of the LLVM backend.
 *
 * For every cell, THREADS threads each call the cell's kernel ITERS times on one shared address
 * with one operand (and, for cas, one new value). Whatever the interleaving, the memory then
 * goes through init, f(init), f(f(init)), ...: the sorted old values must equal the sorted
 * sequence and the final memory its next element. Both come from the reference semantics,
 * read from the expectation file the test writes. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h" /* CELLS, THREADS, ITERS, struct cell_fn cell_fns[] */

struct job {
    const struct cell_fn *fn;
    uint64_t operand, new_value;
    unsigned char *mem;
    uint64_t *olds;
};

static uint64_t load_bits(const void *p, int bytes) {
    uint64_t v = 0;
    memcpy(&v, p, bytes);
    return v;
}

static void *worker(void *arg) {
    struct job *job = arg;
    const struct cell_fn *f = job->fn;
    for (int k = 0; k < ITERS; k++) {
        _Alignas(16) unsigned char out[16] = {0};
        uint64_t b = job->operand, c = job->new_value;
        switch (f->kind) {
        case 'u':
            switch (f->bytes * 10 + f->arity) {
            case 11: ((void (*)(void *, uint8_t, void *))f->fn)(job->mem, b, out); break;
            case 12: ((void (*)(void *, uint8_t, uint8_t, void *))f->fn)(job->mem, b, c, out); break;
            case 21: ((void (*)(void *, uint16_t, void *))f->fn)(job->mem, b, out); break;
            case 22: ((void (*)(void *, uint16_t, uint16_t, void *))f->fn)(job->mem, b, c, out); break;
            case 41: ((void (*)(void *, uint32_t, void *))f->fn)(job->mem, b, out); break;
            case 42: ((void (*)(void *, uint32_t, uint32_t, void *))f->fn)(job->mem, b, c, out); break;
            case 81: ((void (*)(void *, uint64_t, void *))f->fn)(job->mem, b, out); break;
            case 82: ((void (*)(void *, uint64_t, uint64_t, void *))f->fn)(job->mem, b, c, out); break;
            default: abort();
            }
            break;
        case 'f': {
            float fb, fc;
            uint32_t b32 = b, c32 = c;
            memcpy(&fb, &b32, 4);
            memcpy(&fc, &c32, 4);
            if (f->arity == 1) ((void (*)(void *, float, void *))f->fn)(job->mem, fb, out);
            else ((void (*)(void *, float, float, void *))f->fn)(job->mem, fb, fc, out);
            break;
        }
        case 'd': {
            double db, dc;
            memcpy(&db, &b, 8);
            memcpy(&dc, &c, 8);
            if (f->arity == 1) ((void (*)(void *, double, void *))f->fn)(job->mem, db, out);
            else ((void (*)(void *, double, double, void *))f->fn)(job->mem, db, dc, out);
            break;
        }
        default: abort();
        }
        job->olds[k] = load_bits(out, f->bytes);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 2;
    enum { N = THREADS * ITERS };
    static uint64_t olds[N], expected[N + 1];
    int failures = 0;
    for (int i = 0; i < CELLS; i++) {
        uint64_t header[3]; /* init, operand, new value */
        if (fread(header, 8, 3, in) != 3 || fread(expected, 8, N + 1, in) != N + 1) return 2;
        const struct cell_fn *f = &cell_fns[i];
        _Alignas(16) unsigned char mem[16] = {0};
        memcpy(mem, &header[0], f->bytes);
        pthread_t threads[THREADS];
        struct job jobs[THREADS];
        for (int t = 0; t < THREADS; t++) {
            jobs[t] = (struct job){f, header[1], header[2], mem, olds + t * ITERS};
            pthread_create(&threads[t], NULL, worker, &jobs[t]);
        }
        for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
        qsort(olds, N, 8, cmp_u64);
        uint64_t final_value = load_bits(mem, f->bytes);
        if (memcmp(olds, expected, sizeof olds) != 0 || final_value != expected[N]) {
            uint64_t first_bad = 0;
            for (int j = 0; j < N; j++)
                if (olds[j] != expected[j]) { first_bad = j; break; }
            printf("FAIL %s: final %llx expected %llx; sorted old #%llu %llx expected %llx\n", f->name,
                   (unsigned long long)final_value, (unsigned long long)expected[N],
                   (unsigned long long)first_bad, (unsigned long long)olds[first_bad],
                   (unsigned long long)expected[first_bad]);
            failures++;
        }
    }
    printf("%d cells, %d failures\n", CELLS, failures);
    return failures != 0;
}
