/*
 * check_vocab.c -- compares every vocabulary operation of a target with the scalar target's
 * (vocab_check.c), on random values with special values (NaN, inf, zeros, denormals, huge)
 * sprinkled in.
 */
#include "check.h"
#include "cpu.h"
#include "vocab_check.h"

extern const sks_vocab_kernels sks_vocab_row_scalar;
#if SKS_BUILDS_SSE41
extern const sks_vocab_kernels sks_vocab_row_sse41, sks_vocab_row_avx2, sks_vocab_row_avx512;
#endif
#if SKS_BUILDS_NEON
extern const sks_vocab_kernels sks_vocab_row_neon;
#endif

static const sks_vocab_kernels *vocab_row(enum sks_isa isa)
{
    switch (isa) {
#if SKS_BUILDS_SSE41
    case SKS_ISA_SSE41: return &sks_vocab_row_sse41;
    case SKS_ISA_AVX2: return &sks_vocab_row_avx2;
    case SKS_ISA_AVX512: return &sks_vocab_row_avx512;
#endif
#if SKS_BUILDS_NEON
    case SKS_ISA_NEON: return &sks_vocab_row_neon;
#endif
    default: return &sks_vocab_row_scalar;
    }
}

int check_vocab(enum sks_isa isa, uint64_t seed)
{
    enum { N = 16 * 64 };
    const sks_vocab_kernels *k = vocab_row(isa), *ref = &sks_vocab_row_scalar;
    const char *name = sks_isa_name(isa);
    float *a = check_alloc(N * sizeof(float)), *b = check_alloc(N * sizeof(float));
    float *c = check_alloc(N * sizeof(float)), *got = check_alloc(N * sizeof(float));
    float *want = check_alloc(N * sizeof(float));
    double *got64 = check_alloc(N * sizeof(double)), *want64 = check_alloc(N * sizeof(double));
    check_rng r = {seed * 7919u + 17u};
    int failures = 0, op, round;
    for (round = 0; round < 8; round++) {
        const float scale = round < 4 ? 2.0f : 1e4f;
        fill_uniform(a, N, -scale, scale, &r);
        fill_uniform(b, N, -scale, scale, &r);
        fill_uniform(c, N, -scale, scale, &r);
        if (round % 2) {   /* equal operands, for the comparisons */
            size_t i;
            for (i = 0; i < N; i += 3) b[i] = a[i];
        }
        sprinkle_specials(a, N, round >= 2 ? 0.1 : 0.0, &r);
        sprinkle_specials(b, N, round >= 2 ? 0.1 : 0.0, &r);
        sprinkle_specials(c, N, round >= 2 ? 0.1 : 0.0, &r);
        for (op = 0; op < VOP_COUNT; op++) {
            char what[48];
            int bad;
            memset(got, 0, N * sizeof(float));
            memset(want, 0, N * sizeof(float));
            memset(got64, 0, N * sizeof(double));
            memset(want64, 0, N * sizeof(double));
            bad = k->apply(op, got, got64, a, b, c, N) + ref->apply(op, want, want64, a, b, c, N);
            snprintf(what, sizeof what, "vocab op %d round %d", op, round);
            if (bad) printf("MISMATCH %s [%s]: %d internal consistency failure(s)\n", what, name, bad);
            bad += check_same(what, name, got, want, N);
            bad += check_same_double(what, name, got64, want64, N);
            failures += bad != 0;
        }
    }
    free(a); free(b); free(c); free(got); free(want); free(got64); free(want64);
    return failures;
}
