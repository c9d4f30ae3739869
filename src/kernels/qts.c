/*
 * qts.c -- the QTS hierarchy walks (see qts.h), as a scalar, an SSE4.1 and an AVX2 variant.
 *
 * For a joint j with parent p (global P already computed) and local L:
 *     q_j = q_P * q_L                          (quatmath.h's Hamilton product)
 *     t_j = ((M0 tL0 + M1 tL1) + M2 tL2) + t_P  per row, M = s_P R(q_P / |q_P|)
 *     s_j = s_P s_L
 * The parent's translation is added last (as in the joint family's local_to_global: it keeps
 * the large global translations out of the other roundings), and the rotation is applied as the
 * parent's scaled rotation matrix M, so t_j is exactly the translation column of
 * qts_to_matrix(P) @ qts_to_matrix(L). A non-unit q rotates as q / |q| (a zero q as the
 * identity); q_j itself is the raw product.
 *
 * Two outputs from the same walk: QTS joints (qts_local_to_global) or the 3x4 matrices
 * [M_j | t_j] (qts_local_to_global_matrix, ozz-animation's LocalToModelJob: the walk computes M_j
 * for j's children anyway). The matrix output is therefore exactly qts_to_matrix of the QTS
 * output. It is more accurate than converting the locals and multiplying matrices (errors of
 * the converted rotations accumulate through the matrix products: 2.2e-6 against 1.6e-6 on
 * random 96-joint trees). In matrix mode a parent before `start` is read from out as a matrix:
 * its M and t are used as they are, its q and s come from matrix_to_qts.
 *
 * SIMD: several skeletons of the batch side by side, one per lane (4 for SSE4.1, 8 for AVX2):
 * joint j of every lane is transposed to SoA, combined with the parent's SoA record (q, t, s and
 * the 9 entries of M, written to the caller's scratch when the parent was computed), and
 * transposed back (or stored as matrices). The last group repeats its last skeleton in unused
 * lanes and stores only the valid ones; a rest of at most four skeletons goes to the four-lane
 * walk and a single skeleton to the scalar one (a lone skeleton in eight lanes measured 2.5x
 * slower than scalar). Every variant evaluates the same operations in the same order: results
 * are bit-identical.
 *
 * Error (unit quaternions and scales, translations in [-1, 1]): <= 2e-6 on random 96-joint
 * trees (1.6e-6 measured); (d + 1) * 2**-23 * max(1, T) for depth d and global translations up
 * to T.
 */
#include "qts.h"

#include "quatmath.h"

/* Floats of one joint's SoA record per lane: q (4), t (3), s (1), M = s R(q) (9). */
#define REC 17

size_t sks_qts_scratch_floats(size_t joints)
{
    return (size_t)REC * 8 * joints;
}

/* ------------------------------------------------------------------------------------------
 * Scalar
 * ------------------------------------------------------------------------------------------ */

/* o = P (+) L with m = s_P R(q_P) given; o may alias L. */
static inline void qts_compose_scalar(float *o, const float *P, const float m[9], const float *L)
{
    float r[8];
    sks_quat_mul_scalar(r, P, L);
    r[4] = sks_row_dot3_scalar(m, L + 4, P[4]);
    r[5] = sks_row_dot3_scalar(m + 3, L + 4, P[5]);
    r[6] = sks_row_dot3_scalar(m + 6, L + 4, P[6]);
    r[7] = P[7] * L[7];
    memcpy(o, r, sizeof r);
}

/* The walk of one skeleton. QTS mode (matrix == 0): globals in out (8 floats per joint).
 * Matrix mode: globals as QTS in g (8 floats per joint, scratch), matrices in out (12).
 * m_cache (9 floats per joint, scratch) keeps each joint's M = s R(q) for its children, and the
 * previous joint stays in registers for a child with parents[j] == j - 1 (chains: spine, limbs,
 * fingers), so the parent -> child chain does not go through memory. */
static void walk_one_scalar(float *out, float *g, float *m_cache, const float *local,
                            const int32_t *parents, size_t start, size_t stop, int matrix)
{
    float prev[8] = {0, 0, 0, 1, 0, 0, 0, 1}, prev_m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    size_t j;
    int c;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        float cur[8], m[9];
        if (p < 0) {
            memcpy(cur, local + 8 * j, sizeof cur);
        } else if ((size_t)p + 1 == j && j > start) {
            qts_compose_scalar(cur, prev, prev_m, local + 8 * j);
        } else if ((size_t)p >= start) {
            qts_compose_scalar(cur, g + 8 * (size_t)p, m_cache + 9 * (size_t)p, local + 8 * j);
        } else if (matrix) {
            const float *a = out + 12 * (size_t)p;
            const float pm[9] = {a[0], a[1], a[2], a[4], a[5], a[6], a[8], a[9], a[10]};
            float P[8];
            sks_matrix_to_qts_scalar(P, a);
            P[4] = a[3];
            P[5] = a[7];
            P[6] = a[11];
            qts_compose_scalar(cur, P, pm, local + 8 * j);
        } else {
            const float *P = g + 8 * (size_t)p;
            float pm[9];
            sks_quat_scaled_rotation_scalar(pm, P, P[7]);
            qts_compose_scalar(cur, P, pm, local + 8 * j);
        }
        sks_quat_scaled_rotation_scalar(m, cur, cur[7]);
        memcpy(g + 8 * j, cur, sizeof cur);
        memcpy(m_cache + 9 * j, m, sizeof m);
        if (matrix) {
            float *o = out + 12 * j;
            for (c = 0; c < 3; c++) {
                o[4 * c] = m[3 * c];
                o[4 * c + 1] = m[3 * c + 1];
                o[4 * c + 2] = m[3 * c + 2];
                o[4 * c + 3] = cur[4 + c];
            }
        }
        memcpy(prev, cur, sizeof prev);
        memcpy(prev_m, m, sizeof prev_m);
    }
}

static void walk_scalar(float *out, const float *local, const int32_t *parents, size_t batch,
                        size_t joints, size_t start, size_t stop, float *scratch, int matrix)
{
    size_t b;
    for (b = 0; b < batch; b++) {
        float *o = out + b * joints * (matrix ? 12 : 8);
        walk_one_scalar(o, matrix ? scratch : o, scratch + 8 * joints, local + b * joints * 8, parents,
                        start, stop, matrix);
    }
}

static void local_to_global_scalar(float *out, const float *local, const int32_t *parents,
                                   size_t batch, size_t joints, size_t start, size_t stop,
                                   float *scratch)
{
    walk_scalar(out, local, parents, batch, joints, start, stop, scratch, 0);
}

static void local_to_global_matrix_scalar(float *out, const float *local, const int32_t *parents,
                                          size_t batch, size_t joints, size_t start, size_t stop,
                                          float *scratch)
{
    walk_scalar(out, local, parents, batch, joints, start, stop, scratch, 1);
}

/* A parent before `start` in matrix mode, for `lanes` lanes (matrices at src[l] + 12 p): its QTS
 * (q and s from matrix_to_qts, t from the matrix) and its matrix entries, in SoA arrays. */
static inline void matrix_parent_scalar(float qts[8][8], float m[9][8], const float *const *src,
                                        size_t lanes, size_t p)
{
    size_t l;
    int c;
    for (l = 0; l < lanes; l++) {
        const float *a = src[l] + 12 * p;
        float x[8];
        sks_matrix_to_qts_scalar(x, a);
        x[4] = a[3];
        x[5] = a[7];
        x[6] = a[11];
        for (c = 0; c < 8; c++) qts[c][l] = x[c];
        for (c = 0; c < 9; c++) m[c][l] = a[4 * (c / 3) + c % 3];
    }
}

/* Lane pointers of the skeletons b .. b + nvalid - 1 of a batch; the unused lanes repeat the
 * last valid skeleton (computed, never stored). */
static inline void lane_pointers(float **dst, const float **src, size_t lanes, size_t nvalid,
                                 float *out, const float *local, size_t b, size_t out_stride,
                                 size_t in_stride)
{
    size_t l;
    for (l = 0; l < lanes; l++) {
        const size_t k = b + (l < nvalid ? l : nvalid - 1);
        dst[l] = out + k * out_stride;
        src[l] = local + k * in_stride;
    }
}

#if SKS_HAVE_X86_SIMD
/* ------------------------------------------------------------------------------------------
 * SSE4.1: four skeletons side by side
 * ------------------------------------------------------------------------------------------ */

/* A QTS joint of four lanes in SoA plus its M = s R(q). */
typedef struct qts4 {
    sks_quat4 q;
    __m128 t[3], s, m[9];
} qts4;

/* Joint j of the four lanes' skeletons (8 floats each at src[l] + 8 j) into SoA. */
SKS_TARGET_SSE41 static inline void qts4_load(qts4 *g, const float *const src[4], size_t j)
{
    __m128 a[4], b[4];
    int l;
    for (l = 0; l < 4; l++) {
        a[l] = _mm_loadu_ps(src[l] + 8 * j);
        b[l] = _mm_loadu_ps(src[l] + 8 * j + 4);
    }
    _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
    _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
    g->q.x = a[0]; g->q.y = a[1]; g->q.z = a[2]; g->q.w = a[3];
    g->t[0] = b[0]; g->t[1] = b[1]; g->t[2] = b[2]; g->s = b[3];
}

SKS_TARGET_SSE41 static inline void qts4_store(float *const dst[4], size_t nvalid, size_t j, const qts4 *g)
{
    __m128 a[4], b[4];
    size_t l;
    a[0] = g->q.x; a[1] = g->q.y; a[2] = g->q.z; a[3] = g->q.w;
    b[0] = g->t[0]; b[1] = g->t[1]; b[2] = g->t[2]; b[3] = g->s;
    _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
    _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
    for (l = 0; l < nvalid; l++) {
        _mm_storeu_ps(dst[l] + 8 * j, a[l]);
        _mm_storeu_ps(dst[l] + 8 * j + 4, b[l]);
    }
}

/* The record layout: q.x q.y q.z q.w t0 t1 t2 s m0 .. m8, each `lanes` floats. */
SKS_TARGET_SSE41 static inline void qts4_rec_store(float *rec, const qts4 *g)
{
    int c;
    _mm_storeu_ps(rec, g->q.x);
    _mm_storeu_ps(rec + 4, g->q.y);
    _mm_storeu_ps(rec + 8, g->q.z);
    _mm_storeu_ps(rec + 12, g->q.w);
    for (c = 0; c < 3; c++) _mm_storeu_ps(rec + 16 + 4 * c, g->t[c]);
    _mm_storeu_ps(rec + 28, g->s);
    for (c = 0; c < 9; c++) _mm_storeu_ps(rec + 32 + 4 * c, g->m[c]);
}

SKS_TARGET_SSE41 static inline void qts4_rec_load(qts4 *g, const float *rec)
{
    int c;
    g->q.x = _mm_loadu_ps(rec);
    g->q.y = _mm_loadu_ps(rec + 4);
    g->q.z = _mm_loadu_ps(rec + 8);
    g->q.w = _mm_loadu_ps(rec + 12);
    for (c = 0; c < 3; c++) g->t[c] = _mm_loadu_ps(rec + 16 + 4 * c);
    g->s = _mm_loadu_ps(rec + 28);
    for (c = 0; c < 9; c++) g->m[c] = _mm_loadu_ps(rec + 32 + 4 * c);
}

/* A parent before `start`, read from out (QTS or matrices). */
SKS_TARGET_SSE41 static inline void qts4_parent_from_out(qts4 *par, float *const dst[4], size_t p,
                                                         int matrix)
{
    const float *src[4] = {dst[0], dst[1], dst[2], dst[3]};
    if (!matrix) {
        qts4_load(par, src, p);
        sks_quat4_scaled_rotation(par->m, par->q, par->s);
    } else {
        float x[8][8], m[9][8];
        int c;
        matrix_parent_scalar(x, m, src, 4, p);
        par->q.x = _mm_loadu_ps(x[0]); par->q.y = _mm_loadu_ps(x[1]);
        par->q.z = _mm_loadu_ps(x[2]); par->q.w = _mm_loadu_ps(x[3]);
        for (c = 0; c < 3; c++) par->t[c] = _mm_loadu_ps(x[4 + c]);
        par->s = _mm_loadu_ps(x[7]);
        for (c = 0; c < 9; c++) par->m[c] = _mm_loadu_ps(m[c]);
    }
}

SKS_TARGET_SSE41 static void walk4_sse41(float *const dst[4], const float *const src[4], size_t nvalid,
                                         const int32_t *parents, size_t start, size_t stop,
                                         float *scratch, int matrix)
{
    size_t j, l;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        qts4 g, par, loc;
        qts4_load(&loc, src, j);
        if (p < 0) {
            g = loc;
        } else {
            int c;
            if ((size_t)p >= start) {
                qts4_rec_load(&par, scratch + (size_t)p * REC * 4);
            } else {
                qts4_parent_from_out(&par, dst, (size_t)p, matrix);
            }
            g.q = sks_quat4_mul(par.q, loc.q);
            for (c = 0; c < 3; c++)
                g.t[c] = sks_row_dot3_sse41(par.m + 3 * c, loc.t[0], loc.t[1], loc.t[2], par.t[c]);
            g.s = _mm_mul_ps(par.s, loc.s);
        }
        sks_quat4_scaled_rotation(g.m, g.q, g.s);
        qts4_rec_store(scratch + j * REC * 4, &g);
        if (matrix) {
            float *mdst[4];
            for (l = 0; l < 4; l++) mdst[l] = dst[l] + 12 * j;
            sks_joint_matrices4_store(mdst, nvalid, g.m, g.t);
        } else {
            qts4_store(dst, nvalid, j, &g);
        }
    }
}

SKS_TARGET_SSE41 static void walk_sse41(float *out, const float *local, const int32_t *parents,
                                        size_t batch, size_t joints, size_t start, size_t stop,
                                        float *scratch, int matrix)
{
    const size_t out_stride = (matrix ? 12 : 8) * joints, in_stride = 8 * joints;
    size_t b;
    for (b = 0; b < batch; b += 4) {
        const size_t nvalid = batch - b < 4 ? batch - b : 4;
        float *dst[4];
        const float *src[4];
        if (nvalid == 1) {   /* one skeleton: four lanes would do four times the work */
            walk_scalar(out + b * out_stride, local + b * in_stride, parents, 1, joints, start, stop,
                        scratch, matrix);
            break;
        }
        lane_pointers(dst, src, 4, nvalid, out, local, b, out_stride, in_stride);
        walk4_sse41(dst, src, nvalid, parents, start, stop, scratch, matrix);
    }
}

SKS_TARGET_SSE41 static void local_to_global_sse41(float *out, const float *local,
                                                   const int32_t *parents, size_t batch,
                                                   size_t joints, size_t start, size_t stop,
                                                   float *scratch)
{
    walk_sse41(out, local, parents, batch, joints, start, stop, scratch, 0);
}

SKS_TARGET_SSE41 static void local_to_global_matrix_sse41(float *out, const float *local,
                                                          const int32_t *parents, size_t batch,
                                                          size_t joints, size_t start, size_t stop,
                                                          float *scratch)
{
    walk_sse41(out, local, parents, batch, joints, start, stop, scratch, 1);
}

/* ------------------------------------------------------------------------------------------
 * AVX2: eight skeletons side by side
 * ------------------------------------------------------------------------------------------ */

typedef struct qts8 {
    sks_quat8 q;
    __m256 t[3], s, m[9];
} qts8;

/* Joint j of the eight lanes' skeletons (one 256-bit row each) into SoA, natural lane order. */
SKS_TARGET_AVX2 static inline void qts8_load(qts8 *g, const float *const src[8], size_t j)
{
    __m256 r[8];
    int l;
    for (l = 0; l < 8; l++) r[l] = _mm256_loadu_ps(src[l] + 8 * j);
    sks_transpose8(r);
    g->q.x = r[0]; g->q.y = r[1]; g->q.z = r[2]; g->q.w = r[3];
    g->t[0] = r[4]; g->t[1] = r[5]; g->t[2] = r[6]; g->s = r[7];
}

SKS_TARGET_AVX2 static inline void qts8_store(float *const dst[8], size_t nvalid, size_t j, const qts8 *g)
{
    __m256 r[8];
    size_t l;
    r[0] = g->q.x; r[1] = g->q.y; r[2] = g->q.z; r[3] = g->q.w;
    r[4] = g->t[0]; r[5] = g->t[1]; r[6] = g->t[2]; r[7] = g->s;
    sks_transpose8(r);
    for (l = 0; l < nvalid; l++) _mm256_storeu_ps(dst[l] + 8 * j, r[l]);
}

SKS_TARGET_AVX2 static inline void qts8_rec_store(float *rec, const qts8 *g)
{
    int c;
    _mm256_storeu_ps(rec, g->q.x);
    _mm256_storeu_ps(rec + 8, g->q.y);
    _mm256_storeu_ps(rec + 16, g->q.z);
    _mm256_storeu_ps(rec + 24, g->q.w);
    for (c = 0; c < 3; c++) _mm256_storeu_ps(rec + 32 + 8 * c, g->t[c]);
    _mm256_storeu_ps(rec + 56, g->s);
    for (c = 0; c < 9; c++) _mm256_storeu_ps(rec + 64 + 8 * c, g->m[c]);
}

SKS_TARGET_AVX2 static inline void qts8_rec_load(qts8 *g, const float *rec)
{
    int c;
    g->q.x = _mm256_loadu_ps(rec);
    g->q.y = _mm256_loadu_ps(rec + 8);
    g->q.z = _mm256_loadu_ps(rec + 16);
    g->q.w = _mm256_loadu_ps(rec + 24);
    for (c = 0; c < 3; c++) g->t[c] = _mm256_loadu_ps(rec + 32 + 8 * c);
    g->s = _mm256_loadu_ps(rec + 56);
    for (c = 0; c < 9; c++) g->m[c] = _mm256_loadu_ps(rec + 64 + 8 * c);
}

SKS_TARGET_AVX2 static inline void qts8_parent_from_out(qts8 *par, float *const dst[8], size_t p,
                                                        int matrix)
{
    const float *src[8];
    int l;
    for (l = 0; l < 8; l++) src[l] = dst[l];
    if (!matrix) {
        qts8_load(par, src, p);
        sks_quat8_scaled_rotation(par->m, par->q, par->s);
    } else {
        float x[8][8], m[9][8];
        int c;
        matrix_parent_scalar(x, m, src, 8, p);
        par->q.x = _mm256_loadu_ps(x[0]); par->q.y = _mm256_loadu_ps(x[1]);
        par->q.z = _mm256_loadu_ps(x[2]); par->q.w = _mm256_loadu_ps(x[3]);
        for (c = 0; c < 3; c++) par->t[c] = _mm256_loadu_ps(x[4 + c]);
        par->s = _mm256_loadu_ps(x[7]);
        for (c = 0; c < 9; c++) par->m[c] = _mm256_loadu_ps(m[c]);
    }
}

SKS_TARGET_AVX2 static void walk8_avx2(float *const dst[8], const float *const src[8], size_t nvalid,
                                       const int32_t *parents, size_t start, size_t stop,
                                       float *scratch, int matrix)
{
    size_t j;
    int l;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        qts8 g, par, loc;
        qts8_load(&loc, src, j);
        if (p < 0) {
            g = loc;
        } else {
            int c;
            if ((size_t)p >= start) {
                qts8_rec_load(&par, scratch + (size_t)p * REC * 8);
            } else {
                qts8_parent_from_out(&par, dst, (size_t)p, matrix);
            }
            g.q = sks_quat8_mul(par.q, loc.q);
            for (c = 0; c < 3; c++)
                g.t[c] = sks_row_dot3_avx2(par.m + 3 * c, loc.t[0], loc.t[1], loc.t[2], par.t[c]);
            g.s = _mm256_mul_ps(par.s, loc.s);
        }
        sks_quat8_scaled_rotation(g.m, g.q, g.s);
        qts8_rec_store(scratch + j * REC * 8, &g);
        if (matrix) {
            __m256 rows[12];
            float *mdst[8];
            int c;
            for (c = 0; c < 3; c++) {
                rows[4 * c] = g.m[3 * c];
                rows[4 * c + 1] = g.m[3 * c + 1];
                rows[4 * c + 2] = g.m[3 * c + 2];
                rows[4 * c + 3] = g.t[c];
            }
            for (l = 0; l < 8; l++) mdst[l] = dst[l] + 12 * j;
            sks_joint_matrices8_store(mdst, nvalid, rows);
        } else {
            qts8_store(dst, nvalid, j, &g);
        }
    }
}

SKS_TARGET_AVX2 static void walk_avx2(float *out, const float *local, const int32_t *parents,
                                      size_t batch, size_t joints, size_t start, size_t stop,
                                      float *scratch, int matrix)
{
    const size_t out_stride = (matrix ? 12 : 8) * joints, in_stride = 8 * joints;
    size_t b;
    for (b = 0; b < batch; b += 8) {
        const size_t nvalid = batch - b < 8 ? batch - b : 8;
        float *dst[8];
        const float *src[8];
        if (nvalid <= 4) {   /* the rest fits four lanes (or one skeleton): less wasted work */
            walk_sse41(out + b * out_stride, local + b * in_stride, parents, nvalid, joints, start,
                       stop, scratch, matrix);
            break;
        }
        lane_pointers(dst, src, 8, nvalid, out, local, b, out_stride, in_stride);
        walk8_avx2(dst, src, nvalid, parents, start, stop, scratch, matrix);
    }
}

SKS_TARGET_AVX2 static void local_to_global_avx2(float *out, const float *local,
                                                 const int32_t *parents, size_t batch,
                                                 size_t joints, size_t start, size_t stop,
                                                 float *scratch)
{
    walk_avx2(out, local, parents, batch, joints, start, stop, scratch, 0);
}

SKS_TARGET_AVX2 static void local_to_global_matrix_avx2(float *out, const float *local,
                                                        const int32_t *parents, size_t batch,
                                                        size_t joints, size_t start, size_t stop,
                                                        float *scratch)
{
    walk_avx2(out, local, parents, batch, joints, start, stop, scratch, 1);
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_qts_kernels sks_qts_variants[SKS_ISA_COUNT] = {
    {local_to_global_scalar, local_to_global_matrix_scalar},
    {SKS_SIMD_OR_SCALAR(local_to_global_sse41, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_matrix_sse41, local_to_global_matrix_scalar)},
    {SKS_SIMD_OR_SCALAR(local_to_global_avx2, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_matrix_avx2, local_to_global_matrix_scalar)},
};
