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
 * lanes, which store the same values to the same place (no per-lane branch); a rest of at most
 * four skeletons goes to the four-lane walk, and a single skeleton (a batch of 1: per-frame
 * callers) to a walk vectorised within each joint (walk_one_sse41: q, (t, s) and the columns of
 * M as 128-bit vectors; a lone skeleton in eight lanes measured 2.5x slower than scalar). Every
 * variant evaluates the same operations in the same order: results are bit-identical.
 *
 * Speed (1000 humanoids of 96 joints, ns per joint, AVX2 / SSE4.1 / scalar, this machine):
 * QTS output 2.7 / 4.4 / 14; matrix output 3.0 / 5.3 / 15 (3.8 on AVX2 before its walks stored
 * every lane and were specialised per output); one skeleton 7.9 (AVX2) / 8.8 (SSE4.1) against
 * 13.7 for the scalar walk (float32 QTS output, kernel only).
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
 * last valid skeleton: they compute it again and store the same values to the same place (the
 * walks store every lane, with no per-lane branch; in place the repeated lane has read its
 * joint before either lane writes it). */
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

/* ------------------------------------------------------------------------------------------
 * float64 accumulation: qts_local_to_global(_matrix)(..., precision="float64")
 *
 * The float32 walks round every global pose to float32 and the children build on the rounded
 * value, so the error grows with depth ((d + 1) * 2**-23 * max(1, T): 1e-5 on a 96-deep chain).
 * These walks keep the global poses in float64 scratch and round only what they write.
 *
 * QTS output (local_to_global_f64): the float32 walk's formula and order of operations, every
 * operation in float64 (the float32 locals are exact in float64):
 *     q_j = q_P * q_L                          (Hamilton product, quatmath.h's order)
 *     t_j = ((M0 tL0 + M1 tL1) + M2 tL2) + t_P  per row, M = s_P R(q_P / |q_P|) in float64
 *                                               (sks_quat_scaled_rotation_scalar's order)
 *     s_j = s_P s_L
 * and out[j] = float32(q_j, t_j, s_j). A root copies its local joint (exact).
 *
 * Matrix output (local_to_global_matrix_f64): the global 3x4 matrix is carried in float64,
 *     G_j = G_P @ [s_L R(q_L / |q_L|) | t_L]      (the local matrix built in float64)
 * element (i, c) = ((G_P[i][0] L[0][c] + G_P[i][1] L[1][c]) + G_P[i][2] L[2][c]) (+ G_P[i][3]
 * for c = 3, added last), and out[j] = float32(G_j): every element rounded once. Carrying the
 * matrix (not the QTS) keeps a parent before `start`, read from out as a matrix, exact: no
 * matrix_to_qts round trip (the float32 matrix walk takes one); the result is the float64
 * local_to_global(qts_to_matrix(local)) rounded once.
 *
 * Error: the float64 chain is off by at most about (d + 2) * 2**-52 * max(1, T) (d the depth,
 * T the largest global translation), 2**29 times below a float32 ulp, so every output element is
 * its exact value rounded to float32 up to that:
 *     |out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 * max(1, T)    (tested)
 * (96-deep chain with unit quaternions and translations in [-1, 1]: <= 2**-24 * 96 = 5.7e-6 for
 * the largest translations, 1e-6 or less measured against 1e-5 for the float32 walk).
 * Edge cases as in the float32 walk: a zero q rotates as the identity (M = s I), NaN stays in
 * its subtree. Parents before `start` are read from out (float32) and taken as exact (QTS mode:
 * their M computed in float64 from their q and s). out == local is allowed in QTS mode (each
 * local joint is read before its output is written). Every variant evaluates the same float64
 * operations in the same order, no FMA: bit-identical results.
 * ------------------------------------------------------------------------------------------ */

/* float64 record of one global joint: QTS mode q (4), t (3), s (1), M = s R(q) (9); matrix
 * mode the 3x4 matrix (12). SIMD variants keep F64_LANES lanes of each field side by side. */
#define REC64 17
#define F64_LANES 4

size_t sks_qts_f64_scratch_doubles(size_t stop)
{
    return (size_t)REC64 * F64_LANES * stop;
}

/* o = a * b in float64, sks_quat_mul_scalar's order. */
static inline void quat_mul_f64(double o[4], const double *a, const double *b)
{
    const double ax = a[0], ay = a[1], az = a[2], aw = a[3];
    const double bx = b[0], by = b[1], bz = b[2], bw = b[3];
    o[0] = (aw * bx + ax * bw) + (ay * bz - az * by);
    o[1] = (aw * by + ay * bw) + (az * bx - ax * bz);
    o[2] = (aw * bz + az * bw) + (ax * by - ay * bx);
    o[3] = (aw * bw - ax * bx) - (ay * by + az * bz);
}

/* r (row-major 3x3) = scale * R(q / |q|) in float64, sks_quat_scaled_rotation_scalar's order
 * (a zero or NaN n2 gives scale * I, as there). */
static inline void scaled_rotation_f64(double r[9], const double *q, double scale)
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double xx = x * x, yy = y * y, zz = z * z, ww = w * w;
    const double n2 = (xx + zz) + (yy + ww);
    const double h = n2 > 0.0 ? scale / n2 : 0.0, k = h + h;
    const double id = n2 > 0.0 ? 0.0 : scale;
    const double xy = x * y, xz = x * z, yz = y * z, xw = x * w, yw = y * w, zw = z * w;
    r[0] = h * ((ww + xx) - (yy + zz)) + id;
    r[1] = k * (xy - zw);
    r[2] = k * (xz + yw);
    r[3] = k * (xy + zw);
    r[4] = h * ((ww + yy) - (xx + zz)) + id;
    r[5] = k * (yz - xw);
    r[6] = k * (xz - yw);
    r[7] = k * (yz + xw);
    r[8] = h * ((ww + zz) - (xx + yy)) + id;
}

/* ((r0 v0 + r1 v1) + r2 v2) with column step `cs` in v, as in sks_row_dot3_scalar. */
static inline double row_dot3_f64(const double *r, const double *v, size_t cs)
{
    return (r[0] * v[0] + r[1] * v[cs]) + r[2] * v[2 * cs];
}

/* QTS record of a float32 QTS joint (a root, or a parent before start): q, t, s, M. */
static inline void qts_record_f64(double g[REC64], const float *x)
{
    int i;
    for (i = 0; i < 8; i++) g[i] = (double)x[i];
    scaled_rotation_f64(g + 8, g, g[7]);
}

/* g = P (+) L: the QTS record of a child joint from its parent's record and its local joint. */
static inline void qts_compose_f64(double g[REC64], const double *P, const double *l)
{
    int c;
    quat_mul_f64(g, P, l);
    for (c = 0; c < 3; c++) g[4 + c] = row_dot3_f64(P + 8 + 3 * c, l + 4, 1) + P[4 + c];
    g[7] = P[7] * l[7];
    scaled_rotation_f64(g + 8, g, g[7]);
}

/* m = [s R(q) | t] (3x4, float64) of the float32 QTS joint x. */
static inline void local_matrix_f64(double m[12], const float *x)
{
    double q[8], r[9];
    int i;
    for (i = 0; i < 8; i++) q[i] = (double)x[i];
    scaled_rotation_f64(r, q, q[7]);
    for (i = 0; i < 3; i++) {
        m[4 * i] = r[3 * i];
        m[4 * i + 1] = r[3 * i + 1];
        m[4 * i + 2] = r[3 * i + 2];
        m[4 * i + 3] = q[4 + i];
    }
}

/* g = P @ l (3x4 float64 matrices, the bottom row (0 0 0 1) implied). */
static inline void matrix_compose_f64(double g[12], const double *P, const double *l)
{
    int i, c;
    for (i = 0; i < 3; i++) {
        for (c = 0; c < 3; c++) g[4 * i + c] = row_dot3_f64(P + 4 * i, l + c, 4);
        g[4 * i + 3] = row_dot3_f64(P + 4 * i, l + 3, 4) + P[4 * i + 3];
    }
}

/* The float64 walk of one skeleton: records in g (REC64 doubles per joint), float32 results in
 * out (8 floats per joint, or 12 in matrix mode). */
static SKS_ALWAYS_INLINE void walk_one_f64_scalar(float *out, double *g, const float *local,
                                const int32_t *parents, size_t start, size_t stop, int matrix)
{
    const size_t of = matrix ? 12 : 8;
    size_t j;
    int i;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const double *P = NULL;
        double from_out[REC64], *gj = g + REC64 * j;
        if (p >= 0 && (size_t)p < start) {      /* a global computed before this call */
            const float *a = out + of * (size_t)p;
            if (matrix) {
                for (i = 0; i < 12; i++) from_out[i] = (double)a[i];
            } else {
                qts_record_f64(from_out, a);
            }
            P = from_out;
        } else if (p >= 0) {
            P = g + REC64 * (size_t)p;
        }
        if (matrix) {
            double l[12];
            local_matrix_f64(l, local + 8 * j);
            if (P != NULL) {
                matrix_compose_f64(gj, P, l);
            } else {
                memcpy(gj, l, sizeof l);
            }
        } else if (P != NULL) {
            double l[8];
            for (i = 0; i < 8; i++) l[i] = (double)local[8 * j + i];
            qts_compose_f64(gj, P, l);
        } else {
            qts_record_f64(gj, local + 8 * j);
        }
        for (i = 0; i < (int)of; i++) out[of * j + (size_t)i] = (float)gj[i];
    }
}

static SKS_ALWAYS_INLINE void walk_f64_scalar(float *out, const float *local, const int32_t *parents, size_t batch,
                            size_t joints, size_t start, size_t stop, double *scratch, int matrix)
{
    size_t b;
    for (b = 0; b < batch; b++) {
        walk_one_f64_scalar(out + b * joints * (matrix ? 12 : 8), scratch, local + b * joints * 8,
                            parents, start, stop, matrix);
    }
}

static void local_to_global_f64_scalar(float *out, const float *local, const int32_t *parents,
                                       size_t batch, size_t joints, size_t start, size_t stop,
                                       double *scratch)
{
    walk_f64_scalar(out, local, parents, batch, joints, start, stop, scratch, 0);
}

static void local_to_global_matrix_f64_scalar(float *out, const float *local,
                                              const int32_t *parents, size_t batch,
                                              size_t joints, size_t start, size_t stop,
                                              double *scratch)
{
    walk_f64_scalar(out, local, parents, batch, joints, start, stop, scratch, 1);
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

SKS_TARGET_SSE41 static inline void qts4_store(float *const dst[4], size_t j, const qts4 *g)
{
    __m128 a[4], b[4];
    size_t l;
    a[0] = g->q.x; a[1] = g->q.y; a[2] = g->q.z; a[3] = g->q.w;
    b[0] = g->t[0]; b[1] = g->t[1]; b[2] = g->t[2]; b[3] = g->s;
    _MM_TRANSPOSE4_PS(a[0], a[1], a[2], a[3]);
    _MM_TRANSPOSE4_PS(b[0], b[1], b[2], b[3]);
    for (l = 0; l < 4; l++) {
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

SKS_TARGET_SSE41 static SKS_ALWAYS_INLINE void walk4_sse41(float *const dst[4], const float *const src[4],
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
            sks_joint_matrices4_store(mdst, 4, g.m, g.t);
        } else {
            qts4_store(dst, j, &g);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * One skeleton (a batch of 1, and the last skeleton of a batch): SIMD within a joint, 128-bit
 * (SSE4.1; the AVX2 row uses it too). The scalar walk's operations, in its order, lane by lane:
 * the quaternion product with its four products as four vector multiplies (a subtraction
 * a - b evaluated as a + (-b), which IEEE arithmetic defines to be the same), t as
 * ((c0 tL0 + c1 tL1) + c2 tL2) + t_P with c0, c1, c2 the columns of M, and M = s R(q) from the
 * same products and sums as sks_quat_scaled_rotation_scalar. Bit-identical to the scalar walk
 * on finite inputs (a NaN may come out with the other sign bit).
 * ------------------------------------------------------------------------------------------ */

/* A global QTS joint: q, (tx, ty, tz, s) and the columns of M = s R(q) (lane 3 unused). */
typedef struct qts1 {
    __m128 q, ts, c[3];
} qts1;

/* Floats of one joint's record in the scratch (q, ts, c0, c1, c2). */
#define REC1 20

/* (x, y, z, w) with the sign bits of the lanes set in `mask` (1 = x .. 8 = w) flipped. */
SKS_TARGET_SSE41 static inline __m128 flip_signs(__m128 v, int mask)
{
    const __m128 sign = _mm_castsi128_ps(_mm_setr_epi32((mask & 1) ? (int)0x80000000u : 0,
                                                        (mask & 2) ? (int)0x80000000u : 0,
                                                        (mask & 4) ? (int)0x80000000u : 0,
                                                        (mask & 8) ? (int)0x80000000u : 0));
    return _mm_xor_ps(v, sign);
}

/* a * b on one quaternion per vector, sks_quat_mul_scalar's products and sums:
 * A = (aw b) + (ax bw, ay bw, az bw, -ax bx), C = (ay bz, az bx, ax by, ay by) +
 * (-az by, -ax bz, -ay bx, az bz), a * b = A + (C with w negated). */
SKS_TARGET_SSE41 static inline __m128 quat1_mul(__m128 a, __m128 b)
{
    const __m128 p1 = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 3, 3, 3)), b);
    const __m128 p2 = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(0, 2, 1, 0)),
                                 _mm_shuffle_ps(b, b, _MM_SHUFFLE(0, 3, 3, 3)));
    const __m128 p3 = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 2, 1)),
                                 _mm_shuffle_ps(b, b, _MM_SHUFFLE(1, 1, 0, 2)));
    const __m128 p4 = _mm_mul_ps(_mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 1, 0, 2)),
                                 _mm_shuffle_ps(b, b, _MM_SHUFFLE(2, 0, 2, 1)));
    const __m128 sum_a = _mm_add_ps(p1, flip_signs(p2, 8));
    const __m128 sum_c = _mm_add_ps(p3, flip_signs(p4, 7));
    return _mm_add_ps(sum_a, flip_signs(sum_c, 8));
}

/* g->c = columns of s R(q / |q|) from g->q and s = g->ts lane 3 (sks_quat_scaled_rotation_scalar:
 * diagonal h ((ww + xx) - (yy + zz)) + id etc., off-diagonal k (xy -/+ zw) etc.). */
SKS_TARGET_SSE41 static inline void qts1_rotation(qts1 *g)
{
    const __m128 q = g->q, s = _mm_shuffle_ps(g->ts, g->ts, _MM_SHUFFLE(3, 3, 3, 3));
    const __m128 sq = _mm_mul_ps(q, q);                                   /* xx yy zz ww */
    const __m128 half = _mm_add_ps(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(1, 0, 3, 2)));
    const __m128 n2 = _mm_add_ps(half, _mm_shuffle_ps(half, half, _MM_SHUFFLE(2, 3, 0, 1)));
    const __m128 positive = _mm_cmpgt_ps(n2, _mm_setzero_ps());
    const __m128 h = _mm_and_ps(positive, _mm_div_ps(s, n2)), k = _mm_add_ps(h, h);
    const __m128 id = _mm_andnot_ps(positive, s);
    /* (ww + xx, ww + yy, ww + zz) - (yy + zz, xx + zz, xx + yy) */
    const __m128 dl = _mm_add_ps(_mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 3, 3, 3)), sq);
    const __m128 dr = _mm_add_ps(_mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 0, 0, 1)),
                                 _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(3, 1, 2, 2)));
    const __m128 dg = _mm_add_ps(_mm_mul_ps(h, _mm_sub_ps(dl, dr)), id);  /* r00 r11 r22 */
    /* (xy, xz, yz) and (zw, yw, xw) */
    const __m128 pr = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 1, 0, 0)),
                                 _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 2, 2, 1)));
    const __m128 qr = _mm_mul_ps(_mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 0, 1, 2)),
                                 _mm_shuffle_ps(q, q, _MM_SHUFFLE(3, 3, 3, 3)));
    const __m128 kp = _mm_mul_ps(k, _mm_add_ps(pr, qr));                 /* r10 r02 r21 */
    const __m128 km = _mm_mul_ps(k, _mm_sub_ps(pr, qr));                 /* r01 r20 r12 */
    const __m128 c2 = _mm_shuffle_ps(kp, km, _MM_SHUFFLE(2, 2, 1, 1));    /* r02 r02 r12 r12 */
    g->c[0] = _mm_blend_ps(_mm_shuffle_ps(kp, km, _MM_SHUFFLE(1, 1, 0, 0)), dg, 1);
    g->c[1] = _mm_blend_ps(_mm_shuffle_ps(km, kp, _MM_SHUFFLE(2, 2, 0, 0)), dg, 2);
    g->c[2] = _mm_blend_ps(_mm_shuffle_ps(c2, c2, _MM_SHUFFLE(3, 2, 2, 0)), dg, 4);
}

/* g = P (+) (lq, lts): q = q_P q_L, t = ((c0 tL0 + c1 tL1) + c2 tL2) + t_P, s = s_P s_L, M. */
SKS_TARGET_SSE41 static inline void qts1_compose(qts1 *g, const qts1 *P, __m128 lq, __m128 lts)
{
    const __m128 t0 = _mm_shuffle_ps(lts, lts, _MM_SHUFFLE(0, 0, 0, 0));
    const __m128 t1 = _mm_shuffle_ps(lts, lts, _MM_SHUFFLE(1, 1, 1, 1));
    const __m128 t2 = _mm_shuffle_ps(lts, lts, _MM_SHUFFLE(2, 2, 2, 2));
    const __m128 t = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(P->c[0], t0), _mm_mul_ps(P->c[1], t1)),
                                           _mm_mul_ps(P->c[2], t2)),
                                P->ts);
    g->q = quat1_mul(P->q, lq);
    g->ts = _mm_blend_ps(t, _mm_mul_ps(P->ts, lts), 8);
    qts1_rotation(g);
}

SKS_TARGET_SSE41 static inline void qts1_rec_store(float *rec, const qts1 *g)
{
    _mm_storeu_ps(rec, g->q);
    _mm_storeu_ps(rec + 4, g->ts);
    _mm_storeu_ps(rec + 8, g->c[0]);
    _mm_storeu_ps(rec + 12, g->c[1]);
    _mm_storeu_ps(rec + 16, g->c[2]);
}

SKS_TARGET_SSE41 static inline void qts1_rec_load(qts1 *g, const float *rec)
{
    g->q = _mm_loadu_ps(rec);
    g->ts = _mm_loadu_ps(rec + 4);
    g->c[0] = _mm_loadu_ps(rec + 8);
    g->c[1] = _mm_loadu_ps(rec + 12);
    g->c[2] = _mm_loadu_ps(rec + 16);
}

/* A parent before `start`, read from out: a QTS joint, or a matrix (its M and t as they are,
 * q and s from matrix_to_qts, as the scalar walk). */
SKS_TARGET_SSE41 static inline void qts1_parent_from_out(qts1 *par, const float *a, int matrix)
{
    if (!matrix) {
        par->q = _mm_loadu_ps(a);
        par->ts = _mm_loadu_ps(a + 4);
        qts1_rotation(par);
    } else {
        float x[8];
        __m128 r0 = _mm_loadu_ps(a), r1 = _mm_loadu_ps(a + 4), r2 = _mm_loadu_ps(a + 8);
        __m128 r3 = _mm_setzero_ps();
        sks_matrix_to_qts_scalar(x, a);
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);          /* columns of M, then (t, 0) */
        par->q = _mm_loadu_ps(x);
        par->ts = _mm_blend_ps(r3, _mm_set1_ps(x[7]), 8);
        par->c[0] = r0;
        par->c[1] = r1;
        par->c[2] = r2;
    }
}

/* The walk of one skeleton (walk_one_scalar's cases: a root, the previous joint kept in
 * registers, a record in scratch, a parent before start read from out). */
SKS_TARGET_SSE41 static SKS_ALWAYS_INLINE void walk_one_sse41(float *out, const float *local,
                                                              const int32_t *parents, size_t start,
                                                              size_t stop, float *scratch,
                                                              int matrix)
{
    qts1 prev, g, par;
    size_t j;
    prev.q = prev.ts = prev.c[0] = prev.c[1] = prev.c[2] = _mm_setzero_ps();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const __m128 lq = _mm_loadu_ps(local + 8 * j), lts = _mm_loadu_ps(local + 8 * j + 4);
        if (p < 0) {
            g.q = lq;
            g.ts = lts;
            qts1_rotation(&g);
        } else if ((size_t)p + 1 == j && j > start) {
            qts1_compose(&g, &prev, lq, lts);
        } else {
            if ((size_t)p >= start) {
                qts1_rec_load(&par, scratch + REC1 * (size_t)p);
            } else {
                qts1_parent_from_out(&par, out + (matrix ? 12 : 8) * (size_t)p, matrix);
            }
            qts1_compose(&g, &par, lq, lts);
        }
        qts1_rec_store(scratch + REC1 * j, &g);
        if (matrix) {
            __m128 r0 = g.c[0], r1 = g.c[1], r2 = g.c[2], r3 = g.ts;
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(out + 12 * j, r0);
            _mm_storeu_ps(out + 12 * j + 4, r1);
            _mm_storeu_ps(out + 12 * j + 8, r2);
        } else {
            _mm_storeu_ps(out + 8 * j, g.q);
            _mm_storeu_ps(out + 8 * j + 4, g.ts);
        }
        prev = g;
    }
}

SKS_TARGET_SSE41 static SKS_ALWAYS_INLINE void walk_sse41(float *out, const float *local, const int32_t *parents,
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
            walk_one_sse41(out + b * out_stride, local + b * in_stride, parents, start, stop,
                           scratch, matrix);
            break;
        }
        lane_pointers(dst, src, 4, nvalid, out, local, b, out_stride, in_stride);
        walk4_sse41(dst, src, parents, start, stop, scratch, matrix);
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

SKS_TARGET_AVX2 static inline void qts8_store(float *const dst[8], size_t j, const qts8 *g)
{
    __m256 r[8];
    size_t l;
    r[0] = g->q.x; r[1] = g->q.y; r[2] = g->q.z; r[3] = g->q.w;
    r[4] = g->t[0]; r[5] = g->t[1]; r[6] = g->t[2]; r[7] = g->s;
    sks_transpose8(r);
    for (l = 0; l < 8; l++) _mm256_storeu_ps(dst[l] + 8 * j, r[l]);
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

SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void walk8_avx2(float *const dst[8], const float *const src[8],
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
            sks_joint_matrices8_store(mdst, 8, rows);
        } else {
            qts8_store(dst, j, &g);
        }
    }
}

SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void walk_avx2(float *out, const float *local, const int32_t *parents,
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
        walk8_avx2(dst, src, parents, start, stop, scratch, matrix);
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

/* ------------------------------------------------------------------------------------------
 * AVX2 float64 walk: four skeletons side by side, one per double lane (see "float64
 * accumulation" above; the lane operations are the scalar ones in the same order).
 *
 * Every record field is stored to the scratch as soon as it is computed and read back from
 * there (or from the parent's record) where it is needed: no array of 17 vectors lives on the
 * stack. The first version built the record in a local __m256d array and copied it out with a
 * loop, which GCC turned into `rep movsq` (memcpy of 544 bytes): a slow string copy every
 * joint, and the child's 32-byte loads of that record then could not be forwarded from the
 * 8-byte string stores (a store-forwarding stall on the parent -> child chain). The child's
 * M is computed from the q and s still in registers. 1000 humanoids (96 joints): QTS output
 * 11.1 -> 4.7 ns per joint (the scalar float64 walk 14.3, the AVX2 float32 walk 2.7-3.0),
 * matrix output 7.5 -> 6.0.
 * ------------------------------------------------------------------------------------------ */

/* Field f of a four-lane float64 record (F64_LANES doubles per field). */
SKS_TARGET_AVX2 static inline __m256d rec64_get(const double *rec, int f)
{
    return _mm256_loadu_pd(rec + F64_LANES * f);
}

SKS_TARGET_AVX2 static inline void rec64_put(double *rec, int f, __m256d v)
{
    _mm256_storeu_pd(rec + F64_LANES * f, v);
}

/* n floats (a multiple of 4) at src[l] + off of the four lanes, as float64, into the record
 * fields 0 .. n - 1. */
SKS_TARGET_AVX2 static inline void f64x4_load(double *rec, const float *const src[4], size_t off,
                                              int n)
{
    int k;
    for (k = 0; k < n; k += 4) {
        __m128 a = _mm_loadu_ps(src[0] + off + k), b = _mm_loadu_ps(src[1] + off + k);
        __m128 c = _mm_loadu_ps(src[2] + off + k), d = _mm_loadu_ps(src[3] + off + k);
        _MM_TRANSPOSE4_PS(a, b, c, d);
        rec64_put(rec, k, _mm256_cvtps_pd(a));
        rec64_put(rec, k + 1, _mm256_cvtps_pd(b));
        rec64_put(rec, k + 2, _mm256_cvtps_pd(c));
        rec64_put(rec, k + 3, _mm256_cvtps_pd(d));
    }
}

/* The record fields 0 .. n - 1 rounded to float32 and stored as n floats at dst[l] + off per
 * lane. */
SKS_TARGET_AVX2 static inline void f64x4_store(float *const dst[4], size_t off, const double *rec,
                                               int n)
{
    int k;
    for (k = 0; k < n; k += 4) {
        __m128 a = _mm256_cvtpd_ps(rec64_get(rec, k)), b = _mm256_cvtpd_ps(rec64_get(rec, k + 1));
        __m128 c = _mm256_cvtpd_ps(rec64_get(rec, k + 2)), d = _mm256_cvtpd_ps(rec64_get(rec, k + 3));
        _MM_TRANSPOSE4_PS(a, b, c, d);
        _mm_storeu_ps(dst[0] + off + k, a);
        _mm_storeu_ps(dst[1] + off + k, b);
        _mm_storeu_ps(dst[2] + off + k, c);
        _mm_storeu_ps(dst[3] + off + k, d);
    }
}

/* Record fields r[0 .. 8] (row-major 3x3, row i at field 4 i + c when `rs` is 4, 3 i + c when 3)
 * = scale * R(q / |q|) on four lanes (scaled_rotation_f64). */
SKS_TARGET_AVX2 static inline void scaled_rotation_f64x4(double *r, int rs, __m256d x, __m256d y,
                                                         __m256d z, __m256d w, __m256d scale)
{
    const __m256d xx = _mm256_mul_pd(x, x), yy = _mm256_mul_pd(y, y);
    const __m256d zz = _mm256_mul_pd(z, z), ww = _mm256_mul_pd(w, w);
    const __m256d n2 = _mm256_add_pd(_mm256_add_pd(xx, zz), _mm256_add_pd(yy, ww));
    const __m256d pos = _mm256_cmp_pd(n2, _mm256_setzero_pd(), _CMP_GT_OQ);
    const __m256d h = _mm256_and_pd(pos, _mm256_div_pd(scale, n2)), k = _mm256_add_pd(h, h);
    const __m256d id = _mm256_andnot_pd(pos, scale);
    const __m256d xy = _mm256_mul_pd(x, y), xz = _mm256_mul_pd(x, z), yz = _mm256_mul_pd(y, z);
    const __m256d xw = _mm256_mul_pd(x, w), yw = _mm256_mul_pd(y, w), zw = _mm256_mul_pd(z, w);
    rec64_put(r, 0, _mm256_add_pd(_mm256_mul_pd(h, _mm256_sub_pd(_mm256_add_pd(ww, xx), _mm256_add_pd(yy, zz))), id));
    rec64_put(r, 1, _mm256_mul_pd(k, _mm256_sub_pd(xy, zw)));
    rec64_put(r, 2, _mm256_mul_pd(k, _mm256_add_pd(xz, yw)));
    rec64_put(r, rs, _mm256_mul_pd(k, _mm256_add_pd(xy, zw)));
    rec64_put(r, rs + 1, _mm256_add_pd(_mm256_mul_pd(h, _mm256_sub_pd(_mm256_add_pd(ww, yy), _mm256_add_pd(xx, zz))), id));
    rec64_put(r, rs + 2, _mm256_mul_pd(k, _mm256_sub_pd(yz, xw)));
    rec64_put(r, 2 * rs, _mm256_mul_pd(k, _mm256_sub_pd(xz, yw)));
    rec64_put(r, 2 * rs + 1, _mm256_mul_pd(k, _mm256_add_pd(yz, xw)));
    rec64_put(r, 2 * rs + 2, _mm256_add_pd(_mm256_mul_pd(h, _mm256_sub_pd(_mm256_add_pd(ww, zz), _mm256_add_pd(xx, yy))), id));
}

/* The M field (8 .. 16) of a QTS record from its q (0 .. 3) and s (7). */
SKS_TARGET_AVX2 static inline void qts_record_m_f64x4(double *g)
{
    scaled_rotation_f64x4(g + 8 * F64_LANES, 3, rec64_get(g, 0), rec64_get(g, 1), rec64_get(g, 2),
                          rec64_get(g, 3), rec64_get(g, 7));
}

/* (r[0] v[0] + r[1] v[cs]) + r[2] v[2 cs] on four lanes, fields of records r and v (row_dot3_f64). */
SKS_TARGET_AVX2 static inline __m256d row_dot3_f64x4(const double *r, const double *v, int cs)
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(rec64_get(r, 0), rec64_get(v, 0)),
                                       _mm256_mul_pd(rec64_get(r, 1), rec64_get(v, cs))),
                         _mm256_mul_pd(rec64_get(r, 2), rec64_get(v, 2 * cs)));
}

/* Record g = P (+) l on four lanes (qts_compose_f64); l holds the local joint in fields 0 .. 7. */
SKS_TARGET_AVX2 static inline void qts_compose_f64x4(double *g, const double *P, const double *l)
{
    const __m256d ax = rec64_get(P, 0), ay = rec64_get(P, 1), az = rec64_get(P, 2);
    const __m256d aw = rec64_get(P, 3);
    const __m256d bx = rec64_get(l, 0), by = rec64_get(l, 1), bz = rec64_get(l, 2);
    const __m256d bw = rec64_get(l, 3);
    const __m256d x = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(aw, bx), _mm256_mul_pd(ax, bw)),
                                    _mm256_sub_pd(_mm256_mul_pd(ay, bz), _mm256_mul_pd(az, by)));
    const __m256d y = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(aw, by), _mm256_mul_pd(ay, bw)),
                                    _mm256_sub_pd(_mm256_mul_pd(az, bx), _mm256_mul_pd(ax, bz)));
    const __m256d z = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(aw, bz), _mm256_mul_pd(az, bw)),
                                    _mm256_sub_pd(_mm256_mul_pd(ax, by), _mm256_mul_pd(ay, bx)));
    const __m256d w = _mm256_sub_pd(_mm256_sub_pd(_mm256_mul_pd(aw, bw), _mm256_mul_pd(ax, bx)),
                                    _mm256_add_pd(_mm256_mul_pd(ay, by), _mm256_mul_pd(az, bz)));
    const __m256d s = _mm256_mul_pd(rec64_get(P, 7), rec64_get(l, 7));
    int c;
    rec64_put(g, 0, x);
    rec64_put(g, 1, y);
    rec64_put(g, 2, z);
    rec64_put(g, 3, w);
    for (c = 0; c < 3; c++)
        rec64_put(g, 4 + c, _mm256_add_pd(row_dot3_f64x4(P + (8 + 3 * c) * F64_LANES, l + 4 * F64_LANES, 1),
                                          rec64_get(P, 4 + c)));
    rec64_put(g, 7, s);
    /* M from the registers: the q -> M -> child t chain does not wait on the record stores */
    scaled_rotation_f64x4(g + 8 * F64_LANES, 3, x, y, z, w, s);
}

/* Record m = [s R(q) | t] (12 fields, row-major 3x4) of the four-lane local joint x (fields
 * 0 .. 7; local_matrix_f64). */
SKS_TARGET_AVX2 static inline void local_matrix_f64x4(double *m, const double *x)
{
    int i;
    scaled_rotation_f64x4(m, 4, rec64_get(x, 0), rec64_get(x, 1), rec64_get(x, 2), rec64_get(x, 3),
                          rec64_get(x, 7));
    for (i = 0; i < 3; i++) rec64_put(m, 4 * i + 3, rec64_get(x, 4 + i));
}

/* Record g = P @ l (3x4 float64 matrices) on four lanes (matrix_compose_f64). */
SKS_TARGET_AVX2 static inline void matrix_compose_f64x4(double *g, const double *P, const double *l)
{
    int i, c;
    for (i = 0; i < 3; i++) {
        const double *row = P + 4 * i * F64_LANES;
        for (c = 0; c < 3; c++) rec64_put(g, 4 * i + c, row_dot3_f64x4(row, l + c * F64_LANES, 4));
        rec64_put(g, 4 * i + 3, _mm256_add_pd(row_dot3_f64x4(row, l + 3 * F64_LANES, 4),
                                              rec64_get(P, 4 * i + 3)));
    }
}

/* The float64 walk of four skeletons (walk_one_f64_scalar on four lanes). Records in scratch:
 * field f of joint j, lane l at scratch[(REC64 j + f) * 4 + l]. */
SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void walk4_f64_avx2(float *const dst[4], const float *const src[4],
                                           const int32_t *parents, size_t start, size_t stop,
                                           double *scratch, int matrix)
{
    const int nf = matrix ? 12 : 8;
    double before[REC64 * F64_LANES];   /* the record of a parent before start */
    double l[8 * F64_LANES], lm[12 * F64_LANES];   /* the local joint, its matrix */
    size_t j;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        double *rec = scratch + (size_t)REC64 * F64_LANES * j;
        const double *P = NULL;
        if (p >= 0 && (size_t)p < start) {      /* a global computed before this call */
            f64x4_load(before, (const float *const *)dst, (size_t)nf * (size_t)p, nf);
            if (!matrix) qts_record_m_f64x4(before);
            P = before;
        } else if (p >= 0) {
            P = scratch + (size_t)REC64 * F64_LANES * (size_t)p;
        }
        if (matrix) {
            f64x4_load(l, src, 8 * j, 8);
            if (P != NULL) {
                local_matrix_f64x4(lm, l);
                matrix_compose_f64x4(rec, P, lm);
            } else {
                local_matrix_f64x4(rec, l);
            }
        } else if (P != NULL) {
            f64x4_load(l, src, 8 * j, 8);
            qts_compose_f64x4(rec, P, l);
        } else {
            f64x4_load(rec, src, 8 * j, 8);
            qts_record_m_f64x4(rec);
        }
        f64x4_store(dst, (size_t)nf * j, rec, nf);
    }
}

SKS_TARGET_AVX2 static SKS_ALWAYS_INLINE void walk_f64_avx2(float *out, const float *local, const int32_t *parents,
                                          size_t batch, size_t joints, size_t start, size_t stop,
                                          double *scratch, int matrix)
{
    const size_t out_stride = (matrix ? 12 : 8) * joints, in_stride = 8 * joints;
    size_t b = 0;
    for (; b + F64_LANES <= batch; b += F64_LANES) {
        float *dst[4];
        const float *src[4];
        lane_pointers(dst, src, F64_LANES, F64_LANES, out, local, b, out_stride, in_stride);
        walk4_f64_avx2(dst, src, parents, start, stop, scratch, matrix);
    }
    /* the rest (at most three skeletons): one lane each would waste the others */
    walk_f64_scalar(out + b * out_stride, local + b * in_stride, parents, batch - b, joints, start,
                    stop, scratch, matrix);
}

SKS_TARGET_AVX2 static void local_to_global_f64_avx2(float *out, const float *local,
                                                     const int32_t *parents, size_t batch,
                                                     size_t joints, size_t start, size_t stop,
                                                     double *scratch)
{
    walk_f64_avx2(out, local, parents, batch, joints, start, stop, scratch, 0);
}

SKS_TARGET_AVX2 static void local_to_global_matrix_f64_avx2(float *out, const float *local,
                                                            const int32_t *parents, size_t batch,
                                                            size_t joints, size_t start,
                                                            size_t stop, double *scratch)
{
    walk_f64_avx2(out, local, parents, batch, joints, start, stop, scratch, 1);
}

#endif /* SKS_HAVE_X86_SIMD */

/* ------------------------------------------------------------------------------------------
 * The dispatch table, indexed by enum sks_isa
 * ------------------------------------------------------------------------------------------ */

const sks_qts_kernels sks_qts_variants[SKS_ISA_COUNT] = {
    {local_to_global_scalar, local_to_global_matrix_scalar, local_to_global_f64_scalar,
     local_to_global_matrix_f64_scalar},
    {SKS_SIMD_OR_SCALAR(local_to_global_sse41, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_matrix_sse41, local_to_global_matrix_scalar),
     /* float64 walks: SSE4.1 has two double lanes; the scalar float64 walk serves this row */
     local_to_global_f64_scalar, local_to_global_matrix_f64_scalar},
    {SKS_SIMD_OR_SCALAR(local_to_global_avx2, local_to_global_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_matrix_avx2, local_to_global_matrix_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_f64_avx2, local_to_global_f64_scalar),
     SKS_SIMD_OR_SCALAR(local_to_global_matrix_f64_avx2, local_to_global_matrix_f64_scalar)},
};
