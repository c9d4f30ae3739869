/*
 * check_convert.c -- the rotation conversion family (src/kernels/convert.c) of a target against
 * the scalar target, bit for bit: every kernel on n = 0..40 (every tail length of every vector
 * width) and larger sizes, all 24 Euler sequences, every flag (degrees, scalar_first, rows), with
 * special inputs mixed in: angles beyond the vector reduction's range (the double path),
 * quaternions in and near gimbal lock for every sequence, zero, tiny, huge, antipodal and
 * non-finite quaternions, w = 0 and -0.0 (the canonical hemisphere), rotation vectors near 0,
 * near pi and beyond a turn, 6D vectors of rotations, random and degenerate ones. Also the
 * documented identities with the quaternion family on the same target: quat_to_sixd equals
 * matrix_to_sixd of quat_to_matrix, sixd_to_quat equals matrix_to_quat of sixd_to_matrix.
 */
#include "check.h"
#include "convert.h"
#include "cpu.h"
#include "quat.h"

static const int all_seqs[24] = {
#define SEQ(a, b, c) SKS_EULER_SEQ(a, b, c, 1), SKS_EULER_SEQ(a, b, c, 0)
    SEQ(0, 1, 2), SEQ(0, 2, 1), SEQ(1, 0, 2), SEQ(1, 2, 0), SEQ(2, 0, 1), SEQ(2, 1, 0),
    SEQ(0, 1, 0), SEQ(0, 2, 0), SEQ(1, 0, 1), SEQ(1, 2, 1), SEQ(2, 0, 2), SEQ(2, 1, 2),
#undef SEQ
};

/* Euler angles: mostly in [-4, 4] (radians) or [-400, 400] (degrees), some huge (the double
 * path), some special; the middle angle of a few set to a lock value plus a tiny offset. */
static void random_angles(float *a, size_t n, int degrees, int specials, check_rng *r)
{
    const float span = degrees ? 400.0f : 4.0f, lock = degrees ? 90.0f : 1.5707964f;
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t kind = rng_below(r, 12);
        fill_uniform(a + 3 * i, 3, -span, span, r);
        if (kind == 0) a[3 * i + 1] = (rng_below(r, 2) ? lock : 0.0f) + rng_uniform(r, -1e-6f, 1e-6f);
        else if (kind == 1) a[3 * i + rng_below(r, 3)] = rng_uniform(r, -3e7f, 3e7f);
        else if (kind == 2 && specials) sprinkle_specials(a + 3 * i, 3, 0.5, r);
    }
}

/* Quaternions: random unit ones, and some in or near gimbal lock (built by the kernel under
 * test's own euler_to_quat on the scalar row, middle angle at a lock value), zero, tiny, huge,
 * negated neighbours, w = +-0, non-finite. */
static void random_quats(float *q, size_t n, int seq, int specials, check_rng *r)
{
    const sks_convert_kernels *ref = sks_convert_variants[SKS_ISA_SCALAR];
    const int symmetric = SKS_EULER_AXIS(seq, 0) == SKS_EULER_AXIS(seq, 2);
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t kind = rng_below(r, 14);
        float *p = q + 4 * i;
        random_quat(p, r);
        if (kind < 3) {
            float a[3];
            const float ends[2][2] = {{0.0f, 3.1415927f}, {1.5707964f, -1.5707964f}};
            fill_uniform(a, 3, -3.2f, 3.2f, r);
            a[1] = ends[!symmetric][rng_below(r, 2)] + (kind == 0 ? 0.0f : rng_uniform(r, -3e-7f, 3e-7f));
            ref->euler_to_quat(p, a, 1, seq, 0);
        } else if (specials) {
            int c;
            if (kind == 3) memset(p, 0, 4 * sizeof(float));
            else if (kind == 4) for (c = 0; c < 4; c++) p[c] *= 1e-20f;
            else if (kind == 5) for (c = 0; c < 4; c++) p[c] *= 1e25f;
            else if (kind == 6 && i > 0) for (c = 0; c < 4; c++) p[c] = -p[c - 4];
            else if (kind == 7) p[3] = rng_below(r, 2) ? 0.0f : -0.0f;
            else if (kind == 8) { p[3] = 0.0f; p[0] = rng_below(r, 2) ? 0.0f : -0.0f; }
            else if (kind == 9) sprinkle_specials(p, 4, 0.5, r);
        }
    }
}

/* Rotation vectors: magnitudes up to 7 (beyond a turn: the double path), tiny, near pi, huge,
 * special. */
static void random_rotvecs(float *v, size_t n, int specials, check_rng *r)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t kind = rng_below(r, 10);
        float *p = v + 3 * i;
        float len2, scale;
        int c;
        fill_uniform(p, 3, -1.0f, 1.0f, r);
        len2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
        scale = kind == 0 ? 1e-6f : kind == 1 ? 3.1415927f : kind == 2 ? 5e3f : rng_uniform(r, 0.0f, 7.0f);
        if (len2 > 0.0f) for (c = 0; c < 3; c++) p[c] *= scale / sqrtf(len2);
        if (kind == 3 && specials) sprinkle_specials(p, 3, 0.5, r);
    }
}

/* 6D vectors: of random rotations, random (network-like), nearly parallel halves, special. */
static void random_sixd(float *d, size_t n, int specials, check_rng *r)
{
    const sks_quat_kernels *qk = sks_quat_variants[SKS_ISA_SCALAR];
    size_t i;
    for (i = 0; i < n; i++) {
        const size_t kind = rng_below(r, 8);
        float *p = d + 6 * i;
        if (kind < 3) {
            float q[4], m[9];
            random_quat(q, r);
            qk->to_matrix(m, q, 1, 0);
            p[0] = m[0]; p[1] = m[3]; p[2] = m[6]; p[3] = m[1]; p[4] = m[4]; p[5] = m[7];
        } else {
            fill_uniform(p, 6, -2.0f, 2.0f, r);
            if (kind == 3) { int c; for (c = 0; c < 3; c++) p[3 + c] = p[c] * 1.5f + rng_uniform(r, -1e-6f, 1e-6f); }
            if (kind == 4) { int c; for (c = 0; c < 6; c++) p[c] *= rng_below(r, 2) ? 1e-20f : 1e22f; }
            if (kind == 5 && specials) sprinkle_specials(p, 6, 0.3, r);
        }
    }
}

int check_convert(enum sks_isa isa, uint64_t seed)
{
    const sks_convert_kernels *k = sks_convert_variants[isa], *ref = sks_convert_variants[SKS_ISA_SCALAR];
    const sks_quat_kernels *qk = sks_quat_variants[isa];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 0x9E3779B97F4A7C15ull + 11u};
    int failures = 0;
    size_t round;
    for (round = 0; round < 144; round++) {
        const size_t n = round < 41 ? round : 41 + rng_below(&r, 300);
        const int specials = round % 2, seq = all_seqs[round % 24];
        const int flags = (int)(round / 2 % 8);   /* degrees, scalar_first, rows */
        float *in = check_alloc(9 * n * sizeof(float) + 64), *in2 = check_alloc(9 * n * sizeof(float) + 64);
        float *got = check_alloc(9 * n * sizeof(float) + 64), *want = check_alloc(9 * n * sizeof(float) + 64);
        char what[96];
        size_t lk_got, lk_want;
        int s;

        random_angles(in, n, flags & SKS_CONVERT_DEGREES, specials, &r);
        snprintf(what, sizeof what, "euler_to_quat n=%zu seq=%d flags=%d", n, seq, flags);
        k->euler_to_quat(got, in, n, seq, flags);
        ref->euler_to_quat(want, in, n, seq, flags);
        failures += check_same(what, name, got, want, 4 * n);

        for (s = 0; s < 24; s += (n > 40 ? 1 : 7)) {
            random_quats(in, n, all_seqs[s], specials, &r);
            snprintf(what, sizeof what, "quat_to_euler n=%zu seq=%d flags=%d", n, all_seqs[s], flags);
            lk_got = k->quat_to_euler(got, in, n, all_seqs[s], flags);
            lk_want = ref->quat_to_euler(want, in, n, all_seqs[s], flags);
            failures += check_same(what, name, got, want, 3 * n);
            if (lk_got != lk_want) {
                printf("MISMATCH %s [%s]: %zu locked != scalar %zu\n", what, name, lk_got, lk_want);
                failures++;
            }
        }

        random_quats(in, n, seq, specials, &r);
        snprintf(what, sizeof what, "quat_to_rotvec n=%zu flags=%d", n, flags);
        k->quat_to_rotvec(got, in, n, flags);
        ref->quat_to_rotvec(want, in, n, flags);
        failures += check_same(what, name, got, want, 3 * n);

        random_rotvecs(in, n, specials, &r);
        if (flags & SKS_CONVERT_DEGREES) {
            size_t i;
            for (i = 0; i < 3 * n; i++) in[i] *= 57.29578f;
        }
        snprintf(what, sizeof what, "rotvec_to_quat n=%zu flags=%d", n, flags);
        k->rotvec_to_quat(got, in, n, flags);
        ref->rotvec_to_quat(want, in, n, flags);
        failures += check_same(what, name, got, want, 4 * n);

        random_sixd(in, n, specials, &r);
        snprintf(what, sizeof what, "sixd_to_matrix n=%zu flags=%d", n, flags);
        k->sixd_to_matrix(got, in, n, flags);
        ref->sixd_to_matrix(want, in, n, flags);
        failures += check_same(what, name, got, want, 9 * n);
        snprintf(what, sizeof what, "sixd_to_quat = from_matrix(sixd_to_matrix) n=%zu flags=%d", n, flags);
        k->sixd_to_quat(got, in, n, flags);
        ref->sixd_to_quat(want, in, n, flags);
        failures += check_same(what, name, got, want, 4 * n);
        {   /* the identity with the quaternion family */
            size_t i;
            k->sixd_to_matrix(in2, in, n, flags & SKS_CONVERT_ROWS);
            qk->from_matrix(want, in2, n, (flags & SKS_CONVERT_SCALAR_FIRST) != 0);
            for (i = 0; i < 4 * n; i++) {
                if (!check_same_float(got[i], want[i])) {
                    printf("MISMATCH %s [%s] at %zu: not matrix_to_quat(sixd_to_matrix)\n", what, name, i);
                    failures++;
                    break;
                }
            }
        }

        snprintf(what, sizeof what, "matrix_to_sixd n=%zu flags=%d", n, flags);
        k->matrix_to_sixd(got, in2, n, flags);
        ref->matrix_to_sixd(want, in2, n, flags);
        failures += check_same(what, name, got, want, 6 * n);

        random_quats(in, n, seq, specials, &r);
        snprintf(what, sizeof what, "quat_to_sixd n=%zu flags=%d", n, flags);
        k->quat_to_sixd(got, in, n, flags);
        ref->quat_to_sixd(want, in, n, flags);
        failures += check_same(what, name, got, want, 6 * n);
        qk->to_matrix(in2, in, n, (flags & SKS_CONVERT_SCALAR_FIRST) != 0);
        k->matrix_to_sixd(want, in2, n, flags);
        snprintf(what, sizeof what, "quat_to_sixd = matrix_to_sixd(quat_to_matrix) n=%zu flags=%d", n, flags);
        failures += check_same(what, name, got, want, 6 * n);

        free(in); free(in2); free(got); free(want);
    }
    return failures;
}
