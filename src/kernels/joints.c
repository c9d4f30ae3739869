/*
 * joints.c -- joint-matrix kernels: local_to_global, global_to_local, multiply_joints,
 * invert_joints, each as a scalar, an SSE4.1 and an AVX2 variant (see joints.h for layouts).
 *
 * Bit-identical variants: every kernel evaluates each output element with the same operations
 * in the same order in every variant (no FMA; the build uses -ffp-contract=off). For the
 * product of two joints, element (i, c) of a @ b is
 *     ((a[i][0] * b[0][c] + a[i][1] * b[1][c]) + a[i][2] * b[2][c]) + tau
 * with tau = a[i][3] for the translation column c = 3 and tau = +0.0 otherwise. Adding the
 * parent's translation last, once, keeps the large global translations out of the other
 * roundings: measured on 2000 random 96-joint trees of depth 16, max error 1.74e-6 against
 * 2.26e-6 for (a0 b0 + a1 b1) + (a2 b2 + tau) and 2.97e-6 for an FMA chain; a correctly rounded
 * float32 sum gives 1.35e-6. The product's building blocks (every variant) live in joint_ops.h,
 * shared with the skinning family so that its palette is bit-identical to multiply_joints.
 */
#include "joints.h"
#include "joint_ops.h"
#include "walk.h"

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks (the portable reference; also the tail of the SIMD loops)
 * ------------------------------------------------------------------------------------------ */

/* The columns of inverse(R) for the rotation part R of joint p (rows p0, p1, p2):
 * general: col_k = (p_{k+1} x p_{k+2}) * (1 / det R), det R = p0 . (p1 x p2);
 * rigid:   col_k = p_k (the transpose). cols[k][i] = inverse(R)[i][k]. */
static inline void joint_inverse_columns_scalar(float cols[3][3], const float *p, int rigid)
{
    int k, i;
    if (rigid) {
        for (k = 0; k < 3; k++)
            for (i = 0; i < 3; i++) cols[k][i] = p[4 * k + i];
        return;
    }
    for (k = 0; k < 3; k++) {
        const float *u = p + 4 * ((k + 1) % 3), *v = p + 4 * ((k + 2) % 3);
        cols[k][0] = u[1] * v[2] - u[2] * v[1];
        cols[k][1] = u[2] * v[0] - u[0] * v[2];
        cols[k][2] = u[0] * v[1] - u[1] * v[0];
    }
    {
        const float det = (p[0] * cols[0][0] + p[1] * cols[0][1]) + p[2] * cols[0][2];
        const float inv_det = 1.0f / det;
        for (k = 0; k < 3; k++)
            for (i = 0; i < 3; i++) cols[k][i] = cols[k][i] * inv_det;
    }
}

/* o = inverse(p) @ g, computed as inverse(R_p) @ (g - [0 | t_p]) (translation first, as the
 * seed's UntransformJoint does). o may alias g. */
static inline void joint_untransform_scalar(float *o, const float *p, const float *g, int rigid)
{
    float cols[3][3], d[SKS_JOINT_FLOATS];
    int i, c;
    joint_inverse_columns_scalar(cols, p, rigid);
    memcpy(d, g, sizeof d);
    d[3] = g[3] - p[3];
    d[7] = g[7] - p[7];
    d[11] = g[11] - p[11];
    for (i = 0; i < 3; i++)
        for (c = 0; c < 4; c++)
            o[4 * i + c] = (cols[0][i] * d[c] + cols[1][i] * d[4 + c]) + cols[2][i] * d[8 + c];
}

/* o = inverse(m) = [R^-1 | -(R^-1 t)]. o may alias m. */
static inline void joint_invert_scalar(float *o, const float *m, int rigid)
{
    float cols[3][3], r[SKS_JOINT_FLOATS];
    const float t0 = m[3], t1 = m[7], t2 = m[11];
    int i;
    joint_inverse_columns_scalar(cols, m, rigid);
    for (i = 0; i < 3; i++) {
        r[4 * i + 0] = cols[0][i];
        r[4 * i + 1] = cols[1][i];
        r[4 * i + 2] = cols[2][i];
        r[4 * i + 3] = -((cols[0][i] * t0 + cols[1][i] * t1) + cols[2][i] * t2);
    }
    memcpy(o, r, sizeof r);
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants
 * ------------------------------------------------------------------------------------------ */

static void local_to_global_scalar(float *out, const float *local, const int32_t *parents,
                                   size_t batch, size_t joints, size_t start, size_t stop)
{
    sks_walk_scalar(out, local, parents, batch, joints, start, stop, SKS_JOINT_FLOATS,
                    joint_mul_scalar);
}

static void global_to_local_scalar(float *out, const float *global, const int32_t *parents,
                                   size_t batch, size_t joints, size_t start, size_t stop,
                                   int rigid)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t b, j;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *g = global + b * stride;
        for (j = stop; j-- > start;) {
            const int32_t p = parents[j];
            if (p < 0) {
                memmove(o + SKS_JOINT_FLOATS * j, g + SKS_JOINT_FLOATS * j,
                        SKS_JOINT_FLOATS * sizeof(float));
            } else {
                joint_untransform_scalar(o + SKS_JOINT_FLOATS * j,
                                         g + SKS_JOINT_FLOATS * (size_t)p,
                                         g + SKS_JOINT_FLOATS * j, rigid);
            }
        }
    }
}

static void multiply_joints_scalar(float *out, const float *a, size_t a_step, const float *b,
                                   size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_JOINT_FLOATS;
    b_step *= SKS_JOINT_FLOATS;
    for (i = 0; i < n; i++) {
        joint_mul_scalar(out + SKS_JOINT_FLOATS * i, a + a_step * i, b + b_step * i);
    }
}

static void invert_joints_scalar(float *out, const float *m, size_t n, int rigid)
{
    size_t i;
    for (i = 0; i < n; i++) {
        joint_invert_scalar(out + SKS_JOINT_FLOATS * i, m + SKS_JOINT_FLOATS * i, rigid);
    }
}

/* ------------------------------------------------------------------------------------------
 * float64 accumulation: local_to_global(..., precision="float64")
 *
 * The float32 walk rounds every global pose to float32 and the children build on the rounded
 * value, so the error grows with depth ((d + 1) * 2**-23 * max(1, T); 1e-5 on a 96-deep chain
 * with translations in [-1, 1]). This walk keeps the global poses in float64 scratch and rounds
 * only what it writes: element (i, c) of global[j] is, in float64,
 *     (p[i][0] * l[0][c] + p[i][1] * l[1][c]) + (p[i][2] * l[2][c] + tau)
 * with p the float64 global of the parent, l the float32 local (exact in float64) and tau as
 * above (p[i][3] for c = 3, else +0.0); the pairwise order shortens the parent -> child latency.
 * Error: the float64 chain is off by at most about (d + 2) * 2**-52 * max(1, T), 2**29 times
 * below a float32 ulp, so each output element is its exact value rounded to float32 up to that:
 * |out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 * max(1, T) (tested). Parents before
 * `start` are read from out (float32) and taken as exact. Same operations in every variant:
 * bit-identical.
 * ------------------------------------------------------------------------------------------ */

/* One joint of the float64 walk (an sks_step_f64, walk.h): g = p @ l (p NULL: a root, g = l)
 * and o = float32(g). o may alias l (l is read first); g and p are distinct scratch matrices. */
static inline void joint_step_f64_scalar(float *o, double *g, const double *p, const float *l)
{
    double r[SKS_JOINT_FLOATS];
    int i;
    if (p == NULL) {
        for (i = 0; i < SKS_JOINT_FLOATS; i++) r[i] = (double)l[i];
    } else {
        joint_mul_f64_scalar(r, p, l);
    }
    for (i = 0; i < SKS_JOINT_FLOATS; i++) {
        g[i] = r[i];
        o[i] = (float)r[i];
    }
}

static void local_to_global_f64_scalar(float *out, const float *local, const int32_t *parents,
                                       size_t batch, size_t joints, size_t start, size_t stop,
                                       double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_JOINT_FLOATS, scratch,
                       1, joint_step_f64_scalar);
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 building blocks. A joint is three __m128 rows (r, r, r, t).
 * ------------------------------------------------------------------------------------------ */

/* o = a @ b; every input is loaded before the first store, so o may alias a or b. */
SKS_TARGET_SSE41 static inline void joint_mul_sse41(float *o, const float *a, const float *b)
{
    const __m128 b0 = _mm_loadu_ps(b), b1 = _mm_loadu_ps(b + 4), b2 = _mm_loadu_ps(b + 8);
    const __m128 a0 = _mm_loadu_ps(a), a1 = _mm_loadu_ps(a + 4), a2 = _mm_loadu_ps(a + 8);
    const __m128 r0 = joint_row_sse41(a0, b0, b1, b2);
    const __m128 r1 = joint_row_sse41(a1, b0, b1, b2);
    const __m128 r2 = joint_row_sse41(a2, b0, b1, b2);
    _mm_storeu_ps(o, r0);
    _mm_storeu_ps(o + 4, r1);
    _mm_storeu_ps(o + 8, r2);
}

/* u x v in lanes 0..2 (lane 3 = 0): lane x = u.y*v.z - u.z*v.y, as in the scalar code. */
SKS_TARGET_SSE41 static inline __m128 cross_sse41(__m128 u, __m128 v)
{
    const __m128 u_yzx = _mm_shuffle_ps(u, u, _MM_SHUFFLE(3, 0, 2, 1));
    const __m128 u_zxy = _mm_shuffle_ps(u, u, _MM_SHUFFLE(3, 1, 0, 2));
    const __m128 v_yzx = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 0, 2, 1));
    const __m128 v_zxy = _mm_shuffle_ps(v, v, _MM_SHUFFLE(3, 1, 0, 2));
    const __m128 c = _mm_sub_ps(_mm_mul_ps(u_yzx, v_zxy), _mm_mul_ps(u_zxy, v_yzx));
    return _mm_blend_ps(c, _mm_setzero_ps(), 0x8);
}

/* Columns of inverse(R) for rows p0, p1, p2 (see joint_inverse_columns_scalar). */
SKS_TARGET_SSE41 static inline void inverse_columns_sse41(__m128 cols[3], __m128 p0, __m128 p1,
                                                          __m128 p2, int rigid)
{
    if (rigid) {
        const __m128 zero = _mm_setzero_ps();
        cols[0] = _mm_blend_ps(p0, zero, 0x8);
        cols[1] = _mm_blend_ps(p1, zero, 0x8);
        cols[2] = _mm_blend_ps(p2, zero, 0x8);
        return;
    }
    {
        const __m128 c0 = cross_sse41(p1, p2), c1 = cross_sse41(p2, p0), c2 = cross_sse41(p0, p1);
        const __m128 m = _mm_mul_ps(p0, c0);
        const __m128 m1 = _mm_shuffle_ps(m, m, _MM_SHUFFLE(1, 1, 1, 1));
        const __m128 m2 = _mm_shuffle_ps(m, m, _MM_SHUFFLE(2, 2, 2, 2));
        const __m128 det = _mm_add_ss(_mm_add_ss(m, m1), m2);
        const __m128 inv_det = _mm_div_ss(_mm_set_ss(1.0f), det);
        const __m128 s = SKS_SPLAT_LANE(inv_det, 0);
        cols[0] = _mm_mul_ps(c0, s);
        cols[1] = _mm_mul_ps(c1, s);
        cols[2] = _mm_mul_ps(c2, s);
    }
}

/* o = inverse(p) @ g (see joint_untransform_scalar). o may alias g. */
SKS_TARGET_SSE41 static inline void joint_untransform_sse41(float *o, const float *p,
                                                            const float *g, int rigid)
{
    const __m128 p0 = _mm_loadu_ps(p), p1 = _mm_loadu_ps(p + 4), p2 = _mm_loadu_ps(p + 8);
    const __m128 d0 = _mm_sub_ps(_mm_loadu_ps(g), sks_keep_lane3(p0));
    const __m128 d1 = _mm_sub_ps(_mm_loadu_ps(g + 4), sks_keep_lane3(p1));
    const __m128 d2 = _mm_sub_ps(_mm_loadu_ps(g + 8), sks_keep_lane3(p2));
    __m128 cols[3], r[3];
    int i;
    inverse_columns_sse41(cols, p0, p1, p2, rigid);
    for (i = 0; i < 3; i++) {
        __m128 c0, c1, c2;
        switch (i) {
        case 0:
            c0 = SKS_SPLAT_LANE(cols[0], 0); c1 = SKS_SPLAT_LANE(cols[1], 0);
            c2 = SKS_SPLAT_LANE(cols[2], 0);
            break;
        case 1:
            c0 = SKS_SPLAT_LANE(cols[0], 1); c1 = SKS_SPLAT_LANE(cols[1], 1);
            c2 = SKS_SPLAT_LANE(cols[2], 1);
            break;
        default:
            c0 = SKS_SPLAT_LANE(cols[0], 2); c1 = SKS_SPLAT_LANE(cols[1], 2);
            c2 = SKS_SPLAT_LANE(cols[2], 2);
            break;
        }
        r[i] = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, d0), _mm_mul_ps(c1, d1)), _mm_mul_ps(c2, d2));
    }
    _mm_storeu_ps(o, r[0]);
    _mm_storeu_ps(o + 4, r[1]);
    _mm_storeu_ps(o + 8, r[2]);
}

/* o = inverse(m) = [R^-1 | -(R^-1 t)]: the columns of R^-1 and -(R^-1 t) transposed into rows. */
SKS_TARGET_SSE41 static inline void joint_invert_sse41(float *o, const float *m, int rigid)
{
    const __m128 p0 = _mm_loadu_ps(m), p1 = _mm_loadu_ps(m + 4), p2 = _mm_loadu_ps(m + 8);
    __m128 cols[3];
    __m128 t;
    inverse_columns_sse41(cols, p0, p1, p2, rigid);
    t = _mm_add_ps(_mm_add_ps(_mm_mul_ps(cols[0], SKS_SPLAT_LANE(p0, 3)),
                              _mm_mul_ps(cols[1], SKS_SPLAT_LANE(p1, 3))),
                   _mm_mul_ps(cols[2], SKS_SPLAT_LANE(p2, 3)));
    t = _mm_sub_ps(_mm_setzero_ps(), t);
    _MM_TRANSPOSE4_PS(cols[0], cols[1], cols[2], t);
    _mm_storeu_ps(o, cols[0]);
    _mm_storeu_ps(o + 4, cols[1]);
    _mm_storeu_ps(o + 8, cols[2]);
}

/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants
 * ------------------------------------------------------------------------------------------ */

/* The hierarchy walk of one skeleton (see local_to_global_avx2 for the register forwarding:
 * when parents[j] == j - 1 the parent's global matrix is still in registers). */
SKS_TARGET_SSE41 static void local_to_global_sse41(float *out, const float *local,
                                                   const int32_t *parents, size_t batch,
                                                   size_t joints, size_t start, size_t stop)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t b, j;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *l = local + b * stride;
        joint_sse41 g = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
        for (j = start; j < stop; j++) {
            const int32_t p = parents[j];
            const size_t oj = SKS_JOINT_FLOATS * j;
            if (p < 0) {
                g = joint_load_sse41(l + oj);
            } else if ((size_t)p + 1 == j && j > start) {
                g = joint_mul_regs_sse41(g, l + oj);
            } else {
                g = joint_mul_regs_sse41(joint_load_sse41(o + SKS_JOINT_FLOATS * (size_t)p), l + oj);
            }
            joint_store_sse41(o + oj, g);
        }
    }
}

SKS_TARGET_SSE41 static void global_to_local_sse41(float *out, const float *global,
                                                   const int32_t *parents, size_t batch,
                                                   size_t joints, size_t start, size_t stop,
                                                   int rigid)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t b, j;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *g = global + b * stride;
        for (j = stop; j-- > start;) {
            const int32_t p = parents[j];
            if (p < 0) {
                memmove(o + SKS_JOINT_FLOATS * j, g + SKS_JOINT_FLOATS * j,
                        SKS_JOINT_FLOATS * sizeof(float));
            } else {
                joint_untransform_sse41(o + SKS_JOINT_FLOATS * j,
                                        g + SKS_JOINT_FLOATS * (size_t)p,
                                        g + SKS_JOINT_FLOATS * j, rigid);
            }
        }
    }
}

SKS_TARGET_SSE41 static void multiply_joints_sse41(float *out, const float *a, size_t a_step,
                                                   const float *b, size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_JOINT_FLOATS;
    b_step *= SKS_JOINT_FLOATS;
    for (i = 0; i < n; i++) {
        joint_mul_sse41(out + SKS_JOINT_FLOATS * i, a + a_step * i, b + b_step * i);
    }
}

SKS_TARGET_SSE41 static void invert_joints_sse41(float *out, const float *m, size_t n, int rigid)
{
    size_t i;
    for (i = 0; i < n; i++) {
        joint_invert_sse41(out + SKS_JOINT_FLOATS * i, m + SKS_JOINT_FLOATS * i, rigid);
    }
}

/* One joint of the float64 walk (see local_to_global_f64_scalar), on joint_ops.h's float64
 * product shared with skinning_palette. */
SKS_TARGET_SSE41 static inline void joint_step_f64_sse41(float *o, double *g, const double *p,
                                                         const float *l)
{
    const joint_f64_sse41 r = p == NULL ? joint_f64_convert_sse41(l) : joint_mul_f64_sse41(p, l);
    int i;
    for (i = 0; i < 3; i++) {
        _mm_storeu_pd(g + 4 * i, r.lo[i]);
        _mm_storeu_pd(g + 4 * i + 2, r.hi[i]);
        _mm_storeu_ps(o + 4 * i, _mm_movelh_ps(_mm_cvtpd_ps(r.lo[i]), _mm_cvtpd_ps(r.hi[i])));
    }
}

SKS_TARGET_SSE41 static void local_to_global_f64_sse41(float *out, const float *local,
                                                       const int32_t *parents, size_t batch,
                                                       size_t joints, size_t start, size_t stop,
                                                       double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_JOINT_FLOATS, scratch,
                       2, joint_step_f64_sse41);
}

/* ------------------------------------------------------------------------------------------
 * AVX2 building blocks (the joint and pair types are in joint_ops.h)
 * ------------------------------------------------------------------------------------------ */

/* o = a @ b in memory; all loads precede the stores, so o may alias a or b. */
SKS_TARGET_AVX2 static inline void joint_mul_avx2(float *o, const float *a, const float *b)
{
    joint_store_avx2(o, joint_mul_regs_avx2(joint_load_avx2(a), b));
}

/* Walk one skeleton with register forwarding: when parents[j] == j - 1 (chains: spine, limbs,
 * fingers) the parent's global matrix is still in registers and is not reloaded through memory
 * (store forwarding would add its latency to the parent -> child chain). */
SKS_TARGET_AVX2 static void walk_one_avx2(float *out, const float *local, const int32_t *parents,
                                          size_t start, size_t stop)
{
    joint_avx2 g;
    size_t j;
    g.r01 = _mm256_setzero_ps();
    g.r2 = _mm_setzero_ps();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g = joint_load_avx2(local + oj);
        } else if ((size_t)p + 1 == j && j > start) {
            g = joint_mul_regs_avx2(g, local + oj);
        } else {
            g = joint_mul_regs_avx2(joint_load_avx2(out + SKS_JOINT_FLOATS * (size_t)p), local + oj);
        }
        joint_store_avx2(out + oj, g);
    }
}

/* Four skeletons side by side as two pairs, with register forwarding: two independent pairs
 * let the out-of-order core overlap one chain's latency with the other's. */
SKS_TARGET_AVX2 static void walk_four_avx2(float *out, const float *local, const int32_t *parents,
                                           size_t stride, size_t start, size_t stop)
{
    joint_pair_avx2 g0, g1;
    const size_t pair = 2 * stride;
    size_t j;
    int i;
    for (i = 0; i < 3; i++) g0.r[i] = g1.r[i] = _mm256_setzero_ps();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g0 = joint_pair_load_avx2(local + oj, stride);
            g1 = joint_pair_load_avx2(local + pair + oj, stride);
        } else if ((size_t)p + 1 == j && j > start) {
            g0 = joint_pair_mul_avx2(g0, local + oj, stride);
            g1 = joint_pair_mul_avx2(g1, local + pair + oj, stride);
        } else {
            const size_t op = SKS_JOINT_FLOATS * (size_t)p;
            g0 = joint_pair_mul_avx2(joint_pair_load_avx2(out + op, stride), local + oj, stride);
            g1 = joint_pair_mul_avx2(joint_pair_load_avx2(out + pair + op, stride), local + pair + oj,
                                     stride);
        }
        joint_pair_store_avx2(out + oj, stride, g0);
        joint_pair_store_avx2(out + pair + oj, stride, g1);
    }
}

/* Batches whose input and output exceed this many bytes stream from DRAM. There, walking one
 * skeleton at a time was measured faster than several side by side (Zen 4, 32 MB L3, 10,000 x 96:
 * 2.9 ns per joint single, 4.4 four rows side by side, 5.7 one pair), while in cache four side
 * by side win (1.8 against 2.5 ns per joint at 1000 x 96). */
#define SKS_L2G_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)

/* ------------------------------------------------------------------------------------------
 * AVX2 variants
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_AVX2 static void local_to_global_avx2(float *out, const float *local,
                                                 const int32_t *parents, size_t batch,
                                                 size_t joints, size_t start, size_t stop)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    const int side_by_side = 2 * batch * stride * sizeof(float) <= SKS_L2G_SIDE_BY_SIDE_MAX_BYTES;
    size_t b = 0;
    if (side_by_side) {
        for (; b + 4 <= batch; b += 4) {
            walk_four_avx2(out + b * stride, local + b * stride, parents, stride, start, stop);
        }
    }
    for (; b < batch; b++) {
        walk_one_avx2(out + b * stride, local + b * stride, parents, start, stop);
    }
}

/* One joint of the float64 walk (see local_to_global_f64_scalar), on joint_ops.h's float64
 * product shared with skinning_palette. */
SKS_TARGET_AVX2 static inline void joint_step_f64_avx2(float *o, double *g, const double *p,
                                                       const float *l)
{
    const joint_f64_avx2 r = p == NULL ? joint_f64_convert_avx2(l) : joint_mul_f64_avx2(p, l);
    int i;
    for (i = 0; i < 3; i++) {
        _mm256_storeu_pd(g + 4 * i, r.r[i]);
        _mm_storeu_ps(o + 4 * i, _mm256_cvtpd_ps(r.r[i]));
    }
}

SKS_TARGET_AVX2 static void local_to_global_f64_avx2(float *out, const float *local,
                                                     const int32_t *parents, size_t batch,
                                                     size_t joints, size_t start, size_t stop,
                                                     double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_JOINT_FLOATS, scratch,
                       SKS_L2G_F64_SIDE_BY_SIDE, joint_step_f64_avx2);
}

SKS_TARGET_AVX2 static void multiply_joints_avx2(float *out, const float *a, size_t a_step,
                                                 const float *b, size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_JOINT_FLOATS;
    b_step *= SKS_JOINT_FLOATS;
    for (i = 0; i < n; i++) {
        joint_mul_avx2(out + SKS_JOINT_FLOATS * i, a + a_step * i, b + b_step * i);
    }
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_joints_kernels sks_joints_variants[SKS_ISA_COUNT] = {
    {local_to_global_scalar, local_to_global_f64_scalar, global_to_local_scalar,
     multiply_joints_scalar, invert_joints_scalar},
    {SKS_SIMD_OR_SCALAR(local_to_global_sse41, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_f64_sse41, local_to_global_f64_scalar),
     SKS_SIMD_OR_SCALAR(global_to_local_sse41, global_to_local_scalar),
     SKS_SIMD_OR_SCALAR(multiply_joints_sse41, multiply_joints_scalar),
     SKS_SIMD_OR_SCALAR(invert_joints_sse41, invert_joints_scalar)},
    /* global_to_local and invert_joints have no parent -> child chain and no 256-bit
     * formulation that measured faster: the AVX2 row runs their SSE4.1 variants
     * (8.3 and 8.5 ns per joint at 1000 x 96 with and without VEX encoding). */
    {SKS_SIMD_OR_SCALAR(local_to_global_avx2, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_f64_avx2, local_to_global_f64_scalar),
     SKS_SIMD_OR_SCALAR(global_to_local_sse41, global_to_local_scalar),
     SKS_SIMD_OR_SCALAR(multiply_joints_avx2, multiply_joints_scalar),
     SKS_SIMD_OR_SCALAR(invert_joints_sse41, invert_joints_scalar)},
};
