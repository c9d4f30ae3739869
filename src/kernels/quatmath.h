/*
 * quatmath.h -- quaternion building blocks shared by the quaternion families (quat.c, blend.c,
 * qts.c): scalar helpers (the portable reference, also used for SIMD tails and rare lanes) and
 * the SSE4.1 / AVX2 structure-of-arrays (SoA) helpers.
 *
 * Conventions: a quaternion is 4 floats (x, y, z, w); a QTS joint is 8 floats
 * (qx, qy, qz, qw, tx, ty, tz, s). The operation order of every helper is fixed and the SIMD
 * helpers evaluate exactly the scalar order (no FMA; the build uses -ffp-contract=off), so every
 * variant of every kernel built from them gives bit-identical results on finite inputs.
 *
 *   dot(a, b)     = (ax bx + az bz) + (ay by + aw bw)            (pairwise)
 *   a * b         = Hamilton product, see sks_quat_mul_scalar
 *   s R(q)        = s times the rotation of q / |q| (sks_quat_scaled_rotation_scalar: with
 *                   n2 = dot(q, q) and h = s / n2, diagonal h ((w^2 + x^2) - (y^2 + z^2)) etc.,
 *                   off-diagonal 2h (xy - zw) etc.; a zero quaternion gives s I), so s = 1 gives
 *                   exactly R(q).
 */
#ifndef SKS_QUATMATH_H
#define SKS_QUATMATH_H

#include <math.h>

#include "simd.h"

#include "quat_scalar.h"

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 SoA helpers: four quaternions as x, y, z, w vectors.
 * ------------------------------------------------------------------------------------------ */

typedef struct sks_quat4 {
    __m128 x, y, z, w;
} sks_quat4;

/* Four (x, y, z, w) quaternions at p[0], p[step], p[2 step], p[3 step] (step in floats; 0
 * repeats one) into SoA. */
SKS_TARGET_SSE41 static inline sks_quat4 sks_quat4_load(const float *p, size_t step)
{
    __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + step), c = _mm_loadu_ps(p + 2 * step),
           d = _mm_loadu_ps(p + 3 * step);
    sks_quat4 q;
    _MM_TRANSPOSE4_PS(a, b, c, d);
    q.x = a;
    q.y = b;
    q.z = c;
    q.w = d;
    return q;
}

SKS_TARGET_SSE41 static inline void sks_quat4_store(float *p, size_t step, sks_quat4 q)
{
    _MM_TRANSPOSE4_PS(q.x, q.y, q.z, q.w);
    _mm_storeu_ps(p, q.x);
    _mm_storeu_ps(p + step, q.y);
    _mm_storeu_ps(p + 2 * step, q.z);
    _mm_storeu_ps(p + 3 * step, q.w);
}

SKS_TARGET_SSE41 static inline __m128 sks_quat4_dot(sks_quat4 a, sks_quat4 b)
{
    return _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.x, b.x), _mm_mul_ps(a.z, b.z)),
                      _mm_add_ps(_mm_mul_ps(a.y, b.y), _mm_mul_ps(a.w, b.w)));
}

SKS_TARGET_SSE41 static inline sks_quat4 sks_quat4_mul(sks_quat4 a, sks_quat4 b)
{
    sks_quat4 r;
    r.x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.w, b.x), _mm_mul_ps(a.x, b.w)),
                     _mm_sub_ps(_mm_mul_ps(a.y, b.z), _mm_mul_ps(a.z, b.y)));
    r.y = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.w, b.y), _mm_mul_ps(a.y, b.w)),
                     _mm_sub_ps(_mm_mul_ps(a.z, b.x), _mm_mul_ps(a.x, b.z)));
    r.z = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a.w, b.z), _mm_mul_ps(a.z, b.w)),
                     _mm_sub_ps(_mm_mul_ps(a.x, b.y), _mm_mul_ps(a.y, b.x)));
    r.w = _mm_sub_ps(_mm_sub_ps(_mm_mul_ps(a.w, b.w), _mm_mul_ps(a.x, b.x)),
                     _mm_add_ps(_mm_mul_ps(a.y, b.y), _mm_mul_ps(a.z, b.z)));
    return r;
}

/* r[9] (SoA) = scale * R(q), the scalar sks_quat_scaled_rotation_scalar on four lanes. */
SKS_TARGET_SSE41 static inline void sks_quat4_scaled_rotation(__m128 r[9], sks_quat4 q, __m128 scale)
{
    const __m128 xx = _mm_mul_ps(q.x, q.x), yy = _mm_mul_ps(q.y, q.y);
    const __m128 zz = _mm_mul_ps(q.z, q.z), ww = _mm_mul_ps(q.w, q.w);
    const __m128 n2 = _mm_add_ps(_mm_add_ps(xx, zz), _mm_add_ps(yy, ww));
    const __m128 positive = _mm_cmpgt_ps(n2, _mm_setzero_ps());
    const __m128 h = _mm_and_ps(positive, _mm_div_ps(scale, n2)), k = _mm_add_ps(h, h);
    const __m128 id = _mm_andnot_ps(positive, scale);
    const __m128 xy = _mm_mul_ps(q.x, q.y), xz = _mm_mul_ps(q.x, q.z), yz = _mm_mul_ps(q.y, q.z);
    const __m128 xw = _mm_mul_ps(q.x, q.w), yw = _mm_mul_ps(q.y, q.w), zw = _mm_mul_ps(q.z, q.w);
    r[0] = _mm_add_ps(_mm_mul_ps(h, _mm_sub_ps(_mm_add_ps(ww, xx), _mm_add_ps(yy, zz))), id);
    r[1] = _mm_mul_ps(k, _mm_sub_ps(xy, zw));
    r[2] = _mm_mul_ps(k, _mm_add_ps(xz, yw));
    r[3] = _mm_mul_ps(k, _mm_add_ps(xy, zw));
    r[4] = _mm_add_ps(_mm_mul_ps(h, _mm_sub_ps(_mm_add_ps(ww, yy), _mm_add_ps(xx, zz))), id);
    r[5] = _mm_mul_ps(k, _mm_sub_ps(yz, xw));
    r[6] = _mm_mul_ps(k, _mm_sub_ps(xz, yw));
    r[7] = _mm_mul_ps(k, _mm_add_ps(yz, xw));
    r[8] = _mm_add_ps(_mm_mul_ps(h, _mm_sub_ps(_mm_add_ps(ww, zz), _mm_add_ps(xx, yy))), id);
}

/* ((r0 v0 + r1 v1) + r2 v2) + tau on four lanes. */
SKS_TARGET_SSE41 static inline __m128 sks_row_dot3_sse41(const __m128 *r, __m128 v0, __m128 v1,
                                                         __m128 v2, __m128 tau)
{
    return _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(r[0], v0), _mm_mul_ps(r[1], v1)),
                                 _mm_mul_ps(r[2], v2)),
                      tau);
}

/* Joint matrices [r | t] of four lanes (9 SoA rotation entries, 3 SoA translations) stored at
 * dst[l] (12 floats each) for l < nvalid. */
SKS_TARGET_SSE41 static inline void sks_joint_matrices4_store(float *const dst[4], size_t nvalid,
                                                              const __m128 r[9], const __m128 t[3])
{
    int row;
    size_t l;
    for (row = 0; row < 3; row++) {
        __m128 v[4];
        v[0] = r[3 * row];
        v[1] = r[3 * row + 1];
        v[2] = r[3 * row + 2];
        v[3] = t[row];
        _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
        for (l = 0; l < nvalid; l++) _mm_storeu_ps(dst[l] + 4 * row, v[l]);
    }
}

/* ------------------------------------------------------------------------------------------
 * AVX2 SoA helpers: eight quaternions as x, y, z, w vectors. The lanes are in the order
 * (0, 2, 4, 6 | 1, 3, 5, 7) of the memory quaternions (an in-lane 4x4 transpose of four
 * 256-bit loads); sks_quat8_store undoes it, and per-quaternion scalars loaded with
 * sks_lanes8_load follow the same order.
 * ------------------------------------------------------------------------------------------ */

typedef struct sks_quat8 {
    __m256 x, y, z, w;
} sks_quat8;

SKS_TARGET_AVX2 static inline void sks_transpose4_in_lanes(__m256 *a, __m256 *b, __m256 *c, __m256 *d)
{
    const __m256 t0 = _mm256_unpacklo_ps(*a, *b), t1 = _mm256_unpackhi_ps(*a, *b);
    const __m256 t2 = _mm256_unpacklo_ps(*c, *d), t3 = _mm256_unpackhi_ps(*c, *d);
    *a = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
    *b = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
    *c = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
    *d = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
}

/* Eight consecutive quaternions at p (32 floats) into SoA. */
SKS_TARGET_AVX2 static inline sks_quat8 sks_quat8_load(const float *p)
{
    sks_quat8 q;
    q.x = _mm256_loadu_ps(p);
    q.y = _mm256_loadu_ps(p + 8);
    q.z = _mm256_loadu_ps(p + 16);
    q.w = _mm256_loadu_ps(p + 24);
    sks_transpose4_in_lanes(&q.x, &q.y, &q.z, &q.w);
    return q;
}

/* One quaternion repeated in all eight lanes. */
SKS_TARGET_AVX2 static inline sks_quat8 sks_quat8_splat(const float *p)
{
    sks_quat8 q;
    q.x = _mm256_broadcast_ss(p);
    q.y = _mm256_broadcast_ss(p + 1);
    q.z = _mm256_broadcast_ss(p + 2);
    q.w = _mm256_broadcast_ss(p + 3);
    return q;
}

SKS_TARGET_AVX2 static inline void sks_quat8_store(float *p, sks_quat8 q)
{
    sks_transpose4_in_lanes(&q.x, &q.y, &q.z, &q.w);
    _mm256_storeu_ps(p, q.x);
    _mm256_storeu_ps(p + 8, q.y);
    _mm256_storeu_ps(p + 16, q.z);
    _mm256_storeu_ps(p + 24, q.w);
}

/* Eight consecutive floats in the lane order of sks_quat8_load. */
SKS_TARGET_AVX2 static inline __m256 sks_lanes8_load(const float *p)
{
    return _mm256_permutevar8x32_ps(_mm256_loadu_ps(p), _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

SKS_TARGET_AVX2 static inline __m256 sks_quat8_dot(sks_quat8 a, sks_quat8 b)
{
    return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.x, b.x), _mm256_mul_ps(a.z, b.z)),
                         _mm256_add_ps(_mm256_mul_ps(a.y, b.y), _mm256_mul_ps(a.w, b.w)));
}

SKS_TARGET_AVX2 static inline sks_quat8 sks_quat8_mul(sks_quat8 a, sks_quat8 b)
{
    sks_quat8 r;
    r.x = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.w, b.x), _mm256_mul_ps(a.x, b.w)),
                        _mm256_sub_ps(_mm256_mul_ps(a.y, b.z), _mm256_mul_ps(a.z, b.y)));
    r.y = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.w, b.y), _mm256_mul_ps(a.y, b.w)),
                        _mm256_sub_ps(_mm256_mul_ps(a.z, b.x), _mm256_mul_ps(a.x, b.z)));
    r.z = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(a.w, b.z), _mm256_mul_ps(a.z, b.w)),
                        _mm256_sub_ps(_mm256_mul_ps(a.x, b.y), _mm256_mul_ps(a.y, b.x)));
    r.w = _mm256_sub_ps(_mm256_sub_ps(_mm256_mul_ps(a.w, b.w), _mm256_mul_ps(a.x, b.x)),
                        _mm256_add_ps(_mm256_mul_ps(a.y, b.y), _mm256_mul_ps(a.z, b.z)));
    return r;
}

/* r[9] (SoA) = scale * R(q) on eight lanes (see sks_quat_scaled_rotation_scalar). */
SKS_TARGET_AVX2 static inline void sks_quat8_scaled_rotation(__m256 r[9], sks_quat8 q, __m256 scale)
{
    const __m256 xx = _mm256_mul_ps(q.x, q.x), yy = _mm256_mul_ps(q.y, q.y);
    const __m256 zz = _mm256_mul_ps(q.z, q.z), ww = _mm256_mul_ps(q.w, q.w);
    const __m256 n2 = _mm256_add_ps(_mm256_add_ps(xx, zz), _mm256_add_ps(yy, ww));
    const __m256 positive = _mm256_cmp_ps(n2, _mm256_setzero_ps(), _CMP_GT_OQ);
    const __m256 h = _mm256_and_ps(positive, _mm256_div_ps(scale, n2)), k = _mm256_add_ps(h, h);
    const __m256 id = _mm256_andnot_ps(positive, scale);
    const __m256 xy = _mm256_mul_ps(q.x, q.y), xz = _mm256_mul_ps(q.x, q.z);
    const __m256 yz = _mm256_mul_ps(q.y, q.z), xw = _mm256_mul_ps(q.x, q.w);
    const __m256 yw = _mm256_mul_ps(q.y, q.w), zw = _mm256_mul_ps(q.z, q.w);
    r[0] = _mm256_add_ps(_mm256_mul_ps(h, _mm256_sub_ps(_mm256_add_ps(ww, xx), _mm256_add_ps(yy, zz))), id);
    r[1] = _mm256_mul_ps(k, _mm256_sub_ps(xy, zw));
    r[2] = _mm256_mul_ps(k, _mm256_add_ps(xz, yw));
    r[3] = _mm256_mul_ps(k, _mm256_add_ps(xy, zw));
    r[4] = _mm256_add_ps(_mm256_mul_ps(h, _mm256_sub_ps(_mm256_add_ps(ww, yy), _mm256_add_ps(xx, zz))), id);
    r[5] = _mm256_mul_ps(k, _mm256_sub_ps(yz, xw));
    r[6] = _mm256_mul_ps(k, _mm256_sub_ps(xz, yw));
    r[7] = _mm256_mul_ps(k, _mm256_add_ps(yz, xw));
    r[8] = _mm256_add_ps(_mm256_mul_ps(h, _mm256_sub_ps(_mm256_add_ps(ww, zz), _mm256_add_ps(xx, yy))), id);
}

SKS_TARGET_AVX2 static inline __m256 sks_row_dot3_avx2(const __m256 *r, __m256 v0, __m256 v1,
                                                       __m256 v2, __m256 tau)
{
    return _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(r[0], v0), _mm256_mul_ps(r[1], v1)),
                      _mm256_mul_ps(r[2], v2)),
        tau);
}


/* In-place 8x8 transpose: r[i] lane c <-> r[c] lane i (eight QTS joints <-> eight SoA
 * components), 24 shuffles. */
SKS_TARGET_AVX2 static inline void sks_transpose8(__m256 r[8])
{
    __m256 a = r[0], b = r[1], c = r[2], d = r[3], e = r[4], f = r[5], g = r[6], h = r[7];
    sks_transpose4_in_lanes(&a, &b, &c, &d);
    sks_transpose4_in_lanes(&e, &f, &g, &h);
    r[0] = _mm256_permute2f128_ps(a, e, 0x20);
    r[1] = _mm256_permute2f128_ps(b, f, 0x20);
    r[2] = _mm256_permute2f128_ps(c, g, 0x20);
    r[3] = _mm256_permute2f128_ps(d, h, 0x20);
    r[4] = _mm256_permute2f128_ps(a, e, 0x31);
    r[5] = _mm256_permute2f128_ps(b, f, 0x31);
    r[6] = _mm256_permute2f128_ps(c, g, 0x31);
    r[7] = _mm256_permute2f128_ps(d, h, 0x31);
}

/* Joint matrices [r | t] of eight lanes stored at dst[l] (12 floats each) for l < nvalid: rows
 * holds row i of every lane as rows[4 i .. 4 i + 3] = (r_i0, r_i1, r_i2, t_i) in SoA, natural lane
 * order. */
SKS_TARGET_AVX2 static inline void sks_joint_matrices8_store(float *const dst[8], size_t nvalid,
                                                             __m256 rows[12])
{
    size_t l;
    int i;
    for (i = 0; i < 3; i++) sks_transpose4_in_lanes(&rows[4 * i], &rows[4 * i + 1], &rows[4 * i + 2],
                                                    &rows[4 * i + 3]);
    /* rows[4 i + l] = [row i of lane l | row i of lane l + 4] */
    for (l = 0; l < 4 && l < nvalid; l++) {
        _mm256_storeu_ps(dst[l], _mm256_permute2f128_ps(rows[l], rows[4 + l], 0x20));
        _mm_storeu_ps(dst[l] + 8, _mm256_castps256_ps128(rows[8 + l]));
    }
    for (l = 4; l < nvalid; l++) {
        _mm256_storeu_ps(dst[l], _mm256_permute2f128_ps(rows[l - 4], rows[l], 0x31));
        _mm_storeu_ps(dst[l] + 8, _mm256_extractf128_ps(rows[4 + l], 1));
    }
}

#endif /* SKS_HAVE_X86_SIMD */

#endif /* SKS_QUATMATH_H */
