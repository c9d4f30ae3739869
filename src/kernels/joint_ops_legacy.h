/*
 * joint_ops_legacy.h -- (until skinning.c moves to the vocabulary; see joint_ops.h) the 3x4 joint-matrix product as static inline building blocks, one set per
 * variant, shared by every family that multiplies joint matrices (joints.c: local_to_global,
 * multiply_joints; skinning.c: skinning_palette). Sharing them is what makes those kernels
 * bit-identical to each other as well as across variants.
 *
 * Element (i, c) of a @ b is ((a[i][0] * b[0][c] + a[i][1] * b[1][c]) + a[i][2] * b[2][c]) + tau,
 * tau = a[i][3] for the translation column c = 3 and +0.0 otherwise (no FMA; the build uses
 * -ffp-contract=off). See joints.c for why the parent's translation is added last.
 */
#ifndef SKS_JOINT_OPS_LEGACY_H
#define SKS_JOINT_OPS_LEGACY_H

#include "joints.h"

/* ------------------------------------------------------------------------------------------
 * Scalar
 * ------------------------------------------------------------------------------------------ */

/* o = a @ b (3x4 affine). o may alias a or b. Error per element: three roundings of partial
 * sums bounded by |a_i0 b_0c| + |a_i1 b_1c| + |a_i2 b_2c|, then one of the result. */
static inline void joint_mul_scalar(float *o, const float *a, const float *b)
{
    float r[SKS_JOINT_FLOATS];
    int i, c;
    for (i = 0; i < 3; i++) {
        const float a0 = a[4 * i], a1 = a[4 * i + 1], a2 = a[4 * i + 2], a3 = a[4 * i + 3];
        for (c = 0; c < 4; c++) {
            const float tau = (c == 3) ? a3 : 0.0f;
            r[4 * i + c] = ((a0 * b[c] + a1 * b[4 + c]) + a2 * b[8 + c]) + tau;
        }
    }
    memcpy(o, r, sizeof r);
}

/* r = p @ l in float64 (p float64, l float32: exact in float64), the order of the float64
 * walks (local_to_global and skinning_palette with precision="float64"): element (i, c) is
 *     (p[i][0] * l[0][c] + p[i][1] * l[1][c]) + (p[i][2] * l[2][c] + tau)
 * with tau as above; the pairwise order shortens the parent -> child latency. r must not alias
 * p. */
static inline void joint_mul_f64_scalar(double *r, const double *p, const float *l)
{
    int i, c;
    for (i = 0; i < 3; i++) {
        const double p0 = p[4 * i], p1 = p[4 * i + 1], p2 = p[4 * i + 2], p3 = p[4 * i + 3];
        for (c = 0; c < 4; c++) {
            const double tau = (c == 3) ? p3 : 0.0;
            r[4 * i + c] = (p0 * (double)l[c] + p1 * (double)l[4 + c])
                           + (p2 * (double)l[8 + c] + tau);
        }
    }
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1. A joint is three __m128 rows (r, r, r, t).
 * ------------------------------------------------------------------------------------------ */

/* One row of a @ b: ((a0*B0 + a1*B1) + a2*B2) + (0,0,0,a3), a = row of a in `ar`. */
SKS_TARGET_SSE41 static inline __m128 joint_row_sse41(__m128 ar, __m128 b0, __m128 b1, __m128 b2)
{
    const __m128 s01 = _mm_add_ps(_mm_mul_ps(SKS_SPLAT_LANE(ar, 0), b0),
                                  _mm_mul_ps(SKS_SPLAT_LANE(ar, 1), b1));
    const __m128 s = _mm_add_ps(s01, _mm_mul_ps(SKS_SPLAT_LANE(ar, 2), b2));
    return _mm_add_ps(s, sks_keep_lane3(ar));
}

/* A joint held in registers: three rows (r, r, r, t). */
typedef struct joint_sse41 {
    __m128 r0, r1, r2;
} joint_sse41;

SKS_TARGET_SSE41 static inline joint_sse41 joint_load_sse41(const float *m)
{
    joint_sse41 g;
    g.r0 = _mm_loadu_ps(m);
    g.r1 = _mm_loadu_ps(m + 4);
    g.r2 = _mm_loadu_ps(m + 8);
    return g;
}

SKS_TARGET_SSE41 static inline void joint_store_sse41(float *o, joint_sse41 g)
{
    _mm_storeu_ps(o, g.r0);
    _mm_storeu_ps(o + 4, g.r1);
    _mm_storeu_ps(o + 8, g.r2);
}

/* a @ b with a in registers and b in memory. */
SKS_TARGET_SSE41 static inline joint_sse41 joint_mul_regs_sse41(joint_sse41 a, const float *b)
{
    const __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8);
    joint_sse41 r;
    r.r0 = joint_row_sse41(a.r0, b0, b1, b2);
    r.r1 = joint_row_sse41(a.r1, b0, b1, b2);
    r.r2 = joint_row_sse41(a.r2, b0, b1, b2);
    return r;
}

/* The float64 product of the float64 walks (joint_mul_f64_scalar's operations in its order):
 * a float64 3x4 matrix as three rows of two __m128d halves. */
typedef struct joint_f64_sse41 {
    __m128d lo[3], hi[3];
} joint_f64_sse41;

SKS_TARGET_SSE41 static inline joint_f64_sse41 joint_f64_convert_sse41(const float *m)
{
    joint_f64_sse41 r;
    int i;
    for (i = 0; i < 3; i++) {
        const __m128 x = _mm_loadu_ps(m + 4 * i);
        r.lo[i] = _mm_cvtps_pd(x);
        r.hi[i] = _mm_cvtps_pd(_mm_movehl_ps(x, x));
    }
    return r;
}

/* p @ l in float64, p's coefficients replicated from memory. */
SKS_TARGET_SSE41 static inline joint_f64_sse41 joint_mul_f64_sse41(const double *p, const float *l)
{
    const joint_f64_sse41 b = joint_f64_convert_sse41(l);
    const __m128d zero = _mm_setzero_pd();
    joint_f64_sse41 r;
    int i;
    for (i = 0; i < 3; i++) {
        const double *prow = p + 4 * i;
        const __m128d p0 = _mm_loaddup_pd(prow), p1 = _mm_loaddup_pd(prow + 1);
        const __m128d p2 = _mm_loaddup_pd(prow + 2);
        const __m128d tau_hi = _mm_loadh_pd(zero, prow + 3);     /* (0, p3) */
        r.lo[i] = _mm_add_pd(_mm_add_pd(_mm_mul_pd(p0, b.lo[0]), _mm_mul_pd(p1, b.lo[1])),
                             _mm_add_pd(_mm_mul_pd(p2, b.lo[2]), zero));
        r.hi[i] = _mm_add_pd(_mm_add_pd(_mm_mul_pd(p0, b.hi[0]), _mm_mul_pd(p1, b.hi[1])),
                             _mm_add_pd(_mm_mul_pd(p2, b.hi[2]), tau_hi));
    }
    return r;
}

/* ------------------------------------------------------------------------------------------
 * AVX2 building blocks. Rows 0 and 1 of a joint travel together in one __m256 (the 8
 * contiguous floats), row 2 in an __m128; the b rows are broadcast to both 128-bit halves.
 * The same operations in the same order as the scalar code, 8 lanes at a time.
 * ------------------------------------------------------------------------------------------ */

/* A joint held in registers: rows 0-1 in one __m256 (8 contiguous floats), row 2 in an __m128. */
typedef struct joint_avx2 {
    __m256 r01;
    __m128 r2;
} joint_avx2;

SKS_TARGET_AVX2 static inline joint_avx2 joint_load_avx2(const float *m)
{
    joint_avx2 g;
    g.r01 = _mm256_loadu_ps(m);
    g.r2 = _mm_loadu_ps(m + 8);
    return g;
}

SKS_TARGET_AVX2 static inline void joint_store_avx2(float *o, joint_avx2 g)
{
    _mm256_storeu_ps(o, g.r01);
    _mm_storeu_ps(o + 8, g.r2);
}

/* a @ b with a in registers and b in memory: rows 0-1 of the result in one 256-bit pass (the b
 * rows broadcast to both halves, a's coefficients spread within each half), row 2 as in SSE4.1.
 * The same operations in the same order as joint_mul_scalar. */
SKS_TARGET_AVX2 static inline joint_avx2 joint_mul_regs_avx2(joint_avx2 a, const float *b)
{
    const __m256 b0 = _mm256_broadcast_ps((const __m128 *)(const void *)b);
    const __m256 b1 = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 4));
    const __m256 b2 = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 8));
    const __m256 s01 = _mm256_add_ps(_mm256_mul_ps(_mm256_permute_ps(a.r01, 0x00), b0),
                                     _mm256_mul_ps(_mm256_permute_ps(a.r01, 0x55), b1));
    const __m256 s = _mm256_add_ps(s01, _mm256_mul_ps(_mm256_permute_ps(a.r01, 0xAA), b2));
    joint_avx2 r;
    r.r01 = _mm256_add_ps(s, _mm256_blend_ps(_mm256_setzero_ps(), a.r01, 0x88));
    r.r2 = joint_row_sse41(a.r2, _mm256_castps256_ps128(b0), _mm256_castps256_ps128(b1),
                           _mm256_castps256_ps128(b2));
    return r;
}

/* Two skeletons of a batch, `stride` floats apart, held as one joint: r[i] = [row i of the
 * first | row i of the second]. One 256-bit operation then does the work of two 128-bit ones
 * and the coefficient spreads stay within 128-bit lanes. */
typedef struct joint_pair_avx2 {
    __m256 r[3];
} joint_pair_avx2;

SKS_TARGET_AVX2 static inline __m256 load_halves_avx2(const float *lo, const float *hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi), 1);
}

SKS_TARGET_AVX2 static inline joint_pair_avx2 joint_pair_load_avx2(const float *m, size_t stride)
{
    joint_pair_avx2 g;
    g.r[0] = load_halves_avx2(m, m + stride);
    g.r[1] = load_halves_avx2(m + 4, m + stride + 4);
    g.r[2] = load_halves_avx2(m + 8, m + stride + 8);
    return g;
}

SKS_TARGET_AVX2 static inline void joint_pair_store_avx2(float *o, size_t stride, joint_pair_avx2 g)
{
    int i;
    for (i = 0; i < 3; i++) {
        _mm_storeu_ps(o + 4 * i, _mm256_castps256_ps128(g.r[i]));
        _mm_storeu_ps(o + stride + 4 * i, _mm256_extractf128_ps(g.r[i], 1));
    }
}

/* a @ b for both skeletons of the pair, b's rows given as registers (bK = [row K of the first
 * skeleton's b | row K of the second's], or the same row twice for a b shared by both); the same
 * operations in the same order as joint_mul_scalar. */
SKS_TARGET_AVX2 static inline joint_pair_avx2 joint_pair_mul_rows_avx2(joint_pair_avx2 a, __m256 b0,
                                                                       __m256 b1, __m256 b2)
{
    joint_pair_avx2 r;
    int i;
    for (i = 0; i < 3; i++) {
        const __m256 s01 = _mm256_add_ps(_mm256_mul_ps(_mm256_permute_ps(a.r[i], 0x00), b0),
                                         _mm256_mul_ps(_mm256_permute_ps(a.r[i], 0x55), b1));
        const __m256 s = _mm256_add_ps(s01, _mm256_mul_ps(_mm256_permute_ps(a.r[i], 0xAA), b2));
        r.r[i] = _mm256_add_ps(s, _mm256_blend_ps(_mm256_setzero_ps(), a.r[i], 0x88));
    }
    return r;
}

/* a @ b for both skeletons of the pair (b in memory, second one `stride` floats later). */
SKS_TARGET_AVX2 static inline joint_pair_avx2 joint_pair_mul_avx2(joint_pair_avx2 a, const float *b,
                                                                  size_t stride)
{
    return joint_pair_mul_rows_avx2(a, load_halves_avx2(b, b + stride),
                                    load_halves_avx2(b + 4, b + stride + 4),
                                    load_halves_avx2(b + 8, b + stride + 8));
}

/* The float64 product of the float64 walks (joint_mul_f64_scalar's operations in its order):
 * a float64 row in one __m256d. */
typedef struct joint_f64_avx2 {
    __m256d r[3];
} joint_f64_avx2;

SKS_TARGET_AVX2 static inline joint_f64_avx2 joint_f64_convert_avx2(const float *m)
{
    joint_f64_avx2 r;
    int i;
    for (i = 0; i < 3; i++) r.r[i] = _mm256_cvtps_pd(_mm_loadu_ps(m + 4 * i));
    return r;
}

/* p @ l in float64, p's coefficients broadcast from memory. */
SKS_TARGET_AVX2 static inline joint_f64_avx2 joint_mul_f64_avx2(const double *p, const float *l)
{
    const joint_f64_avx2 b = joint_f64_convert_avx2(l);
    joint_f64_avx2 r;
    int i;
    for (i = 0; i < 3; i++) {
        const double *prow = p + 4 * i;
        const __m256d tau = _mm256_blend_pd(_mm256_setzero_pd(), _mm256_broadcast_sd(prow + 3),
                                            0x8);
        const __m256d s01 = _mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(prow), b.r[0]),
                                          _mm256_mul_pd(_mm256_broadcast_sd(prow + 1), b.r[1]));
        const __m256d s2 = _mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(prow + 2), b.r[2]),
                                         tau);
        r.r[i] = _mm256_add_pd(s01, s2);
    }
    return r;
}

#endif /* SKS_HAVE_X86_SIMD */

#endif /* SKS_JOINT_OPS_LEGACY_H */
