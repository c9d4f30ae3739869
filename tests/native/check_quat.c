/*
 * check_quat.c -- the quaternion family (src/kernels/quat.c) of a target against the scalar
 * target, bit for bit: every kernel on n = 0..40 (every tail length of every vector width) and
 * larger sizes, broadcast steps, in place, scalar_first, with zero, tiny, huge, identical,
 * antipodal and non-finite quaternions mixed in.
 */
#include "check.h"
#include "cpu.h"
#include "quat.h"

static void random_quats(float *q, size_t n, check_rng *r, int specials)
{
    size_t i;
    for (i = 0; i < n; i++) {
        random_quat(q + 4 * i, r);
        if (specials) {
            const size_t kind = rng_below(r, 10);
            if (kind == 0) memset(q + 4 * i, 0, 4 * sizeof(float));
            else if (kind == 1) { int c; for (c = 0; c < 4; c++) q[4 * i + c] *= 1e-20f; }
            else if (kind == 2) { int c; for (c = 0; c < 4; c++) q[4 * i + c] *= 1e25f; }
            else if (kind == 3 && i > 0) { int c; for (c = 0; c < 4; c++) q[4 * i + c] = -q[4 * (i - 1) + c]; }
            else if (kind == 4 && i > 0) memcpy(q + 4 * i, q + 4 * (i - 1), 4 * sizeof(float));
            else if (kind == 5) sprinkle_specials(q + 4 * i, 4, 0.5, r);
        }
    }
}

int check_quat(enum sks_isa isa, uint64_t seed)
{
    const sks_quat_kernels *k = sks_quat_variants[isa], *ref = sks_quat_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 2654435761u + 3u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 120; round++) {
        const size_t n = round < 41 ? round : 41 + rng_below(&r, 300);
        const int specials = round % 2;
        float *a = check_alloc(12 * n * sizeof(float) + 64), *b = check_alloc(12 * n * sizeof(float) + 64);
        float *x = check_alloc(12 * n * sizeof(float) + 64);
        float *got = check_alloc(12 * n * sizeof(float) + 64), *want = check_alloc(12 * n * sizeof(float) + 64);
        char what[80];
        size_t i, as, bs;
        random_quats(a, n, &r, specials);
        random_quats(b, n, &r, specials);
        for (i = 0; i < n; i++) {   /* QTS joints: a's quaternion, translation, scale */
            memcpy(x + 8 * i, a + 4 * i, 4 * sizeof(float));
            fill_uniform(x + 8 * i + 4, 4, -2.0f, 2.0f, &r);
        }
        if (specials) sprinkle_specials(x, 8 * n, 0.02, &r);

        for (as = 0; as < 2; as++)
            for (bs = 0; bs < 2; bs++) {
                snprintf(what, sizeof what, "multiply n=%zu steps %zu %zu", n, as, bs);
                k->multiply(got, a, as, b, bs, n);
                ref->multiply(want, a, as, b, bs, n);
                failures += check_same(what, name, got, want, 4 * n);
            }
        snprintf(what, sizeof what, "multiply in place n=%zu", n);
        memcpy(got, a, 4 * n * sizeof(float));
        memcpy(want, a, 4 * n * sizeof(float));
        k->multiply(got, got, 1, b, 1, n);
        ref->multiply(want, want, 1, b, 1, n);
        failures += check_same(what, name, got, want, 4 * n);

        snprintf(what, sizeof what, "conjugate n=%zu", n);
        k->conjugate(got, a, n);
        ref->conjugate(want, a, n);
        failures += check_same(what, name, got, want, 4 * n);

        snprintf(what, sizeof what, "normalize n=%zu", n);
        k->normalize(got, a, n);
        ref->normalize(want, a, n);
        failures += check_same(what, name, got, want, 4 * n);

        for (as = 0; as < 2; as++) {
            snprintf(what, sizeof what, "rotate n=%zu q_step %zu", n, as);
            k->rotate(got, a, as, x + 4, 1, n);
            ref->rotate(want, a, as, x + 4, 1, n);
            failures += check_same(what, name, got, want, 3 * n);
        }
        for (as = 0; as < 2; as++) {
            snprintf(what, sizeof what, "to_matrix n=%zu scalar_first %zu", n, as);
            k->to_matrix(got, a, n, (int)as);
            ref->to_matrix(want, a, n, (int)as);
            failures += check_same(what, name, got, want, 9 * n);
            snprintf(what, sizeof what, "from_matrix n=%zu scalar_first %zu", n, as);
            k->from_matrix(x, want, n, (int)as);   /* x reused as scratch below is refilled */
            ref->from_matrix(got, want, n, (int)as);
            failures += check_same(what, name, x, got, 4 * n);
        }
        for (i = 0; i < n; i++) {
            memcpy(x + 8 * i, b + 4 * i, 4 * sizeof(float));
            fill_uniform(x + 8 * i + 4, 4, -2.0f, 2.0f, &r);
        }
        snprintf(what, sizeof what, "qts_to_matrix n=%zu", n);
        k->qts_to_matrix(got, x, n);
        ref->qts_to_matrix(want, x, n);
        failures += check_same(what, name, got, want, 12 * n);
        snprintf(what, sizeof what, "matrix_to_qts n=%zu", n);
        k->matrix_to_qts(got, want, n);
        ref->matrix_to_qts(x, want, n);
        failures += check_same(what, name, got, x, 8 * n);
        free(a); free(b); free(x); free(got); free(want);
    }
    return failures;
}
