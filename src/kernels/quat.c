/*
 * quat.c -- quaternion algebra and conversions (see quat.h for layouts and quatmath.h for the
 * fixed operation order shared by every variant).
 *
 * multiply    out = a * b:  x = (aw bx + ax bw) + (ay bz - az by), y, z likewise (cyclic),
 *             w = (aw bw - ax bx) - (ay by + az bz). Exact algebra on any quaternion (no
 *             normalisation). Error <= 2.5e-7 per component for unit inputs (tested).
 * conjugate   (-x, -y, -z, w): exact.
 * normalize   q / sqrt(dot(q, q)), one division per component (1.3e-7 measured, bound 2e-7);
 *             zero -> (0, 0, 0, 1); tiny or huge q rescaled first; inf/NaN -> NaN.
 * rotate      R(q / |q|) v, rows ((r0 v0 + r1 v1) + r2 v2) with R from quatmath.h, so it equals
 *             to_matrix(q) @ v in this order; a zero q is the identity. Error <= 4e-7 |v|
 *             per component (2.8e-7 measured over 4M vectors).
 * to_matrix   R(q / |q|) (h = 1 / |q|^2, quatmath.h): a pure rotation even for non-unit q;
 *             zero q -> I. Error <= 4e-7 per entry (2.1e-7 measured over 4M; tested).
 * from_matrix Shepperd's method, robust for every rotation (including 180 degrees): of the four
 *             candidates 4w^2 = (1 + m00) + (m11 + m22), 4x^2 = (1 + m00) - (m11 + m22),
 *             4y^2 = (1 - m00) + (m11 - m22), 4z^2 = (1 - m00) - (m11 - m22) the largest (>= 1
 *             for a rotation) selects the row of 4 q_k q whose other entries are sums and
 *             differences of off-diagonal pairs; that vector is normalised (so no division by a
 *             small number ever happens, and the result is a unit quaternion even for a slightly
 *             non-orthogonal m) and flipped to w >= 0. Error <= 4e-7 (tested).
 * qts_to_matrix  [s R(q / |q|) | t] with h = s / |q|^2 (quatmath.h), so s = 1 gives exactly
 *             to_matrix's R. Error <= 4e-7 max(1, |s|) (tested).
 * matrix_to_qts  s = sign(det A) sqrt(|A|_F^2 / 3) (a negative determinant becomes a negative
 *             uniform scale, so A / s is a proper rotation), q = from_matrix(A / s), t = column
 *             3. A zero A gives s = 0 and q = (0, 0, 0, 1). For a similarity A = s R this is
 *             exact up to rounding; otherwise s is the RMS column scale and q the normalised
 *             Shepperd quaternion of A / s (not the polar rotation).
 *
 * from_matrix and matrix_to_qts select one of four formulas per element: their SSE4.1 and AVX2
 * rows run the scalar loop (a branch-free SoA form is future work; they are conversion
 * utilities, not per-frame kernels).
 */
#include "quat.h"

#include "quatmath.h"

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks
 * ------------------------------------------------------------------------------------------ */

/* A quaternion in memory as (x, y, z, w), or as (w, x, y, z) when scalar_first. */
static inline void quat_read_scalar(float q[4], const float *p, int scalar_first)
{
    if (scalar_first) {
        q[0] = p[1];
        q[1] = p[2];
        q[2] = p[3];
        q[3] = p[0];
    } else {
        memcpy(q, p, 4 * sizeof(float));
    }
}

static inline void quat_write_scalar(float *p, const float q[4], int scalar_first)
{
    if (scalar_first) {
        p[0] = q[3];
        p[1] = q[0];
        p[2] = q[1];
        p[3] = q[2];
    } else {
        memcpy(p, q, 4 * sizeof(float));
    }
}

/* o (3 floats) = R(q) v; o may alias v. */
static inline void quat_rotate_one_scalar(float *o, const float *q, const float *v)
{
    float r[9];
    float x, y, z;
    sks_quat_scaled_rotation_scalar(r, q, 1.0f);
    x = sks_row_dot3_scalar(r, v, 0.0f);
    y = sks_row_dot3_scalar(r + 3, v, 0.0f);
    z = sks_row_dot3_scalar(r + 6, v, 0.0f);
    o[0] = x;
    o[1] = y;
    o[2] = z;
}

/* o (12 floats) = [s R(q) | t] of the QTS joint x. */
static inline void qts_to_matrix_one_scalar(float *o, const float *x)
{
    float r[9];
    const float tx = x[4], ty = x[5], tz = x[6];
    sks_quat_scaled_rotation_scalar(r, x, x[7]);
    o[0] = r[0]; o[1] = r[1]; o[2] = r[2]; o[3] = tx;
    o[4] = r[3]; o[5] = r[4]; o[6] = r[5]; o[7] = ty;
    o[8] = r[6]; o[9] = r[7]; o[10] = r[8]; o[11] = tz;
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants (also the loops the SIMD variants finish their tails with)
 * ------------------------------------------------------------------------------------------ */

static void multiply_scalar(float *out, const float *a, size_t a_step, const float *b,
                            size_t b_step, size_t n)
{
    size_t i;
    a_step *= 4;
    b_step *= 4;
    for (i = 0; i < n; i++) sks_quat_mul_scalar(out + 4 * i, a + a_step * i, b + b_step * i);
}

static void conjugate_scalar(float *out, const float *q, size_t n)
{
    size_t i;
    for (i = 0; i < 4 * n; i += 4) {
        out[i] = -q[i];
        out[i + 1] = -q[i + 1];
        out[i + 2] = -q[i + 2];
        out[i + 3] = q[i + 3];
    }
}

static void normalize_scalar(float *out, const float *q, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) sks_quat_normalize_scalar(out + 4 * i, q + 4 * i);
}

static void rotate_scalar(float *out, const float *q, size_t q_step, const float *v,
                          size_t v_step, size_t n)
{
    size_t i;
    q_step *= 4;
    v_step *= 3;
    for (i = 0; i < n; i++) quat_rotate_one_scalar(out + 3 * i, q + q_step * i, v + v_step * i);
}

static void to_matrix_scalar(float *out, const float *q, size_t n, int scalar_first)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float p[4];
        quat_read_scalar(p, q + 4 * i, scalar_first);
        sks_quat_scaled_rotation_scalar(out + 9 * i, p, 1.0f);
    }
}

static void from_matrix_scalar(float *out, const float *m, size_t n, int scalar_first)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float q[4];
        sks_quat_from_rotation_scalar(q, m + 9 * i, 3);
        quat_write_scalar(out + 4 * i, q, scalar_first);
    }
}

static void qts_to_matrix_scalar(float *out, const float *x, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) qts_to_matrix_one_scalar(out + 12 * i, x + 8 * i);
}

static void matrix_to_qts_scalar(float *out, const float *m, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) sks_matrix_to_qts_scalar(out + 8 * i, m + 12 * i);
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants: four quaternions per step in SoA (quatmath.h), scalar tails.
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_SSE41 static void multiply_sse41(float *out, const float *a, size_t a_step,
                                            const float *b, size_t b_step, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const sks_quat4 qa = sks_quat4_load(a + 4 * a_step * i, 4 * a_step);
        const sks_quat4 qb = sks_quat4_load(b + 4 * b_step * i, 4 * b_step);
        sks_quat4_store(out + 4 * i, 4, sks_quat4_mul(qa, qb));
    }
    multiply_scalar(out + 4 * i, a + 4 * a_step * i, a_step, b + 4 * b_step * i, b_step, n - i);
}

SKS_TARGET_SSE41 static void conjugate_sse41(float *out, const float *q, size_t n)
{
    const __m128 sign = _mm_castsi128_ps(_mm_setr_epi32(INT32_MIN, INT32_MIN, INT32_MIN, 0));
    size_t i;
    for (i = 0; i < n; i++) _mm_storeu_ps(out + 4 * i, _mm_xor_ps(_mm_loadu_ps(q + 4 * i), sign));
}

/* A block with a lane whose dot(q, q) lies outside the fast range (zero, tiny, huge, inf, NaN)
 * runs through the scalar helper, which takes the same path for in-range lanes (bit-identical). */
SKS_TARGET_SSE41 static void normalize_sse41(float *out, const float *q, size_t n)
{
    const __m128 lo = _mm_set1_ps(SKS_NORM2_MIN), hi = _mm_set1_ps(SKS_NORM2_MAX);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        sks_quat4 v = sks_quat4_load(q + 4 * i, 4);
        const __m128 n2 = sks_quat4_dot(v, v);
        const int ok = _mm_movemask_ps(_mm_and_ps(_mm_cmpge_ps(n2, lo), _mm_cmple_ps(n2, hi)));
        const __m128 len = _mm_sqrt_ps(n2);
        v.x = _mm_div_ps(v.x, len);
        v.y = _mm_div_ps(v.y, len);
        v.z = _mm_div_ps(v.z, len);
        v.w = _mm_div_ps(v.w, len);
        if (ok == 0xF) {
            sks_quat4_store(out + 4 * i, 4, v);
        } else {
            normalize_scalar(out + 4 * i, q + 4 * i, 4);  /* rare: the whole block in scalar */
        }
    }
    normalize_scalar(out + 4 * i, q + 4 * i, n - i);
}

/* Four 3-vectors at p, p + step, ... into SoA components. */
SKS_TARGET_SSE41 static inline void vec3x4_load(__m128 v[3], const float *p, size_t step)
{
    int c;
    for (c = 0; c < 3; c++) v[c] = _mm_setr_ps(p[c], p[step + c], p[2 * step + c], p[3 * step + c]);
}

SKS_TARGET_SSE41 static void rotate_sse41(float *out, const float *q, size_t q_step,
                                          const float *v, size_t v_step, size_t n)
{
    const __m128 zero = _mm_setzero_ps();
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128 r[9], vv[3], o[3];
        float tmp[12];
        int l;
        sks_quat4_scaled_rotation(r, sks_quat4_load(q + 4 * q_step * i, 4 * q_step), _mm_set1_ps(1.0f));
        vec3x4_load(vv, v + 3 * v_step * i, 3 * v_step);
        o[0] = sks_row_dot3_sse41(r, vv[0], vv[1], vv[2], zero);
        o[1] = sks_row_dot3_sse41(r + 3, vv[0], vv[1], vv[2], zero);
        o[2] = sks_row_dot3_sse41(r + 6, vv[0], vv[1], vv[2], zero);
        for (l = 0; l < 3; l++) _mm_storeu_ps(tmp + 4 * l, o[l]);
        for (l = 0; l < 4; l++) {
            out[3 * (i + l)] = tmp[l];
            out[3 * (i + l) + 1] = tmp[4 + l];
            out[3 * (i + l) + 2] = tmp[8 + l];
        }
    }
    rotate_scalar(out + 3 * i, q + 4 * q_step * i, q_step, v + 3 * v_step * i, v_step, n - i);
}

/* Four rotation matrices (9 floats each, consecutive at out) from 9 SoA entries. */
SKS_TARGET_SSE41 static inline void rotations4_store(float *out, const __m128 r[9])
{
    const __m128 zero = _mm_setzero_ps();
    const __m128 t[3] = {zero, zero, zero};
    float tmp[4][12];
    float *const dst[4] = {tmp[0], tmp[1], tmp[2], tmp[3]};
    int l, row;
    sks_joint_matrices4_store(dst, 4, r, t);
    for (l = 0; l < 4; l++)
        for (row = 0; row < 3; row++) memcpy(out + 9 * l + 3 * row, tmp[l] + 4 * row, 3 * sizeof(float));
}

SKS_TARGET_SSE41 static void to_matrix_sse41(float *out, const float *q, size_t n, int scalar_first)
{
    const __m128 one = _mm_set1_ps(1.0f);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        sks_quat4 p = sks_quat4_load(q + 4 * i, 4);
        __m128 r[9];
        if (scalar_first) {
            const sks_quat4 s = {p.y, p.z, p.w, p.x};
            p = s;
        }
        sks_quat4_scaled_rotation(r, p, one);
        rotations4_store(out + 9 * i, r);
    }
    to_matrix_scalar(out + 9 * i, q + 4 * i, n - i, scalar_first);
}

SKS_TARGET_SSE41 static void qts_to_matrix_sse41(float *out, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float *p = x + 8 * i;
        const sks_quat4 q = sks_quat4_load(p, 8);
        const sks_quat4 ts = sks_quat4_load(p + 4, 8);
        const __m128 t[3] = {ts.x, ts.y, ts.z};
        float *const dst[4] = {out + 12 * i, out + 12 * (i + 1), out + 12 * (i + 2), out + 12 * (i + 3)};
        __m128 r[9];
        sks_quat4_scaled_rotation(r, q, ts.w);
        sks_joint_matrices4_store(dst, 4, r, t);
    }
    qts_to_matrix_scalar(out + 12 * i, x + 8 * i, n - i);
}

/* ------------------------------------------------------------------------------------------
 * AVX2 variants: eight quaternions per step (quatmath.h lane order), scalar tails.
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_AVX2 static void multiply_avx2(float *out, const float *a, size_t a_step,
                                          const float *b, size_t b_step, size_t n)
{
    size_t i = 0;
    if (n >= 8) {
        const sks_quat8 ca = sks_quat8_splat(a), cb = sks_quat8_splat(b);
        for (; i + 8 <= n; i += 8) {
            const sks_quat8 qa = a_step ? sks_quat8_load(a + 4 * i) : ca;
            const sks_quat8 qb = b_step ? sks_quat8_load(b + 4 * i) : cb;
            sks_quat8_store(out + 4 * i, sks_quat8_mul(qa, qb));
        }
    }
    multiply_scalar(out + 4 * i, a + 4 * a_step * i, a_step, b + 4 * b_step * i, b_step, n - i);
}

SKS_TARGET_AVX2 static void conjugate_avx2(float *out, const float *q, size_t n)
{
    const __m256 sign = _mm256_castsi256_ps(
        _mm256_setr_epi32(INT32_MIN, INT32_MIN, INT32_MIN, 0, INT32_MIN, INT32_MIN, INT32_MIN, 0));
    size_t i = 0;
    for (; i + 2 <= n; i += 2)
        _mm256_storeu_ps(out + 4 * i, _mm256_xor_ps(_mm256_loadu_ps(q + 4 * i), sign));
    conjugate_scalar(out + 4 * i, q + 4 * i, n - i);
}

SKS_TARGET_AVX2 static void normalize_avx2(float *out, const float *q, size_t n)
{
    const __m256 lo = _mm256_set1_ps(SKS_NORM2_MIN), hi = _mm256_set1_ps(SKS_NORM2_MAX);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        sks_quat8 v = sks_quat8_load(q + 4 * i);
        const __m256 n2 = sks_quat8_dot(v, v);
        const int ok = _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(n2, lo, _CMP_GE_OQ),
                                                        _mm256_cmp_ps(n2, hi, _CMP_LE_OQ)));
        const __m256 len = _mm256_sqrt_ps(n2);
        v.x = _mm256_div_ps(v.x, len);
        v.y = _mm256_div_ps(v.y, len);
        v.z = _mm256_div_ps(v.z, len);
        v.w = _mm256_div_ps(v.w, len);
        if (ok == 0xFF) {
            sks_quat8_store(out + 4 * i, v);
        } else {
            normalize_scalar(out + 4 * i, q + 4 * i, 8);  /* rare: the whole block in scalar */
        }
    }
    normalize_scalar(out + 4 * i, q + 4 * i, n - i);
}

SKS_TARGET_AVX2 static void qts_to_matrix_avx2(float *out, const float *x, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256 c[8], r[9], rows[12];
        float *dst[8];
        sks_quat8 q;
        int k;
        for (k = 0; k < 8; k++) c[k] = _mm256_loadu_ps(x + 8 * (i + k));
        sks_transpose8(c);
        q.x = c[0];
        q.y = c[1];
        q.z = c[2];
        q.w = c[3];
        sks_quat8_scaled_rotation(r, q, c[7]);
        for (k = 0; k < 3; k++) {
            rows[4 * k] = r[3 * k];
            rows[4 * k + 1] = r[3 * k + 1];
            rows[4 * k + 2] = r[3 * k + 2];
            rows[4 * k + 3] = c[4 + k];
        }
        for (k = 0; k < 8; k++) dst[k] = out + 12 * (i + k);
        sks_joint_matrices8_store(dst, 8, rows);
    }
    qts_to_matrix_scalar(out + 12 * i, x + 8 * i, n - i);
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_quat_kernels sks_quat_variants[SKS_ISA_COUNT] = {
    {multiply_scalar, conjugate_scalar, normalize_scalar, rotate_scalar, to_matrix_scalar,
     from_matrix_scalar, qts_to_matrix_scalar, matrix_to_qts_scalar},
    {SKS_SIMD_OR_SCALAR(multiply_sse41, multiply_scalar),
     SKS_SIMD_OR_SCALAR(conjugate_sse41, conjugate_scalar),
     SKS_SIMD_OR_SCALAR(normalize_sse41, normalize_scalar),
     SKS_SIMD_OR_SCALAR(rotate_sse41, rotate_scalar),
     SKS_SIMD_OR_SCALAR(to_matrix_sse41, to_matrix_scalar), from_matrix_scalar,
     SKS_SIMD_OR_SCALAR(qts_to_matrix_sse41, qts_to_matrix_scalar), matrix_to_qts_scalar},
    /* rotate gathers 3-vectors lane by lane and to_matrix writes 9-float matrices that do not
     * tile 256-bit stores: their SSE4.1 forms serve the AVX2 row. */
    {SKS_SIMD_OR_SCALAR(multiply_avx2, multiply_scalar),
     SKS_SIMD_OR_SCALAR(conjugate_avx2, conjugate_scalar),
     SKS_SIMD_OR_SCALAR(normalize_avx2, normalize_scalar),
     SKS_SIMD_OR_SCALAR(rotate_sse41, rotate_scalar),
     SKS_SIMD_OR_SCALAR(to_matrix_sse41, to_matrix_scalar), from_matrix_scalar,
     SKS_SIMD_OR_SCALAR(qts_to_matrix_avx2, qts_to_matrix_scalar), matrix_to_qts_scalar},
};
