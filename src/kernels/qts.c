/*
 * qts.c -- the QTS hierarchy walks (see qts.h), as a scalar, an SSE4.1 and an AVX2 variant.
 *
 * qts_local_to_global: for a joint j with parent p (global P already computed) and local L,
 *     q_j = q_P * q_L                          (quatmath.h's Hamilton product)
 *     t_j = ((M0 tL0 + M1 tL1) + M2 tL2) + t_P  per row, M = s_P R(q_P / |q_P|)
 *     s_j = s_P s_L
 *   The parent's translation is added last (as in the joint family's local_to_global: it keeps
 *   the large global translations out of the other roundings), and the rotation is applied as
 *   the parent's scaled rotation matrix, so t_j is exactly the translation column of
 *   qts_to_matrix(P) @ qts_to_matrix(L). A non-unit q rotates as q / |q| (a zero q as the
 *   identity); q_j itself is the raw product.
 *   SIMD: several skeletons of the batch side by side, one per lane (4 for SSE4.1, 8 for AVX2):
 *   joint j of every lane is transposed to SoA, combined with the parent's SoA record from the
 *   scratch (q, t, s and the 9 entries of M, written when the parent was computed), and
 *   transposed back. The last group repeats its last skeleton in unused lanes and stores only
 *   the valid ones. Every variant evaluates the same operations in the same order: results are
 *   bit-identical.
 *   Error: <= 2e-6 on random 96-joint trees with unit quaternions, unit scale and translations
 *   in [-1, 1]; (d + 1) * 2**-23 * max(1, T) for depth d and global translations up to T.
 *
 * qts_local_to_global_matrix: ozz-animation's LocalToModelJob. Chunks of skeletons are converted
 *   to local matrices in the scratch (the quat family's qts_to_matrix, cache-resident) and walked
 *   with the joint family's local_to_global of the same variant, so the result equals
 *   local_to_global(qts_to_matrix(local)) bit for bit and inherits its accuracy.
 */
#include "qts.h"

#include "joints.h"
#include "quat.h"
#include "quatmath.h"

/* Floats of one joint's SoA record per lane: q (4), t (3), s (1), M = s R(q) (9). */
#define REC 17
/* Local matrices converted per chunk of the matrix walk: at most this many floats (256 KB),
 * and at most 16 skeletons (the joint family walks 4 side by side). */
#define CHUNK_FLOATS ((size_t)1 << 16)
#define CHUNK_MAX_SKELETONS 16

static size_t chunk_skeletons(size_t joints)
{
    size_t n = joints ? CHUNK_FLOATS / (12 * joints) : CHUNK_MAX_SKELETONS;
    if (n < 1) n = 1;
    if (n > CHUNK_MAX_SKELETONS) n = CHUNK_MAX_SKELETONS;
    return n;
}

size_t sks_qts_scratch_floats(size_t joints)
{
    const size_t walk = (size_t)REC * 8 * joints;
    const size_t matrix = chunk_skeletons(joints) * 12 * joints;
    return walk > matrix ? walk : matrix;
}

/* ------------------------------------------------------------------------------------------
 * Scalar
 * ------------------------------------------------------------------------------------------ */

/* o = P (+) L, the QTS composition above; o may alias L. */
static inline void qts_compose_scalar(float *o, const float *P, const float *L)
{
    float m[9], r[8];
    sks_quat_scaled_rotation_scalar(m, P, P[7]);
    sks_quat_mul_scalar(r, P, L);
    r[4] = sks_row_dot3_scalar(m, L + 4, P[4]);
    r[5] = sks_row_dot3_scalar(m + 3, L + 4, P[5]);
    r[6] = sks_row_dot3_scalar(m + 6, L + 4, P[6]);
    r[7] = P[7] * L[7];
    memcpy(o, r, sizeof r);
}

static void local_to_global_scalar(float *out, const float *local, const int32_t *parents,
                                   size_t batch, size_t joints, size_t start, size_t stop,
                                   float *scratch)
{
    const size_t stride = 8 * joints;
    size_t b, j;
    (void)scratch;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *l = local + b * stride;
        for (j = start; j < stop; j++) {
            const int32_t p = parents[j];
            if (p < 0) {
                memmove(o + 8 * j, l + 8 * j, 8 * sizeof(float));
            } else {
                qts_compose_scalar(o + 8 * j, o + 8 * (size_t)p, l + 8 * j);
            }
        }
    }
}

/* The matrix walk of one variant: convert a chunk of skeletons, walk it with the joint family. */
static inline void matrix_walk(enum sks_isa isa, float *out, const float *local,
                               const int32_t *parents, size_t batch, size_t joints, size_t start,
                               size_t stop, float *scratch)
{
    const sks_quat_kernels *qk = &sks_quat_variants[isa];
    const sks_joints_kernels *jk = &sks_joints_variants[isa];
    const size_t chunk = chunk_skeletons(joints);
    size_t b0, k;
    for (b0 = 0; b0 < batch; b0 += chunk) {
        const size_t nb = batch - b0 < chunk ? batch - b0 : chunk;
        for (k = 0; k < nb; k++) {
            qk->qts_to_matrix(scratch + (k * joints + start) * 12,
                              local + ((b0 + k) * joints + start) * 8, stop - start);
        }
        jk->local_to_global(out + b0 * joints * 12, scratch, parents, nb, joints, start, stop);
    }
}

static void local_to_global_matrix_scalar(float *out, const float *local, const int32_t *parents,
                                          size_t batch, size_t joints, size_t start, size_t stop,
                                          float *scratch)
{
    matrix_walk(SKS_ISA_SCALAR, out, local, parents, batch, joints, start, stop, scratch);
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
    __m128 a0 = g->q.x, a1 = g->q.y, a2 = g->q.z, a3 = g->q.w;
    __m128 b0 = g->t[0], b1 = g->t[1], b2 = g->t[2], b3 = g->s;
    __m128 a[4], b[4];
    size_t l;
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3);
    _MM_TRANSPOSE4_PS(b0, b1, b2, b3);
    a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
    b[0] = b0; b[1] = b1; b[2] = b2; b[3] = b3;
    for (l = 0; l < nvalid; l++) {
        _mm_storeu_ps(dst[l] + 8 * j, a[l]);
        _mm_storeu_ps(dst[l] + 8 * j + 4, b[l]);
    }
}

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

SKS_TARGET_SSE41 static void walk4_sse41(float *const dst[4], const float *const src[4], size_t nvalid,
                                         const int32_t *parents, size_t start, size_t stop,
                                         float *scratch)
{
    const float *dst_c[4] = {dst[0], dst[1], dst[2], dst[3]};
    size_t j;
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
                qts4_load(&par, dst_c, (size_t)p);
                sks_quat4_scaled_rotation(par.m, par.q, par.s);
            }
            g.q = sks_quat4_mul(par.q, loc.q);
            for (c = 0; c < 3; c++)
                g.t[c] = sks_row_dot3_sse41(par.m + 3 * c, loc.t[0], loc.t[1], loc.t[2], par.t[c]);
            g.s = _mm_mul_ps(par.s, loc.s);
        }
        sks_quat4_scaled_rotation(g.m, g.q, g.s);
        qts4_rec_store(scratch + j * REC * 4, &g);
        qts4_store(dst, nvalid, j, &g);
    }
}

SKS_TARGET_SSE41 static void local_to_global_sse41(float *out, const float *local,
                                                   const int32_t *parents, size_t batch,
                                                   size_t joints, size_t start, size_t stop,
                                                   float *scratch)
{
    const size_t stride = 8 * joints;
    size_t b;
    for (b = 0; b < batch; b += 4) {
        const size_t nvalid = batch - b < 4 ? batch - b : 4;
        float *dst[4];
        const float *src[4];
        size_t l;
        for (l = 0; l < 4; l++) {
            const size_t k = b + (l < nvalid ? l : nvalid - 1);
            dst[l] = out + k * stride;
            src[l] = local + k * stride;
        }
        walk4_sse41(dst, src, nvalid, parents, start, stop, scratch);
    }
}

SKS_TARGET_SSE41 static void local_to_global_matrix_sse41(float *out, const float *local,
                                                          const int32_t *parents, size_t batch,
                                                          size_t joints, size_t start, size_t stop,
                                                          float *scratch)
{
    matrix_walk(SKS_ISA_SSE41, out, local, parents, batch, joints, start, stop, scratch);
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

SKS_TARGET_AVX2 static void walk8_avx2(float *const dst[8], const float *const src[8], size_t nvalid,
                                       const int32_t *parents, size_t start, size_t stop,
                                       float *scratch)
{
    const float *dst_c[8];
    size_t j;
    int l;
    for (l = 0; l < 8; l++) dst_c[l] = dst[l];
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
                qts8_load(&par, dst_c, (size_t)p);
                sks_quat8_scaled_rotation(par.m, par.q, par.s);
            }
            g.q = sks_quat8_mul(par.q, loc.q);
            for (c = 0; c < 3; c++)
                g.t[c] = sks_row_dot3_avx2(par.m + 3 * c, loc.t[0], loc.t[1], loc.t[2], par.t[c]);
            g.s = _mm256_mul_ps(par.s, loc.s);
        }
        sks_quat8_scaled_rotation(g.m, g.q, g.s);
        qts8_rec_store(scratch + j * REC * 8, &g);
        qts8_store(dst, nvalid, j, &g);
    }
}

SKS_TARGET_AVX2 static void local_to_global_avx2(float *out, const float *local,
                                                 const int32_t *parents, size_t batch,
                                                 size_t joints, size_t start, size_t stop,
                                                 float *scratch)
{
    const size_t stride = 8 * joints;
    size_t b;
    for (b = 0; b < batch; b += 8) {
        const size_t nvalid = batch - b < 8 ? batch - b : 8;
        float *dst[8];
        const float *src[8];
        size_t l;
        for (l = 0; l < 8; l++) {
            const size_t k = b + (l < nvalid ? l : nvalid - 1);
            dst[l] = out + k * stride;
            src[l] = local + k * stride;
        }
        walk8_avx2(dst, src, nvalid, parents, start, stop, scratch);
    }
}

SKS_TARGET_AVX2 static void local_to_global_matrix_avx2(float *out, const float *local,
                                                        const int32_t *parents, size_t batch,
                                                        size_t joints, size_t start, size_t stop,
                                                        float *scratch)
{
    matrix_walk(SKS_ISA_AVX2, out, local, parents, batch, joints, start, stop, scratch);
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
