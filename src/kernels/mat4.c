/*
 * mat4.c -- 4x4 matrix kernels: matmul4, mat4_local_to_global, transform_points, each as a
 * scalar, an SSE4.1 and an AVX2 variant (see mat4.h for layouts and contracts).
 *
 * The method is seed 004's ("Optimizing 4x4 matrix multiplication", ACL): row i of a @ b is
 * a[i][0] * B0 + a[i][1] * B1 + a[i][2] * B2 + a[i][3] * B3 with B0..B3 the rows of b, each
 * coefficient of a replicated across the lanes of a register. SSE4.1 replicates with a shuffle
 * of a loaded row (the seed's load + shuffle); AVX2 loads b's rows with 128-bit broadcasts
 * (vbroadcastf128, a pure load, the seed's "broadcast instead of load + shuffle"), so two rows
 * of the result come out of one 256-bit operation, and when a is the constant operand its
 * replicated coefficients are computed once and kept in registers.
 *
 * Binary-exact variants (the seed made each version bit-identical to its reference; here every
 * variant is bit-identical to the scalar one): each element is evaluated as
 *     ((a_i0 * b_0c + a_i1 * b_1c) + a_i2 * b_2c) + a_i3 * b_3c
 * with no FMA in any variant (the build uses -ffp-contract=off). With an affine b (last row
 * 0 0 0 1) the last term is the translation a_i3 for c = 3 and zero otherwise, so a chain of
 * affine 4x4 matrices rounds exactly like the joint family's 3x4 chain: the parent's
 * translation is added last (see joints.c for why that order is the more accurate one).
 *
 * Error bound (the standard one for a 4-term dot product in float32, u = 2**-24): every element
 * of matmul4 is within 4u / (1 - 4u) * sum_k |a_ik| |b_kc| of the exact product of the float32
 * inputs, as for a float32 NumPy matmul.
 */
#include "mat4.h"
#include "walk.h"

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks (the portable reference)
 * ------------------------------------------------------------------------------------------ */

/* o = a @ b. o may alias a or b. */
static inline void mat4_mul_scalar(float *o, const float *a, const float *b)
{
    float r[SKS_MAT4_FLOATS];
    int i, c;
    for (i = 0; i < 4; i++) {
        const float a0 = a[4 * i], a1 = a[4 * i + 1], a2 = a[4 * i + 2], a3 = a[4 * i + 3];
        for (c = 0; c < 4; c++) {
            r[4 * i + c] = ((a0 * b[c] + a1 * b[4 + c]) + a2 * b[8 + c]) + a3 * b[12 + c];
        }
    }
    memcpy(o, r, sizeof r);
}

/* A matrix of `rows` rows is projective when it is 4x4 and its last row is not exactly
 * (0, 0, 0, 1); 3x4 joint matrices and affine 4x4 matrices are not. */
static inline int mat4_is_projective(const float *m, size_t rows)
{
    return rows == 4 && !(m[12] == 0.0f && m[13] == 0.0f && m[14] == 0.0f && m[15] == 1.0f);
}

/* o = m applied to the point p: each coordinate ((m_i0 x + m_i1 y) + m_i2 z) + m_i3, divided by
 * w (the same expression for row 3) when m is projective. o may alias p. */
static inline void point_transform_scalar(float *o, const float *m, int projective, const float *p)
{
    const float x = p[0], y = p[1], z = p[2];
    float r[3];
    int i;
    for (i = 0; i < 3; i++) {
        r[i] = ((m[4 * i] * x + m[4 * i + 1] * y) + m[4 * i + 2] * z) + m[4 * i + 3];
    }
    if (projective) {
        const float w = ((m[12] * x + m[13] * y) + m[14] * z) + m[15];
        for (i = 0; i < 3; i++) r[i] = r[i] / w;
    }
    o[0] = r[0];
    o[1] = r[1];
    o[2] = r[2];
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants
 * ------------------------------------------------------------------------------------------ */

static void matmul4_scalar(float *out, const float *a, size_t a_step, const float *b,
                           size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_MAT4_FLOATS;
    b_step *= SKS_MAT4_FLOATS;
    for (i = 0; i < n; i++) {
        mat4_mul_scalar(out + SKS_MAT4_FLOATS * i, a + a_step * i, b + b_step * i);
    }
}

static void mat4_local_to_global_scalar(float *out, const float *local, const int32_t *parents,
                                        size_t batch, size_t joints, size_t start, size_t stop)
{
    sks_walk_scalar(out, local, parents, batch, joints, start, stop, SKS_MAT4_FLOATS,
                    mat4_mul_scalar);
}

/* ------------------------------------------------------------------------------------------
 * float64 accumulation: mat4_local_to_global(..., precision="float64")
 *
 * The float32 walk rounds every global matrix to float32 and the children build on the rounded
 * value, so the error grows with depth ((d + 1) * 2**-23 * max(1, T): 1.3e-5 on a 96-deep chain
 * with local translations in [-1, 1]). This walk keeps the global matrices in float64 scratch
 * and rounds only what it writes. All 16 elements are computed (general 4x4 matrices: the last
 * row is not assumed to be 0 0 0 1); element (i, c) of global[j] is, in float64,
 *     (p[i][0] * l[0][c] + p[i][1] * l[1][c]) + (p[i][2] * l[2][c] + p[i][3] * l[3][c])
 * with p the float64 global of the parent and l the float32 local (exact in float64); the
 * pairwise order shortens the parent -> child latency. A root's global is its local converted.
 * Error (affine data): the float64 chain is off by at most about (d + 2) * 2**-52 * max(1, T)
 * for depth d and global translations up to T, 2**29 times below a float32 ulp, so each output
 * element is its exact value rounded to float32 up to that:
 *     |out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 * max(1, T)   (tested);
 * for projective chains the second term scales with the chain of absolute values instead.
 * Parents before `start` are read from out (float32) and taken as exact. out == local is
 * allowed (each local is read before its output is written; parents come from scratch). Same
 * float64 operations in the same order in every variant, no FMA: bit-identical. NaN and
 * infinities propagate as in float64 arithmetic.
 * ------------------------------------------------------------------------------------------ */

static inline void mat4_step_f64_scalar(float *o, double *g, const double *p, const float *l)
{
    double r[SKS_MAT4_FLOATS];
    int i, c;
    if (p == NULL) {
        for (i = 0; i < SKS_MAT4_FLOATS; i++) r[i] = (double)l[i];
    } else {
        for (i = 0; i < 4; i++) {
            const double p0 = p[4 * i], p1 = p[4 * i + 1], p2 = p[4 * i + 2], p3 = p[4 * i + 3];
            for (c = 0; c < 4; c++) {
                r[4 * i + c] = (p0 * (double)l[c] + p1 * (double)l[4 + c])
                               + (p2 * (double)l[8 + c] + p3 * (double)l[12 + c]);
            }
        }
    }
    for (i = 0; i < SKS_MAT4_FLOATS; i++) {
        g[i] = r[i];
        o[i] = (float)r[i];
    }
}

static void mat4_local_to_global_f64_scalar(float *out, const float *local,
                                            const int32_t *parents, size_t batch, size_t joints,
                                            size_t start, size_t stop, double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_MAT4_FLOATS, scratch,
                       1, mat4_step_f64_scalar);
}

/* transform_points for matrices of `rows` rows (3 or 4, a constant at each call site). */
static SKS_ALWAYS_INLINE void transform_points_rows_scalar(float *out, const float *m,
                                                          size_t m_step, const float *points,
                                                          size_t p_step, size_t n, size_t rows)
{
    size_t i;
    m_step *= 4 * rows;
    p_step *= 3;
    for (i = 0; i < n; i++) {
        const float *mi = m + m_step * i;
        point_transform_scalar(out + 3 * i, mi, mat4_is_projective(mi, rows), points + p_step * i);
    }
}

static void transform_points_3x4_scalar(float *out, const float *m, size_t m_step,
                                        const float *points, size_t p_step, size_t n)
{
    transform_points_rows_scalar(out, m, m_step, points, p_step, n, 3);
}

static void transform_points_4x4_scalar(float *out, const float *m, size_t m_step,
                                        const float *points, size_t p_step, size_t n)
{
    transform_points_rows_scalar(out, m, m_step, points, p_step, n, 4);
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 building blocks. A matrix is four __m128 rows.
 * ------------------------------------------------------------------------------------------ */

typedef struct mat4_sse41 {
    __m128 r[4];
} mat4_sse41;

SKS_TARGET_SSE41 static inline mat4_sse41 mat4_load_sse41(const float *m)
{
    mat4_sse41 g;
    int i;
    for (i = 0; i < 4; i++) g.r[i] = _mm_loadu_ps(m + 4 * i);
    return g;
}

SKS_TARGET_SSE41 static inline void mat4_store_sse41(float *o, mat4_sse41 g)
{
    int i;
    for (i = 0; i < 4; i++) _mm_storeu_ps(o + 4 * i, g.r[i]);
}

/* One row of a @ b: ((a0 B0 + a1 B1) + a2 B2) + a3 B3, a's row in `ar` (replicated by shuffles). */
SKS_TARGET_SSE41 static inline __m128 mat4_row_sse41(__m128 ar, const mat4_sse41 *b)
{
    const __m128 s01 = _mm_add_ps(_mm_mul_ps(SKS_SPLAT_LANE(ar, 0), b->r[0]),
                                  _mm_mul_ps(SKS_SPLAT_LANE(ar, 1), b->r[1]));
    const __m128 s012 = _mm_add_ps(s01, _mm_mul_ps(SKS_SPLAT_LANE(ar, 2), b->r[2]));
    return _mm_add_ps(s012, _mm_mul_ps(SKS_SPLAT_LANE(ar, 3), b->r[3]));
}

SKS_TARGET_SSE41 static inline mat4_sse41 mat4_mul_sse41(mat4_sse41 a, mat4_sse41 b)
{
    mat4_sse41 r;
    int i;
    for (i = 0; i < 4; i++) r.r[i] = mat4_row_sse41(a.r[i], &b);
    return r;
}

/* The columns of m (`rows` x 4) as four vectors; lane 3 holds the last row (0 for a 3x4). */
SKS_TARGET_SSE41 static inline mat4_sse41 mat4_columns_sse41(const float *m, size_t rows)
{
    mat4_sse41 c;
    c.r[0] = _mm_loadu_ps(m);
    c.r[1] = _mm_loadu_ps(m + 4);
    c.r[2] = _mm_loadu_ps(m + 8);
    c.r[3] = rows == 4 ? _mm_loadu_ps(m + 12) : _mm_setzero_ps();
    _MM_TRANSPOSE4_PS(c.r[0], c.r[1], c.r[2], c.r[3]);
    return c;
}

/* Stores lanes 0..2 of v (exactly three floats: never touches o[3]). */
SKS_TARGET_SSE41 static inline void store3_sse41(float *o, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)o, v);
    _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
}

/* The point p by the columns c: (X, Y, Z, W) = ((x C0 + y C1) + z C2) + C3, then (X, Y, Z) / W
 * when projective -- the scalar expression, four lanes at a time. o may alias p. */
SKS_TARGET_SSE41 static inline void point_transform_sse41(float *o, const mat4_sse41 *c,
                                                          int projective, const float *p)
{
    const __m128 x = _mm_set1_ps(p[0]), y = _mm_set1_ps(p[1]), z = _mm_set1_ps(p[2]);
    const __m128 s01 = _mm_add_ps(_mm_mul_ps(c->r[0], x), _mm_mul_ps(c->r[1], y));
    __m128 r = _mm_add_ps(_mm_add_ps(s01, _mm_mul_ps(c->r[2], z)), c->r[3]);
    if (projective) r = _mm_div_ps(r, SKS_SPLAT_LANE(r, 3));
    store3_sse41(o, r);
}

/* transform_points for SSE4.1 and AVX2 alike: one point per iteration in 128-bit lanes (under
 * the AVX2 target the same code is VEX-encoded and the coordinates become broadcast loads). */
SKS_TARGET_SSE41 static SKS_ALWAYS_INLINE void transform_points_lanes(float *out, const float *m,
                                                                     size_t m_step,
                                                                     const float *points,
                                                                     size_t p_step, size_t n,
                                                                     size_t rows)
{
    size_t i;
    p_step *= 3;
    if (m_step == 0) {
        const mat4_sse41 c = mat4_columns_sse41(m, rows);
        const int projective = mat4_is_projective(m, rows);
        for (i = 0; i < n; i++) {
            point_transform_sse41(out + 3 * i, &c, projective, points + p_step * i);
        }
    } else {
        const size_t mf = 4 * rows;
        for (i = 0; i < n; i++) {
            const float *mi = m + mf * i;
            const mat4_sse41 c = mat4_columns_sse41(mi, rows);
            point_transform_sse41(out + 3 * i, &c, mat4_is_projective(mi, rows),
                                  points + p_step * i);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_SSE41 static void matmul4_sse41(float *out, const float *a, size_t a_step,
                                           const float *b, size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_MAT4_FLOATS;
    b_step *= SKS_MAT4_FLOATS;
    if (b_step == 0) {   /* array x constant: b's rows stay in registers */
        const mat4_sse41 bm = mat4_load_sse41(b);
        for (i = 0; i < n; i++) {
            const mat4_sse41 am = mat4_load_sse41(a + a_step * i);
            mat4_store_sse41(out + SKS_MAT4_FLOATS * i, mat4_mul_sse41(am, bm));
        }
        return;
    }
    for (i = 0; i < n; i++) {
        const mat4_sse41 am = mat4_load_sse41(a + a_step * i), bm = mat4_load_sse41(b + b_step * i);
        mat4_store_sse41(out + SKS_MAT4_FLOATS * i, mat4_mul_sse41(am, bm));
    }
}

/* One skeleton at a time, with the parent forwarded in registers when parents[j] == j - 1. */
SKS_TARGET_SSE41 static void mat4_local_to_global_sse41(float *out, const float *local,
                                                        const int32_t *parents, size_t batch,
                                                        size_t joints, size_t start, size_t stop)
{
    const size_t stride = joints * SKS_MAT4_FLOATS;
    size_t b, j;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *l = local + b * stride;
        mat4_sse41 g = {{_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()}};
        for (j = start; j < stop; j++) {
            const int32_t p = parents[j];
            const size_t oj = SKS_MAT4_FLOATS * j;
            if (p < 0) {
                g = mat4_load_sse41(l + oj);
            } else if ((size_t)p + 1 == j && j > start) {
                g = mat4_mul_sse41(g, mat4_load_sse41(l + oj));
            } else {
                g = mat4_mul_sse41(mat4_load_sse41(o + SKS_MAT4_FLOATS * (size_t)p),
                                   mat4_load_sse41(l + oj));
            }
            mat4_store_sse41(o + oj, g);
        }
    }
}

SKS_TARGET_SSE41 static void transform_points_3x4_sse41(float *out, const float *m, size_t m_step,
                                                        const float *points, size_t p_step,
                                                        size_t n)
{
    transform_points_lanes(out, m, m_step, points, p_step, n, 3);
}

SKS_TARGET_SSE41 static void transform_points_4x4_sse41(float *out, const float *m, size_t m_step,
                                                        const float *points, size_t p_step,
                                                        size_t n)
{
    transform_points_lanes(out, m, m_step, points, p_step, n, 4);
}

/* The float64 walk (see mat4_local_to_global_f64_scalar): a float64 row as two __m128d halves,
 * (p0 L0 + p1 L1) + (p2 L2 + p3 L3) with L the local's rows in float64. */
SKS_TARGET_SSE41 static inline void mat4_row_f64_sse41(double *g, float *o, const double *prow,
                                                       const __m128d l[4][2])
{
    const __m128d p0 = _mm_loaddup_pd(prow), p1 = _mm_loaddup_pd(prow + 1);
    const __m128d p2 = _mm_loaddup_pd(prow + 2), p3 = _mm_loaddup_pd(prow + 3);
    const __m128d lo = _mm_add_pd(_mm_add_pd(_mm_mul_pd(p0, l[0][0]), _mm_mul_pd(p1, l[1][0])),
                                  _mm_add_pd(_mm_mul_pd(p2, l[2][0]), _mm_mul_pd(p3, l[3][0])));
    const __m128d hi = _mm_add_pd(_mm_add_pd(_mm_mul_pd(p0, l[0][1]), _mm_mul_pd(p1, l[1][1])),
                                  _mm_add_pd(_mm_mul_pd(p2, l[2][1]), _mm_mul_pd(p3, l[3][1])));
    _mm_storeu_pd(g, lo);
    _mm_storeu_pd(g + 2, hi);
    _mm_storeu_ps(o, _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)));
}

SKS_TARGET_SSE41 static inline void mat4_step_f64_sse41(float *o, double *g, const double *p,
                                                        const float *l)
{
    __m128d lr[4][2];
    int i;
    for (i = 0; i < 4; i++) {
        const __m128 x = _mm_loadu_ps(l + 4 * i);
        lr[i][0] = _mm_cvtps_pd(x);
        lr[i][1] = _mm_cvtps_pd(_mm_movehl_ps(x, x));
    }
    for (i = 0; i < 4; i++) {
        if (p == NULL) {
            _mm_storeu_pd(g + 4 * i, lr[i][0]);
            _mm_storeu_pd(g + 4 * i + 2, lr[i][1]);
            _mm_storeu_ps(o + 4 * i, _mm_loadu_ps(l + 4 * i));   /* exact: l is float32 */
        } else {
            mat4_row_f64_sse41(g + 4 * i, o + 4 * i, p + 4 * i, (const __m128d(*)[2])lr);
        }
    }
}

SKS_TARGET_SSE41 static void mat4_local_to_global_f64_sse41(float *out, const float *local,
                                                            const int32_t *parents, size_t batch,
                                                            size_t joints, size_t start,
                                                            size_t stop, double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_MAT4_FLOATS, scratch,
                       2, mat4_step_f64_sse41);
}

/* ------------------------------------------------------------------------------------------
 * AVX2 building blocks. A matrix is two __m256: rows 0-1 and rows 2-3 (8 contiguous floats
 * each). The right operand's rows are broadcast to both 128-bit halves, so one 256-bit
 * operation computes two rows of the result.
 * ------------------------------------------------------------------------------------------ */

typedef struct mat4_avx2 {
    __m256 r01, r23;
} mat4_avx2;

/* The four rows of a right operand, each broadcast to both halves: b[k] = [row k | row k]. */
typedef struct mat4_rows_avx2 {
    __m256 b[4];
} mat4_rows_avx2;

/* A constant left operand's coefficients, replicated once: s01[k] = [a_0k x 4 | a_1k x 4],
 * s23[k] = [a_2k x 4 | a_3k x 4]. */
typedef struct mat4_coefs_avx2 {
    __m256 s01[4], s23[4];
} mat4_coefs_avx2;

SKS_TARGET_AVX2 static inline mat4_avx2 mat4_load_avx2(const float *m)
{
    mat4_avx2 g;
    g.r01 = _mm256_loadu_ps(m);
    g.r23 = _mm256_loadu_ps(m + 8);
    return g;
}

SKS_TARGET_AVX2 static inline void mat4_store_avx2(float *o, mat4_avx2 g)
{
    _mm256_storeu_ps(o, g.r01);
    _mm256_storeu_ps(o + 8, g.r23);
}

SKS_TARGET_AVX2 static inline mat4_rows_avx2 mat4_broadcast_rows_avx2(const float *b)
{
    mat4_rows_avx2 r;
    int k;
    for (k = 0; k < 4; k++) r.b[k] = _mm256_broadcast_ps((const __m128 *)(const void *)(b + 4 * k));
    return r;
}

/* ((s0 B0 + s1 B1) + s2 B2) + s3 B3: two rows of a product from replicated coefficients. */
SKS_TARGET_AVX2 static inline __m256 mat4_combine_avx2(__m256 s0, __m256 s1, __m256 s2, __m256 s3,
                                                      const mat4_rows_avx2 *b)
{
    const __m256 s01 = _mm256_add_ps(_mm256_mul_ps(s0, b->b[0]), _mm256_mul_ps(s1, b->b[1]));
    const __m256 s012 = _mm256_add_ps(s01, _mm256_mul_ps(s2, b->b[2]));
    return _mm256_add_ps(s012, _mm256_mul_ps(s3, b->b[3]));
}

/* Two rows of a @ b from the same two rows of a (coefficients replicated within each half). */
SKS_TARGET_AVX2 static inline __m256 mat4_two_rows_avx2(__m256 ar, const mat4_rows_avx2 *b)
{
    return mat4_combine_avx2(_mm256_permute_ps(ar, 0x00), _mm256_permute_ps(ar, 0x55),
                             _mm256_permute_ps(ar, 0xAA), _mm256_permute_ps(ar, 0xFF), b);
}

SKS_TARGET_AVX2 static inline mat4_avx2 mat4_mul_rows_avx2(mat4_avx2 a, const mat4_rows_avx2 *b)
{
    mat4_avx2 r;
    r.r01 = mat4_two_rows_avx2(a.r01, b);
    r.r23 = mat4_two_rows_avx2(a.r23, b);
    return r;
}

SKS_TARGET_AVX2 static inline mat4_coefs_avx2 mat4_coefs_avx2_of(const float *a)
{
    const mat4_avx2 m = mat4_load_avx2(a);
    mat4_coefs_avx2 c;
    c.s01[0] = _mm256_permute_ps(m.r01, 0x00);
    c.s01[1] = _mm256_permute_ps(m.r01, 0x55);
    c.s01[2] = _mm256_permute_ps(m.r01, 0xAA);
    c.s01[3] = _mm256_permute_ps(m.r01, 0xFF);
    c.s23[0] = _mm256_permute_ps(m.r23, 0x00);
    c.s23[1] = _mm256_permute_ps(m.r23, 0x55);
    c.s23[2] = _mm256_permute_ps(m.r23, 0xAA);
    c.s23[3] = _mm256_permute_ps(m.r23, 0xFF);
    return c;
}

/* Up to this many skeletons are walked side by side: independent chains overlap their latency
 * (a 4x4 product is ~13 cycles deep, ~6 cycles of throughput). Measured at 1000 x 96 (humanoid):
 * 2.6 ns per joint with three, 2.7 with two or four (four spill registers), 3.1 with one. */
#define SKS_MAT4_WALK_MAX 3

/* The hierarchy walk of `count` skeletons, `stride` floats apart, side by side (count is a
 * constant at every call site, so the loops over s unroll). When parents[j] == j - 1 the
 * parent's global matrix is still in registers and is not reloaded. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void mat4_walk_avx2(float *out, const float *local,
                                                            const int32_t *parents, size_t stride,
                                                            size_t count, size_t start, size_t stop)
{
    mat4_avx2 g[SKS_MAT4_WALK_MAX];
    size_t j, s;
    for (s = 0; s < count; s++) g[s].r01 = g[s].r23 = _mm256_setzero_ps();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_MAT4_FLOATS * j;
        if (p < 0) {
            for (s = 0; s < count; s++) g[s] = mat4_load_avx2(local + s * stride + oj);
        } else if ((size_t)p + 1 == j && j > start) {
            for (s = 0; s < count; s++) {
                const mat4_rows_avx2 l = mat4_broadcast_rows_avx2(local + s * stride + oj);
                g[s] = mat4_mul_rows_avx2(g[s], &l);
            }
        } else {
            const size_t op = SKS_MAT4_FLOATS * (size_t)p;
            for (s = 0; s < count; s++) {
                const mat4_rows_avx2 l = mat4_broadcast_rows_avx2(local + s * stride + oj);
                g[s] = mat4_mul_rows_avx2(mat4_load_avx2(out + s * stride + op), &l);
            }
        }
        for (s = 0; s < count; s++) mat4_store_avx2(out + s * stride + oj, g[s]);
    }
}

/* Batches whose input and output exceed this many bytes stream from DRAM, where one skeleton at
 * a time was faster than several side by side (the same threshold as the joint family's). */
#define SKS_MAT4_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)

/* ------------------------------------------------------------------------------------------
 * AVX2 variants
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_AVX2 static void matmul4_avx2(float *out, const float *a, size_t a_step,
                                         const float *b, size_t b_step, size_t n)
{
    size_t i;
    if (b_step == 0) {   /* array x constant (and one-off products) */
        const mat4_rows_avx2 bm = mat4_broadcast_rows_avx2(b);
        for (i = 0; i < n; i++) {
            const mat4_avx2 am = mat4_load_avx2(a + SKS_MAT4_FLOATS * a_step * i);
            mat4_store_avx2(out + SKS_MAT4_FLOATS * i, mat4_mul_rows_avx2(am, &bm));
        }
    } else if (a_step == 0) {   /* constant x array: a's coefficients replicated once */
        const mat4_coefs_avx2 c = mat4_coefs_avx2_of(a);
        for (i = 0; i < n; i++) {
            const mat4_rows_avx2 bm = mat4_broadcast_rows_avx2(b + SKS_MAT4_FLOATS * i);
            mat4_avx2 r;
            r.r01 = mat4_combine_avx2(c.s01[0], c.s01[1], c.s01[2], c.s01[3], &bm);
            r.r23 = mat4_combine_avx2(c.s23[0], c.s23[1], c.s23[2], c.s23[3], &bm);
            mat4_store_avx2(out + SKS_MAT4_FLOATS * i, r);
        }
    } else {
        for (i = 0; i < n; i++) {
            const mat4_rows_avx2 bm = mat4_broadcast_rows_avx2(b + SKS_MAT4_FLOATS * i);
            mat4_store_avx2(out + SKS_MAT4_FLOATS * i,
                            mat4_mul_rows_avx2(mat4_load_avx2(a + SKS_MAT4_FLOATS * i), &bm));
        }
    }
}

SKS_TARGET_AVX2 static void mat4_local_to_global_avx2(float *out, const float *local,
                                                      const int32_t *parents, size_t batch,
                                                      size_t joints, size_t start, size_t stop)
{
    const size_t stride = joints * SKS_MAT4_FLOATS;
    const int side_by_side = 2 * batch * stride * sizeof(float) <= SKS_MAT4_SIDE_BY_SIDE_MAX_BYTES;
    size_t b = 0;
    if (side_by_side) {
        for (; b + SKS_MAT4_WALK_MAX <= batch; b += SKS_MAT4_WALK_MAX) {
            mat4_walk_avx2(out + b * stride, local + b * stride, parents, stride, SKS_MAT4_WALK_MAX,
                           start, stop);
        }
    }
    for (; b < batch; b++) {
        mat4_walk_avx2(out + b * stride, local + b * stride, parents, stride, 1, start, stop);
    }
}

/* The float64 walk (see mat4_local_to_global_f64_scalar): a float64 row in one __m256d. */
SKS_TARGET_AVX2 static inline __m256d mat4_row_f64_avx2(const double *prow, const __m256d l[4])
{
    const __m256d s01 = _mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(prow), l[0]),
                                      _mm256_mul_pd(_mm256_broadcast_sd(prow + 1), l[1]));
    const __m256d s23 = _mm256_add_pd(_mm256_mul_pd(_mm256_broadcast_sd(prow + 2), l[2]),
                                      _mm256_mul_pd(_mm256_broadcast_sd(prow + 3), l[3]));
    return _mm256_add_pd(s01, s23);
}

SKS_TARGET_AVX2 static inline void mat4_step_f64_avx2(float *o, double *g, const double *p,
                                                      const float *l)
{
    __m256d lr[4], r[4];
    int i;
    for (i = 0; i < 4; i++) lr[i] = _mm256_cvtps_pd(_mm_loadu_ps(l + 4 * i));
    for (i = 0; i < 4; i++) r[i] = p == NULL ? lr[i] : mat4_row_f64_avx2(p + 4 * i, lr);
    for (i = 0; i < 4; i++) {
        _mm256_storeu_pd(g + 4 * i, r[i]);
        _mm_storeu_ps(o + 4 * i, _mm256_cvtpd_ps(r[i]));
    }
}

SKS_TARGET_AVX2 static void mat4_local_to_global_f64_avx2(float *out, const float *local,
                                                          const int32_t *parents, size_t batch,
                                                          size_t joints, size_t start,
                                                          size_t stop, double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_MAT4_FLOATS, scratch,
                       SKS_MAT4_F64_SIDE_BY_SIDE, mat4_step_f64_avx2);
}

SKS_TARGET_AVX2 static void transform_points_3x4_avx2(float *out, const float *m, size_t m_step,
                                                      const float *points, size_t p_step, size_t n)
{
    transform_points_lanes(out, m, m_step, points, p_step, n, 3);
}

SKS_TARGET_AVX2 static void transform_points_4x4_avx2(float *out, const float *m, size_t m_step,
                                                      const float *points, size_t p_step, size_t n)
{
    transform_points_lanes(out, m, m_step, points, p_step, n, 4);
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_mat4_kernels sks_mat4_variants[SKS_ISA_COUNT] = {
    {matmul4_scalar, mat4_local_to_global_scalar, mat4_local_to_global_f64_scalar,
     transform_points_3x4_scalar, transform_points_4x4_scalar},
    {SKS_SIMD_OR_SCALAR(matmul4_sse41, matmul4_scalar),
     SKS_SIMD_OR_SCALAR(mat4_local_to_global_sse41, mat4_local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(mat4_local_to_global_f64_sse41, mat4_local_to_global_f64_scalar),
     SKS_SIMD_OR_SCALAR(transform_points_3x4_sse41, transform_points_3x4_scalar),
     SKS_SIMD_OR_SCALAR(transform_points_4x4_sse41, transform_points_4x4_scalar)},
    {SKS_SIMD_OR_SCALAR(matmul4_avx2, matmul4_scalar),
     SKS_SIMD_OR_SCALAR(mat4_local_to_global_avx2, mat4_local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(mat4_local_to_global_f64_avx2, mat4_local_to_global_f64_scalar),
     SKS_SIMD_OR_SCALAR(transform_points_3x4_avx2, transform_points_3x4_scalar),
     SKS_SIMD_OR_SCALAR(transform_points_4x4_avx2, transform_points_4x4_scalar)},
};
