/* Threaded driver for the x86-64 output of the LLVM backend.
 *
 * Every function under test is reached through a wrapper `void w(void *mem, const void *args,
 * void *out)` (written by the test in LLVM IR) that loads the function's parameters from 16-byte
 * slots and stores its result, if it has one, to `out`. For every record of the expectation file
 * THREADS threads call one wrapper on one shared memory block, element by element atomically:
 *
 * - mode 0 (fixed operands): each thread calls ITERS times with the same arguments. Whatever the
 *   interleaving, each element goes through init, f(init), f(f(init)), ...; the multiset of old
 *   values (compared through an order-independent hash) and the final value come from the
 *   reference semantics.
 * - mode 1 (cas chain): each element's memory must climb base, base+1, ..., base+CHAIN; every
 *   thread retries `cas(expected, expected + 1)` with the last old value it saw as expected, so
 *   each link must succeed exactly once (hash of the successful expected values) and the chain
 *   must end at base+CHAIN.
 *
 * Record layout (little-endian u64 words): mode, elements, element bytes, result used, slots,
 * steps (mode 1: chain length); args (slots x 2 words); per element: init (2 words), base
 * (2 words), hash, final (2 words). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cells.h" /* CELLS, THREADS, ITERS, struct cell_fn cell_fns[] */

#include "runtime.h" /* __truncsfbf2 */

enum { MAX_ELEMS = 8, MAX_SLOTS = 24, ATTEMPT_LIMIT = 1000000 };

typedef void (*wrapper_fn)(void *, const void *, void *);

struct record {
    uint64_t mode, elems, bytes, used, slots, steps;
    _Alignas(16) unsigned char args[MAX_SLOTS * 16];
    uint64_t init[MAX_ELEMS][2], base[MAX_ELEMS][2], hash[MAX_ELEMS], final[MAX_ELEMS][2];
};

struct job {
    const struct record *rec;
    wrapper_fn fn;
    unsigned char *mem;
    uint64_t hash[MAX_ELEMS];
    int stuck;
};

static uint64_t splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static uint64_t mix(const uint64_t v[2]) { return splitmix(v[0] ^ splitmix(v[1])); }

/* Element `e` of a packed block of `bytes`-wide elements, as two words. */
static void get(const unsigned char *block, uint64_t bytes, uint64_t e, uint64_t v[2]) {
    v[0] = v[1] = 0;
    memcpy(v, block + e * bytes, bytes);
}

static void put(unsigned char *block, uint64_t bytes, uint64_t e, const uint64_t v[2]) {
    memcpy(block + e * bytes, v, bytes);
}

static uint64_t low_mask(uint64_t bytes) { return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1; }

/* Position of `v` in element e's chain (CHAIN or more: past the end or not on it). */
static uint64_t link_of(const struct record *r, uint64_t e, const uint64_t v[2]) {
    if (r->bytes == 16 && v[1] != r->base[e][1]) return ~0ull;
    return (v[0] - r->base[e][0]) & low_mask(r->bytes);
}

static void chain_value(const struct record *r, uint64_t e, uint64_t k, uint64_t v[2]) {
    v[0] = (r->base[e][0] + k) & low_mask(r->bytes);
    v[1] = r->base[e][1];
}

static void *worker(void *arg) {
    struct job *job = arg;
    const struct record *r = job->rec;
    _Alignas(128) unsigned char out[MAX_ELEMS * 16];
    if (r->mode == 0) {
        for (int k = 0; k < ITERS; k++) {
            memset(out, 0, sizeof out);
            job->fn(job->mem, r->args, out);
            for (uint64_t e = 0; e < r->elems && r->used; e++) {
                uint64_t v[2];
                get(out, r->bytes, e, v);
                job->hash[e] += mix(v);
            }
        }
        return NULL;
    }
    _Alignas(16) unsigned char args[MAX_SLOTS * 16];
    memcpy(args, r->args, sizeof args);
    uint64_t expected[MAX_ELEMS][2], next[MAX_ELEMS][2];
    for (uint64_t e = 0; e < r->elems; e++) chain_value(r, e, 0, expected[e]);
    for (long attempt = 0;; attempt++) {
        if (attempt == ATTEMPT_LIMIT) {
            job->stuck = 1;
            return NULL;
        }
        int done = 1;
        for (uint64_t e = 0; e < r->elems; e++) {
            uint64_t k = link_of(r, e, expected[e]);
            if (k < r->steps) {
                done = 0;
                chain_value(r, e, k + 1, next[e]);
            } else {
                memcpy(next[e], expected[e], 16);
            }
            memset(args + e * 16, 0, 16);
            memset(args + (r->elems + e) * 16, 0, 16);
            memcpy(args + e * 16, expected[e], r->bytes);
            memcpy(args + (r->elems + e) * 16, next[e], r->bytes);
        }
        if (done) return NULL;
        memset(out, 0, sizeof out);
        job->fn(job->mem, args, out);
        for (uint64_t e = 0; e < r->elems; e++) {
            uint64_t old[2];
            get(out, r->bytes, e, old);
            if (old[0] == expected[e][0] && old[1] == expected[e][1]) {
                if (link_of(r, e, expected[e]) < r->steps) job->hash[e] += mix(expected[e]);
                memcpy(expected[e], next[e], 16);
            } else {
                memcpy(expected[e], old, 16);
            }
        }
    }
}

static int read_words(FILE *in, uint64_t *w, size_t n) { return fread(w, 8, n, in) == n; }

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 2;
    int failures = 0;
    static struct record r;
    for (int i = 0; i < CELLS; i++) {
        memset(&r, 0, sizeof r);
        uint64_t head[6];
        if (!read_words(in, head, 6)) return 2;
        r.mode = head[0], r.elems = head[1], r.bytes = head[2], r.used = head[3];
        r.slots = head[4], r.steps = head[5];
        if (r.elems > MAX_ELEMS || r.slots > MAX_SLOTS || r.bytes > 16) return 2;
        if (fread(r.args, 16, r.slots, in) != r.slots) return 2;
        for (uint64_t e = 0; e < r.elems; e++) {
            uint64_t w[7];
            if (!read_words(in, w, 7)) return 2;
            memcpy(r.init[e], w, 16);
            memcpy(r.base[e], w + 2, 16);
            r.hash[e] = w[4];
            memcpy(r.final[e], w + 5, 16);
        }
        const struct cell_fn *f = &cell_fns[i];
        _Alignas(128) unsigned char mem[MAX_ELEMS * 16] = {0};
        for (uint64_t e = 0; e < r.elems; e++) put(mem, r.bytes, e, r.init[e]);
        pthread_t threads[THREADS];
        struct job jobs[THREADS];
        for (int t = 0; t < THREADS; t++) {
            memset(&jobs[t], 0, sizeof jobs[t]);
            jobs[t].rec = &r, jobs[t].fn = (wrapper_fn)f->fn, jobs[t].mem = mem;
            pthread_create(&threads[t], NULL, worker, &jobs[t]);
        }
        int stuck = 0;
        uint64_t hash[MAX_ELEMS] = {0};
        for (int t = 0; t < THREADS; t++) {
            pthread_join(threads[t], NULL);
            stuck |= jobs[t].stuck;
            for (uint64_t e = 0; e < r.elems; e++) hash[e] += jobs[t].hash[e];
        }
        for (uint64_t e = 0; e < r.elems; e++) {
            uint64_t final_value[2];
            get(mem, r.bytes, e, final_value);
            int check_hash = r.used || r.mode == 1;
            if (stuck || final_value[0] != r.final[e][0] || final_value[1] != r.final[e][1] ||
                (check_hash && hash[e] != r.hash[e])) {
                printf("FAIL %s element %llu:%s final %016llx%016llx expected %016llx%016llx; "
                       "old values %s\n",
                       f->name, (unsigned long long)e, stuck ? " stuck;" : "",
                       (unsigned long long)final_value[1], (unsigned long long)final_value[0],
                       (unsigned long long)r.final[e][1], (unsigned long long)r.final[e][0],
                       !check_hash ? "unobserved" : hash[e] == r.hash[e] ? "match" : "differ");
                failures++;
                break;
            }
        }
    }
    printf("%d cells, %d failures\n", CELLS, failures);
    return failures != 0;
}
