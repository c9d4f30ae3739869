/*
 * check_mat4.c -- the 4x4 matrix family (src/kernels/mat4.c) of a target against the scalar
 * target, bit for bit: matmul4 (every step combination, in place, sizes 0..40: every tail),
 * mat4_local_to_global (float32 and float64 walks, ranges, in place, batch sizes 0..9: every
 * remainder of the side-by-side walks), transform_points 3x4 and 4x4 (one matrix or one per
 * point, one point or one per matrix, in place, affine and projective matrices mixed, last rows
 * with -0.0), on random inputs and inputs with special values.
 */
#include "check.h"
#include "cpu.h"
#include "mat4.h"

#define MF SKS_MAT4_FLOATS

/* Random 4x4 matrices: a rotation-like 3x4 block with translations in [-tscale, tscale] and
 * the last row 0 0 0 1, or (probability `projective`) a random last row; some affine last rows
 * carry -0.0. */
static void random_mat4(float *m, size_t n, float tscale, double projective, check_rng *r)
{
    size_t i;
    fill_uniform(m, n * MF, -1.0f, 1.0f, r);
    for (i = 0; i < n; i++) {
        float *x = m + MF * i;
        x[3] *= tscale;
        x[7] *= tscale;
        x[11] *= tscale;
        if (rng_unit(r) < projective) {
            x[15] += 1.5f;
        } else {
            const float z = rng_unit(r) < 0.2 ? -0.0f : 0.0f;
            x[12] = x[13] = 0.0f;
            x[14] = z;
            x[15] = 1.0f;
        }
    }
}

int check_mat4(enum sks_isa isa, uint64_t seed)
{
    const sks_mat4_kernels *k = sks_mat4_variants[isa], *ref = sks_mat4_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 2654435761u + 11u};
    int failures = 0, round;
    for (round = 0; round < 80; round++) {
        const int specials = round % 3 == 2;
        const size_t n = round < 41 ? (size_t)round : rng_below(&r, 300);
        const size_t joints = 1 + rng_below(&r, round < 40 ? 12 : 100);
        const size_t batch = rng_below(&r, 10);
        const size_t total = batch * joints * MF, big = (n > total / MF ? n : total / MF) + 1;
        const size_t start = rng_below(&r, joints), stop = start + 1 + rng_below(&r, joints - start);
        int32_t *parents = check_alloc(joints * sizeof(int32_t));
        float *a = check_alloc(big * MF * sizeof(float)), *b = check_alloc(big * MF * sizeof(float));
        float *got = check_alloc(big * MF * sizeof(float)), *want = check_alloc(big * MF * sizeof(float));
        float *pts = check_alloc(big * 3 * sizeof(float));
        double *scratch = check_alloc(SKS_MAT4_F64_SCRATCH_DOUBLES(joints) * sizeof(double));
        char what[112];
        size_t steps;
        int rows;
        random_parents(parents, joints, &r);
        random_mat4(a, big, round % 4 == 3 ? 100.0f : 1.0f, round % 2 ? 0.4 : 0.0, &r);
        random_mat4(b, big, 1.0f, round % 5 == 4 ? 0.5 : 0.0, &r);
        fill_uniform(pts, big * 3, -2.0f, 2.0f, &r);
        if (specials) {
            sprinkle_specials(a, big * MF, 0.03, &r);
            sprinkle_specials(b, big * MF, 0.03, &r);
            sprinkle_specials(pts, big * 3, 0.05, &r);
        }

        /* matmul4: steps (1, 1), (1, 0), (0, 1), (0, 0) */
        for (steps = 0; steps < 4; steps++) {
            const size_t a_step = !(steps & 2), b_step = !(steps & 1);
            snprintf(what, sizeof what, "matmul4 steps %zu %zu n=%zu", a_step, b_step, n);
            memset(got, 0, n * MF * sizeof(float));
            memset(want, 0, n * MF * sizeof(float));
            k->matmul4(got, a, a_step, b, b_step, n);
            ref->matmul4(want, a, a_step, b, b_step, n);
            failures += check_same(what, name, got, want, n * MF);
        }
        snprintf(what, sizeof what, "matmul4 in place (out = a, then out = b) n=%zu", n);
        memcpy(got, a, n * MF * sizeof(float));
        memcpy(want, a, n * MF * sizeof(float));
        k->matmul4(got, got, 1, b, round % 2, n);
        ref->matmul4(want, want, 1, b, round % 2, n);
        k->matmul4(got, a, round % 2, got, 1, n);
        ref->matmul4(want, a, round % 2, want, 1, n);
        failures += check_same(what, name, got, want, n * MF);

        /* mat4_local_to_global, float32 and float64, a range and in place */
        snprintf(what, sizeof what, "mat4_local_to_global J=%zu B=%zu [%zu,%zu)", joints, batch,
                 start, stop);
        memcpy(got, a, total * sizeof(float));
        memcpy(want, a, total * sizeof(float));
        k->mat4_local_to_global(got, a, parents, batch, joints, start, stop, batch);
        ref->mat4_local_to_global(want, a, parents, batch, joints, start, stop, batch);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "mat4_local_to_global chunk of a large call J=%zu B=%zu",
                 joints, batch);
        memcpy(got, a, total * sizeof(float));
        k->mat4_local_to_global(got, a, parents, batch, joints, start, stop, (size_t)1 << 30);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "mat4_local_to_global in place J=%zu B=%zu", joints, batch);
        memcpy(got, a, total * sizeof(float));
        memcpy(want, a, total * sizeof(float));
        k->mat4_local_to_global(got, got, parents, batch, joints, 0, joints, batch);
        ref->mat4_local_to_global(want, want, parents, batch, joints, 0, joints, batch);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "mat4_local_to_global_f64 J=%zu B=%zu [%zu,%zu)", joints,
                 batch, start, stop);
        memcpy(got, a, total * sizeof(float));
        memcpy(want, a, total * sizeof(float));
        k->mat4_local_to_global_f64(got, a, parents, batch, joints, start, stop, scratch);
        ref->mat4_local_to_global_f64(want, a, parents, batch, joints, start, stop, scratch);
        failures += check_same(what, name, got, want, total);

        snprintf(what, sizeof what, "mat4_local_to_global_f64 in place J=%zu B=%zu", joints, batch);
        memcpy(got, a, total * sizeof(float));
        memcpy(want, a, total * sizeof(float));
        k->mat4_local_to_global_f64(got, got, parents, batch, joints, 0, joints, scratch);
        ref->mat4_local_to_global_f64(want, want, parents, batch, joints, 0, joints, scratch);
        failures += check_same(what, name, got, want, total);

        /* transform_points: 3x4 (the first 12 floats of each 4x4 as a packed 3x4 array) and 4x4 */
        for (rows = 3; rows <= 4; rows++) {
            typedef void (*transform_fn)(float *, const float *, size_t, const float *, size_t,
                                         size_t);
            const transform_fn tk = rows == 3 ? k->transform_points_3x4 : k->transform_points_4x4;
            const transform_fn tr = rows == 3 ? ref->transform_points_3x4 : ref->transform_points_4x4;
            const size_t mfl = 4 * (size_t)rows;
            float *m = check_alloc(big * mfl * sizeof(float));
            size_t i;
            for (i = 0; i < big; i++) memcpy(m + mfl * i, a + MF * i, mfl * sizeof(float));
            for (steps = 0; steps < 4; steps++) {
                const size_t m_step = !(steps & 2), p_step = !(steps & 1);
                snprintf(what, sizeof what, "transform_points %dx4 steps %zu %zu n=%zu", rows,
                         m_step, p_step, n);
                memset(got, 0, n * 3 * sizeof(float));
                memset(want, 0, n * 3 * sizeof(float));
                tk(got, m, m_step, pts, p_step, n);
                tr(want, m, m_step, pts, p_step, n);
                failures += check_same(what, name, got, want, n * 3);
            }
            snprintf(what, sizeof what, "transform_points %dx4 in place m_step %d n=%zu", rows,
                     round % 2, n);
            memcpy(got, pts, n * 3 * sizeof(float));
            memcpy(want, pts, n * 3 * sizeof(float));
            tk(got, m, (size_t)(round % 2), got, 1, n);
            tr(want, m, (size_t)(round % 2), want, 1, n);
            failures += check_same(what, name, got, want, n * 3);
            free(m);
        }
        free(parents); free(a); free(b); free(got); free(want); free(pts); free(scratch);
    }
    return failures;
}
