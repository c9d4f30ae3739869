/*
 * skinning.c -- the matrix palette and linear-blend skinning: skinning_palette, skin and
 * normalize_weights, each as a scalar, an SSE4.1 and an AVX2 variant (see skinning.h).
 *
 * skinning_palette fuses the joint family's local_to_global and multiply_joints (seed 000
 * section 5: joints times the precomputed inverse bind pose; seed 002's comments: build the
 * palette per character in scratch memory). The global pose of each joint is computed, kept in
 * registers for the palette product and for a child that directly follows it, and written only
 * to a small per-call scratch (read back for the other children); the output receives the
 * palette alone. Both products use the joint family's building blocks (joint_ops.h), so the
 * palette is bit-identical to multiply_joints(local_to_global(local), inverse_bind) on every
 * variant. The AVX2 variant walks four skeletons side by side (two pairs, one per 256-bit
 * register), like local_to_global, and keeps their global poses in scratch in the same
 * interleaved pair layout, so re-reading a parent costs plain 256-bit loads.
 *
 * skin: for every vertex the palette matrices of its influences are blended with its weights
 * (M = w0 P0 + w1 P1 + ..., left to right), then M moves the position (and rotates the normal,
 * which is renormalised). The palette is first transposed into columns C0..C3 (scratch), so the
 * blend and the transform are whole-register operations: position = ((x C0 + y C1) + z C2) + C3.
 * Weights are used as given (no renormalisation: see normalize_weights); zero weights and
 * repeated joint indices need no special case.
 *
 * Error (u = 2**-24, unit-magnitude data): the blend of K matrices is within about K u times
 * sum_k |w_k| |P_k| per element and the transform adds the 4-term dot product bound of
 * matmul4; measured max abs errors are in skelsimd/skinning.py.
 */
#include <math.h>

#include "skinning.h"
#include "joint_ops_legacy.h"

#define SKS_COLUMNS_FLOATS 16   /* one joint's columns C0..C3, 4 floats each (lane 3 = 0) */

/* ------------------------------------------------------------------------------------------
 * Scalar building blocks
 * ------------------------------------------------------------------------------------------ */

/* cols[16 j + 4 k + i] = palette[j][i][k] (i < 3), cols[16 j + 4 k + 3] = 0: the columns of
 * every palette matrix (a pure data movement; the SIMD variants transpose in registers). */
static void palette_columns_scalar(float *cols, const float *palette, size_t joints)
{
    size_t j;
    int i, k;
    for (j = 0; j < joints; j++) {
        const float *m = palette + SKS_JOINT_FLOATS * j;
        float *c = cols + SKS_COLUMNS_FLOATS * j;
        for (k = 0; k < 4; k++) {
            for (i = 0; i < 3; i++) c[4 * k + i] = m[4 * i + k];
            c[4 * k + 3] = 0.0f;
        }
    }
}

/* One vertex: blend the columns of its influences, move the position, rotate and renormalise
 * the normal (on may be NULL). op may alias p and on may alias n. */
static inline void skin_vertex_scalar(float *op, float *on, const float *p, const float *n,
                                      const int32_t *idx, const float *w, size_t influences,
                                      const float *cols)
{
    float c[SKS_COLUMNS_FLOATS];
    const float *src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[0];
    const float x = p[0], y = p[1], z = p[2];
    float r[3];
    size_t k;
    int e, i;
    for (e = 0; e < SKS_COLUMNS_FLOATS; e++) c[e] = w[0] * src[e];
    for (k = 1; k < influences; k++) {
        src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[k];
        for (e = 0; e < SKS_COLUMNS_FLOATS; e++) c[e] = c[e] + w[k] * src[e];
    }
    for (i = 0; i < 3; i++) r[i] = ((c[i] * x + c[4 + i] * y) + c[8 + i] * z) + c[12 + i];
    if (on != NULL) {
        const float nx = n[0], ny = n[1], nz = n[2];
        float q[3], len;
        for (i = 0; i < 3; i++) q[i] = (c[i] * nx + c[4 + i] * ny) + c[8 + i] * nz;
        len = sqrtf((q[0] * q[0] + q[1] * q[1]) + q[2] * q[2]);
        for (i = 0; i < 3; i++) on[i] = len == 0.0f ? 0.0f : q[i] / len;
    }
    op[0] = r[0];
    op[1] = r[1];
    op[2] = r[2];
}

/* One vertex of skin: (out position, out normal or NULL, position, normal or NULL, joint
 * indices, weights, influences, palette columns). */
typedef void (*skin_vertex_fn)(float *op, float *on, const float *p, const float *n,
                               const int32_t *idx, const float *w, size_t influences,
                               const float *cols);

/* The palette's columns into scratch (see palette_columns_scalar). */
typedef void (*palette_columns_fn)(float *cols, const float *palette, size_t joints);

/* Vertices whose joint indices skin_mesh copies and checks at once. */
#define SKS_SKIN_INDEX_BLOCK 64

/* skin for every variant: the palette's columns into scratch, then `vertex` on every vertex
 * (always inlined, so the variant's functions are inlined into its loop).
 *
 * Joint indices are read from a private copy, checked as read: the caller validates every index
 * before the kernel runs, but the kernel runs with the GIL released over the caller's (large)
 * joint_indices array, read in place, which another thread may change during the call. So the
 * indices of each block of SKS_SKIN_INDEX_BLOCK vertices are copied to the stack, the copy is
 * checked against [0, joints) in one vectorised pass, and the vertices read only the copy: an
 * entry changed mid-call to another valid index is used or not depending on timing, one changed
 * to an invalid value selects joint 0. Never a read outside the palette; the same integer steps
 * in every variant (bit-identical); about 0.1 ns per vertex. */
static SKS_ALWAYS_INLINE void skin_mesh(float *out_positions, float *out_normals,
                                        const float *positions, const float *normals,
                                        const int32_t *indices, const float *weights,
                                        size_t vertices, size_t influences, const float *palette,
                                        size_t joints, float *scratch, palette_columns_fn columns,
                                        skin_vertex_fn vertex)
{
    int32_t idx[SKS_SKIN_INDEX_BLOCK * SKS_SKIN_MAX_INFLUENCES];
    /* x is in [0, joints) exactly when neither x nor last - x is negative (every
     * non-negative int32 is valid when joints > INT32_MAX): bit 31 of x | (last - x), in
     * uint32 arithmetic (no signed overflow) */
    const int32_t last = joints > (size_t)INT32_MAX ? INT32_MAX : (int32_t)(joints - 1);
    size_t v0, v, i;
    if (joints == 0 || influences > SKS_SKIN_MAX_INFLUENCES) return;   /* never from the glue */
    columns(scratch, palette, joints);
    for (v0 = 0; v0 < vertices; v0 += SKS_SKIN_INDEX_BLOCK) {
        const size_t nv = vertices - v0 < SKS_SKIN_INDEX_BLOCK ? vertices - v0
                                                               : SKS_SKIN_INDEX_BLOCK;
        const size_t ni = nv * influences;
        uint32_t outside = 0;
        const int32_t *src = indices + influences * v0;
        for (i = 0; i < ni; i++) {
            idx[i] = src[i];   /* the check below reads the copy, never src again */
            outside |= (uint32_t)idx[i] | ((uint32_t)last - (uint32_t)idx[i]);
        }
        if (outside >> 31) {
            for (i = 0; i < ni; i++) {
                if ((size_t)(uint32_t)idx[i] >= joints) idx[i] = 0;
            }
        }
        for (v = v0; v < v0 + nv; v++) {
            vertex(out_positions + 3 * v, out_normals ? out_normals + 3 * v : NULL,
                   positions + 3 * v, normals ? normals + 3 * v : NULL,
                   idx + influences * (v - v0), weights + influences * v, influences, scratch);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Scalar variants
 * ------------------------------------------------------------------------------------------ */

static void skinning_palette_scalar(float *out, const float *local, size_t local_step,
                                    const float *inverse_bind, size_t ib_step,
                                    const int32_t *parents, size_t n, size_t joints, float *scratch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t s, j;
    for (s = 0; s < n; s++) {
        const float *l = local + s * local_step * stride;
        const float *ib = inverse_bind + s * ib_step * stride;
        float *o = out + s * stride;
        for (j = 0; j < joints; j++) {
            const int32_t p = parents[j];
            const size_t oj = SKS_JOINT_FLOATS * j;
            if (p < 0) {
                memcpy(scratch + oj, l + oj, SKS_JOINT_FLOATS * sizeof(float));
            } else {
                joint_mul_scalar(scratch + oj, scratch + SKS_JOINT_FLOATS * (size_t)p, l + oj);
            }
            joint_mul_scalar(o + oj, scratch + oj, ib + oj);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * float64 accumulation: skinning_palette(..., precision="float64")
 *
 * The float32 palette rounds every global pose to float32 (its children build on the rounded
 * value) and then rounds the product with inverse_bind again, so its error grows with depth.
 * This one keeps the global poses in float64 scratch, multiplies them by inverse_bind in
 * float64 too and rounds only the palette, once. With the 3x4 product in float64,
 *     (a @ b)[i][c] = (a[i][0] * b[0][c] + a[i][1] * b[1][c]) + (a[i][2] * b[2][c] + tau),
 *     tau = a[i][3] for c = 3, else +0.0
 * (joint_mul_f64_scalar, joint_ops.h: a float64, b float32 and exact in float64; the pairwise
 * order is that of the joint family's
 * local_to_global(..., precision="float64")), joint j of a skeleton is
 *     G[j] = local[j] converted (a root) or G[parents[j]] @ local[j];  out[j] = float32(G[j] @ ib[j]).
 * Error: the float64 values are off by at most about (d + 3) * 2**-52 * max(1, T) * max(1, |ib|)
 * for depth d and global translations up to T, far below a float32 ulp, so each palette element
 * is its exact value rounded to float32 up to that:
 *     |out - exact| <= 2**-24 * |exact| + (d + 3) * 2**-52 * max(1, T) * max(1, |ib|)  (tested
 * against 2**-24 |exact| + 1e-12). out may equal local or inverse_bind (each joint's local and
 * inverse bind are read before its palette is written; the parents come from scratch). Same
 * float64 operations in the same order in every variant, no FMA: bit-identical.
 * ------------------------------------------------------------------------------------------ */

/* One joint of one skeleton: g = p @ l (p NULL: a root, g = l) into scratch, then
 * o = float32(g @ ib). o may alias l or ib. */
typedef void (*palette_step_f64_fn)(float *o, double *g, const double *p, const float *l,
                                    const float *ib);

static inline void palette_step_f64_scalar(float *o, double *g, const double *p, const float *l,
                                           const float *ib)
{
    double q[SKS_JOINT_FLOATS];
    int i;
    if (p == NULL) {
        for (i = 0; i < SKS_JOINT_FLOATS; i++) g[i] = (double)l[i];
    } else {
        joint_mul_f64_scalar(g, p, l);
    }
    joint_mul_f64_scalar(q, g, ib);
    for (i = 0; i < SKS_JOINT_FLOATS; i++) o[i] = (float)q[i];
}

/* The float64 palettes of `count` skeletons side by side (count is a constant at every call
 * site): skeleton s reads local + s * l_stride and ib + s * ib_stride, writes out + s * stride
 * and keeps its global poses at scratch + s * stride doubles (stride = joints * 12). */
static SKS_ALWAYS_INLINE void palette_walk_f64(float *out, const float *local, size_t l_stride,
                                               const float *ib, size_t ib_stride,
                                               const int32_t *parents, size_t count,
                                               size_t joints, double *scratch,
                                               palette_step_f64_fn step)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t j, s;
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        for (s = 0; s < count; s++) {
            double *g = scratch + s * stride;
            step(out + s * stride + oj, g + oj, p < 0 ? NULL : g + SKS_JOINT_FLOATS * (size_t)p,
                 local + s * l_stride + oj, ib + s * ib_stride + oj);
        }
    }
}

/* skinning_palette_f64 for every variant: `count` skeletons side by side, then one at a time. */
static SKS_ALWAYS_INLINE void palette_f64(float *out, const float *local, size_t local_step,
                                          const float *inverse_bind, size_t ib_step,
                                          const int32_t *parents, size_t n, size_t joints,
                                          double *scratch, size_t count, palette_step_f64_fn step)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    const size_t l_stride = local_step * stride, ib_stride = ib_step * stride;
    size_t s = 0;
    for (; s + count <= n; s += count) {
        palette_walk_f64(out + s * stride, local + s * l_stride, l_stride,
                         inverse_bind + s * ib_stride, ib_stride, parents, count, joints, scratch,
                         step);
    }
    for (; s < n; s++) {
        palette_walk_f64(out + s * stride, local + s * l_stride, l_stride,
                         inverse_bind + s * ib_stride, ib_stride, parents, 1, joints, scratch,
                         step);
    }
}

static void skinning_palette_f64_scalar(float *out, const float *local, size_t local_step,
                                        const float *inverse_bind, size_t ib_step,
                                        const int32_t *parents, size_t n, size_t joints,
                                        double *scratch)
{
    palette_f64(out, local, local_step, inverse_bind, ib_step, parents, n, joints, scratch, 1,
                palette_step_f64_scalar);
}

static void skin_scalar(float *out_positions, float *out_normals, const float *positions,
                        const float *normals, const int32_t *indices, const float *weights,
                        size_t vertices, size_t influences, const float *palette, size_t joints,
                        float *scratch)
{
    skin_mesh(out_positions, out_normals, positions, normals, indices, weights, vertices,
              influences, palette, joints, scratch, palette_columns_scalar,
              skin_vertex_scalar);
}

/* A load-time utility bound by memory: one implementation serves every variant. */
static void normalize_weights_scalar(float *out, const float *weights, size_t rows,
                                     size_t influences)
{
    size_t v, k;
    for (v = 0; v < rows; v++) {
        const float *w = weights + influences * v;
        float *o = out + influences * v;
        float sum = influences ? w[0] : 0.0f;
        for (k = 1; k < influences; k++) sum = sum + w[k];
        for (k = 0; k < influences; k++) o[k] = sum == 0.0f ? w[k] : w[k] / sum;
    }
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1 building blocks
 * ------------------------------------------------------------------------------------------ */

/* Stores lanes 0..2 of v (exactly three floats). */
SKS_TARGET_SSE41 static inline void skin_store3_sse41(float *o, __m128 v)
{
    _mm_storel_pi((__m64 *)(void *)o, v);
    _mm_store_ss(o + 2, _mm_movehl_ps(v, v));
}

/* The columns of every palette matrix: each 3x4 transposed in registers (a zero fourth row). */
SKS_TARGET_SSE41 static inline void palette_columns_sse41(float *cols, const float *palette,
                                                          size_t joints)
{
    size_t j;
    for (j = 0; j < joints; j++) {
        const float *m = palette + SKS_JOINT_FLOATS * j;
        __m128 r0 = _mm_loadu_ps(m), r1 = _mm_loadu_ps(m + 4), r2 = _mm_loadu_ps(m + 8);
        __m128 r3 = _mm_setzero_ps();
        float *c = cols + SKS_COLUMNS_FLOATS * j;
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        _mm_storeu_ps(c, r0);
        _mm_storeu_ps(c + 4, r1);
        _mm_storeu_ps(c + 8, r2);
        _mm_storeu_ps(c + 12, r3);
    }
}

/* q / |q| over lanes 0..2, |q| = sqrt((q0 q0 + q1 q1) + q2 q2); zero where |q| == 0. */
SKS_TARGET_SSE41 static inline __m128 normalize3_sse41(__m128 q)
{
    const __m128 sq = _mm_mul_ps(q, q);
    const __m128 sum = _mm_add_ss(_mm_add_ss(sq, SKS_SPLAT_LANE(sq, 1)), SKS_SPLAT_LANE(sq, 2));
    const __m128 len = SKS_SPLAT_LANE(_mm_sqrt_ss(sum), 0);
    return _mm_and_ps(_mm_div_ps(q, len), _mm_cmpneq_ps(len, _mm_setzero_ps()));
}

/* The transform part of one vertex from its blended columns c0..c3 (shared by the SSE4.1 and
 * AVX2 variants): the scalar expressions, four lanes at a time. */
SKS_TARGET_SSE41 static inline void skin_finish_sse41(float *op, float *on, const float *p,
                                                      const float *n, __m128 c0, __m128 c1,
                                                      __m128 c2, __m128 c3)
{
    const __m128 x = _mm_set1_ps(p[0]), y = _mm_set1_ps(p[1]), z = _mm_set1_ps(p[2]);
    const __m128 r = _mm_add_ps(
        _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, x), _mm_mul_ps(c1, y)), _mm_mul_ps(c2, z)), c3);
    if (on != NULL) {
        const __m128 nx = _mm_set1_ps(n[0]), ny = _mm_set1_ps(n[1]), nz = _mm_set1_ps(n[2]);
        const __m128 q = _mm_add_ps(_mm_add_ps(_mm_mul_ps(c0, nx), _mm_mul_ps(c1, ny)),
                                    _mm_mul_ps(c2, nz));
        skin_store3_sse41(on, normalize3_sse41(q));
    }
    skin_store3_sse41(op, r);
}

SKS_TARGET_SSE41 static inline void skin_vertex_sse41(float *op, float *on, const float *p,
                                                      const float *n, const int32_t *idx,
                                                      const float *w, size_t influences,
                                                      const float *cols)
{
    const float *src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[0];
    __m128 wk = _mm_set1_ps(w[0]);
    __m128 c0 = _mm_mul_ps(wk, _mm_loadu_ps(src)), c1 = _mm_mul_ps(wk, _mm_loadu_ps(src + 4));
    __m128 c2 = _mm_mul_ps(wk, _mm_loadu_ps(src + 8)), c3 = _mm_mul_ps(wk, _mm_loadu_ps(src + 12));
    size_t k;
    for (k = 1; k < influences; k++) {
        src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[k];
        wk = _mm_set1_ps(w[k]);
        c0 = _mm_add_ps(c0, _mm_mul_ps(wk, _mm_loadu_ps(src)));
        c1 = _mm_add_ps(c1, _mm_mul_ps(wk, _mm_loadu_ps(src + 4)));
        c2 = _mm_add_ps(c2, _mm_mul_ps(wk, _mm_loadu_ps(src + 8)));
        c3 = _mm_add_ps(c3, _mm_mul_ps(wk, _mm_loadu_ps(src + 12)));
    }
    skin_finish_sse41(op, on, p, n, c0, c1, c2, c3);
}

/* ------------------------------------------------------------------------------------------
 * SSE4.1 variants
 * ------------------------------------------------------------------------------------------ */

/* One skeleton at a time; the parent's global pose is forwarded in registers when
 * parents[j] == j - 1, else read back from scratch. */
SKS_TARGET_SSE41 static void skinning_palette_sse41(float *out, const float *local,
                                                    size_t local_step, const float *inverse_bind,
                                                    size_t ib_step, const int32_t *parents,
                                                    size_t n, size_t joints, float *scratch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t s, j;
    for (s = 0; s < n; s++) {
        const float *l = local + s * local_step * stride;
        const float *ib = inverse_bind + s * ib_step * stride;
        float *o = out + s * stride;
        joint_sse41 g = {_mm_setzero_ps(), _mm_setzero_ps(), _mm_setzero_ps()};
        for (j = 0; j < joints; j++) {
            const int32_t p = parents[j];
            const size_t oj = SKS_JOINT_FLOATS * j;
            if (p < 0) {
                g = joint_load_sse41(l + oj);
            } else if ((size_t)p + 1 == j) {
                g = joint_mul_regs_sse41(g, l + oj);
            } else {
                g = joint_mul_regs_sse41(joint_load_sse41(scratch + SKS_JOINT_FLOATS * (size_t)p),
                                         l + oj);
            }
            joint_store_sse41(scratch + oj, g);
            joint_store_sse41(o + oj, joint_mul_regs_sse41(g, ib + oj));
        }
    }
}

SKS_TARGET_SSE41 static inline void palette_step_f64_sse41(float *o, double *g, const double *p,
                                                           const float *l, const float *ib)
{
    const joint_f64_sse41 gj = p == NULL ? joint_f64_convert_sse41(l) : joint_mul_f64_sse41(p, l);
    joint_f64_sse41 q;
    int i;
    for (i = 0; i < 3; i++) {
        _mm_storeu_pd(g + 4 * i, gj.lo[i]);
        _mm_storeu_pd(g + 4 * i + 2, gj.hi[i]);
    }
    q = joint_mul_f64_sse41(g, ib);
    for (i = 0; i < 3; i++) {
        _mm_storeu_ps(o + 4 * i, _mm_movelh_ps(_mm_cvtpd_ps(q.lo[i]), _mm_cvtpd_ps(q.hi[i])));
    }
}

SKS_TARGET_SSE41 static void skinning_palette_f64_sse41(float *out, const float *local,
                                                        size_t local_step,
                                                        const float *inverse_bind, size_t ib_step,
                                                        const int32_t *parents, size_t n,
                                                        size_t joints, double *scratch)
{
    palette_f64(out, local, local_step, inverse_bind, ib_step, parents, n, joints, scratch, 2,
                palette_step_f64_sse41);
}

SKS_TARGET_SSE41 static void skin_sse41(float *out_positions, float *out_normals,
                                        const float *positions, const float *normals,
                                        const int32_t *indices, const float *weights,
                                        size_t vertices, size_t influences, const float *palette,
                                        size_t joints, float *scratch)
{
    skin_mesh(out_positions, out_normals, positions, normals, indices, weights, vertices,
              influences, palette, joints, scratch, palette_columns_sse41,
              skin_vertex_sse41);
}

/* ------------------------------------------------------------------------------------------
 * AVX2 building blocks
 * ------------------------------------------------------------------------------------------ */

/* A pair's global pose in scratch: per joint 24 floats, r[i] = [row i first | row i second]. */
#define SKS_PAIR_FLOATS (2 * SKS_JOINT_FLOATS)

SKS_TARGET_AVX2 static inline joint_pair_avx2 pair_scratch_load_avx2(const float *s)
{
    joint_pair_avx2 g;
    int i;
    for (i = 0; i < 3; i++) g.r[i] = _mm256_loadu_ps(s + 8 * i);
    return g;
}

SKS_TARGET_AVX2 static inline void pair_scratch_store_avx2(float *s, joint_pair_avx2 g)
{
    int i;
    for (i = 0; i < 3; i++) _mm256_storeu_ps(s + 8 * i, g.r[i]);
}

/* g @ b for a pair whose two skeletons' b are `stride` floats apart (stride 0: one b shared by
 * both, its rows broadcast to both halves by a pure load). */
SKS_TARGET_AVX2 static inline joint_pair_avx2 pair_mul_avx2(joint_pair_avx2 g, const float *b,
                                                            size_t stride)
{
    if (stride == 0) {
        return joint_pair_mul_rows_avx2(g, _mm256_broadcast_ps((const __m128 *)(const void *)b),
                                        _mm256_broadcast_ps((const __m128 *)(const void *)(b + 4)),
                                        _mm256_broadcast_ps((const __m128 *)(const void *)(b + 8)));
    }
    return joint_pair_mul_avx2(g, b, stride);
}

/* Four skeletons (two pairs) side by side: skeleton q's local pose at local + q * l_stride,
 * inverse bind at ib + q * ib_stride, palette at out + q * o_stride. */
SKS_TARGET_AVX2 static void palette_four_avx2(float *out, size_t o_stride, const float *local,
                                              size_t l_stride, const float *ib, size_t ib_stride,
                                              const int32_t *parents, size_t joints, float *scratch)
{
    float *s0 = scratch, *s1 = scratch + SKS_PAIR_FLOATS * joints;
    joint_pair_avx2 g0, g1;
    size_t j;
    int i;
    for (i = 0; i < 3; i++) g0.r[i] = g1.r[i] = _mm256_setzero_ps();
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        const float *l0 = local + oj, *l1 = local + 2 * l_stride + oj;
        if (p < 0) {
            g0 = joint_pair_load_avx2(l0, l_stride);
            g1 = joint_pair_load_avx2(l1, l_stride);
        } else if ((size_t)p + 1 == j) {
            g0 = joint_pair_mul_avx2(g0, l0, l_stride);
            g1 = joint_pair_mul_avx2(g1, l1, l_stride);
        } else {
            g0 = joint_pair_mul_avx2(pair_scratch_load_avx2(s0 + SKS_PAIR_FLOATS * (size_t)p), l0,
                                     l_stride);
            g1 = joint_pair_mul_avx2(pair_scratch_load_avx2(s1 + SKS_PAIR_FLOATS * (size_t)p), l1,
                                     l_stride);
        }
        pair_scratch_store_avx2(s0 + SKS_PAIR_FLOATS * j, g0);
        pair_scratch_store_avx2(s1 + SKS_PAIR_FLOATS * j, g1);
        joint_pair_store_avx2(out + oj, o_stride, pair_mul_avx2(g0, ib + oj, ib_stride));
        joint_pair_store_avx2(out + 2 * o_stride + oj, o_stride,
                              pair_mul_avx2(g1, ib + 2 * ib_stride + oj, ib_stride));
    }
}

/* One skeleton, the parent forwarded in registers when parents[j] == j - 1. */
SKS_TARGET_AVX2 static void palette_one_avx2(float *out, const float *local, const float *ib,
                                             const int32_t *parents, size_t joints, float *scratch)
{
    joint_avx2 g;
    size_t j;
    g.r01 = _mm256_setzero_ps();
    g.r2 = _mm_setzero_ps();
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g = joint_load_avx2(local + oj);
        } else if ((size_t)p + 1 == j) {
            g = joint_mul_regs_avx2(g, local + oj);
        } else {
            g = joint_mul_regs_avx2(joint_load_avx2(scratch + SKS_JOINT_FLOATS * (size_t)p),
                                    local + oj);
        }
        joint_store_avx2(scratch + oj, g);
        joint_store_avx2(out + oj, joint_mul_regs_avx2(g, ib + oj));
    }
}

/* Above this many bytes of input and output, skeletons are walked one at a time (streaming
 * from DRAM, several side by side measured slower for the joint family's walk). */
#define SKS_PALETTE_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)

SKS_TARGET_AVX2 static inline void skin_vertex_avx2(float *op, float *on, const float *p,
                                                    const float *n, const int32_t *idx,
                                                    const float *w, size_t influences,
                                                    const float *cols)
{
    const float *src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[0];
    __m256 wk = _mm256_broadcast_ss(w);
    __m256 c01 = _mm256_mul_ps(wk, _mm256_loadu_ps(src));       /* [C0 | C1] */
    __m256 c23 = _mm256_mul_ps(wk, _mm256_loadu_ps(src + 8));   /* [C2 | C3] */
    size_t k;
    for (k = 1; k < influences; k++) {
        src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[k];
        wk = _mm256_broadcast_ss(w + k);
        c01 = _mm256_add_ps(c01, _mm256_mul_ps(wk, _mm256_loadu_ps(src)));
        c23 = _mm256_add_ps(c23, _mm256_mul_ps(wk, _mm256_loadu_ps(src + 8)));
    }
    skin_finish_sse41(op, on, p, n, _mm256_castps256_ps128(c01), _mm256_extractf128_ps(c01, 1),
                      _mm256_castps256_ps128(c23), _mm256_extractf128_ps(c23, 1));
}

/* ------------------------------------------------------------------------------------------
 * AVX2 variants
 * ------------------------------------------------------------------------------------------ */

SKS_TARGET_AVX2 static void skinning_palette_avx2(float *out, const float *local, size_t local_step,
                                                  const float *inverse_bind, size_t ib_step,
                                                  const int32_t *parents, size_t n, size_t joints,
                                                  float *scratch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    const int side_by_side = 2 * n * stride * sizeof(float) <= SKS_PALETTE_SIDE_BY_SIDE_MAX_BYTES;
    const size_t l_stride = local_step * stride, ib_stride = ib_step * stride;
    size_t s = 0;
    if (side_by_side) {
        for (; s + 4 <= n; s += 4) {
            palette_four_avx2(out + s * stride, stride, local + s * l_stride, l_stride,
                              inverse_bind + s * ib_stride, ib_stride, parents, joints, scratch);
        }
    }
    for (; s < n; s++) {
        palette_one_avx2(out + s * stride, local + s * l_stride, inverse_bind + s * ib_stride,
                         parents, joints, scratch);
    }
}

SKS_TARGET_AVX2 static void skin_avx2(float *out_positions, float *out_normals,
                                      const float *positions, const float *normals,
                                      const int32_t *indices, const float *weights,
                                      size_t vertices, size_t influences, const float *palette,
                                      size_t joints, float *scratch)
{
    skin_mesh(out_positions, out_normals, positions, normals, indices, weights, vertices,
              influences, palette, joints, scratch, palette_columns_sse41,
              skin_vertex_avx2);
}

SKS_TARGET_AVX2 static inline void palette_step_f64_avx2(float *o, double *g, const double *p,
                                                         const float *l, const float *ib)
{
    const joint_f64_avx2 gj = p == NULL ? joint_f64_convert_avx2(l) : joint_mul_f64_avx2(p, l);
    joint_f64_avx2 q;
    int i;
    for (i = 0; i < 3; i++) _mm256_storeu_pd(g + 4 * i, gj.r[i]);
    q = joint_mul_f64_avx2(g, ib);
    for (i = 0; i < 3; i++) _mm_storeu_ps(o + 4 * i, _mm256_cvtpd_ps(q.r[i]));
}

SKS_TARGET_AVX2 static void skinning_palette_f64_avx2(float *out, const float *local,
                                                      size_t local_step, const float *inverse_bind,
                                                      size_t ib_step, const int32_t *parents,
                                                      size_t n, size_t joints, double *scratch)
{
    palette_f64(out, local, local_step, inverse_bind, ib_step, parents, n, joints, scratch,
                SKS_PALETTE_SIDE_BY_SIDE, palette_step_f64_avx2);
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_skinning_kernels sks_skinning_variants[SKS_ISA_COUNT] = {
    {skinning_palette_scalar, skinning_palette_f64_scalar, skin_scalar, normalize_weights_scalar},
    {SKS_SIMD_OR_SCALAR(skinning_palette_sse41, skinning_palette_scalar),
     SKS_SIMD_OR_SCALAR(skinning_palette_f64_sse41, skinning_palette_f64_scalar),
     SKS_SIMD_OR_SCALAR(skin_sse41, skin_scalar), normalize_weights_scalar},
    {SKS_SIMD_OR_SCALAR(skinning_palette_avx2, skinning_palette_scalar),
     SKS_SIMD_OR_SCALAR(skinning_palette_f64_avx2, skinning_palette_f64_scalar),
     SKS_SIMD_OR_SCALAR(skin_avx2, skin_scalar), normalize_weights_scalar},
};
