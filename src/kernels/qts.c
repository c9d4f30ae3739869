/*
 * qts.c -- the QTS hierarchy walks (see qts.h), written once against the vector vocabulary and
 * compiled per target (target.h).
 *
 * For a joint j with parent p (global P already computed) and local L:
 *     q_j = q_P * q_L                          (quat_ops.h's Hamilton product)
 *     t_j = ((M0 tL0 + M1 tL1) + M2 tL2) + t_P  per row, M = s_P R(q_P / |q_P|)
 *     s_j = s_P s_L
 * The parent's translation is added last (as in the joint family's local_to_global: it keeps
 * the large global translations out of the other roundings), and the rotation is applied as the
 * parent's scaled rotation matrix M (quat_ops.h: diagonal h ((w^2 + x^2) - (y^2 + z^2)) + id,
 * off-diagonal 2h (xy - zw) etc., h = s / |q|^2), so t_j is exactly the translation column of
 * qts_to_matrix(P) @ qts_to_matrix(L). A non-unit q rotates as q / |q| (a zero q as the
 * identity); q_j itself is the raw product. NaN stays in its subtree.
 *
 * Two outputs from the same walk: QTS joints (qts_local_to_global) or the 3x4 matrices
 * [M_j | t_j] (qts_local_to_global_matrix, ozz-animation's LocalToModelJob: the walk computes M_j
 * for j's children anyway). The matrix output is therefore exactly qts_to_matrix of the QTS
 * output. It is more accurate than converting the locals and multiplying matrices (errors of
 * the converted rotations accumulate through the matrix products: 2.2e-6 against 1.6e-6 on
 * random 96-joint trees). In matrix mode a parent before `start` is read from out as a matrix:
 * its M and t are used as they are, its q and s come from matrix_to_qts.
 *
 * Vectorisation, the same body on every target:
 *   - SKS_W skeletons of the batch side by side, one per lane (walk_side_by_side): joint j of
 *     every skeleton is loaded into SoA (quat_ops.h's item order), combined with the parent's
 *     SoA record (q, t, s and the 9 entries of M, written to the caller's scratch when the
 *     parent was computed), and transposed back (or stored as matrices). The last group of a
 *     batch runs the same body with only its skeletons' lanes loaded and stored.
 *   - A rest of at most ROWS_WALK_MAX skeletons (a batch of 1: per-frame callers) walks one
 *     skeleton per row slot, vectorised within each joint (walk_rows: q, (t, s) and the columns
 *     of M as rows; SKS_W lanes for one skeleton would do SKS_W times the work). The previous
 *     joint stays in registers for a child with parents[j] == j - 1 (chains: spine, limbs).
 * Every path evaluates the same operations in the same order: results are bit-identical across
 * targets and paths on finite inputs (a NaN may come out with the other sign bit).
 *
 * Error (unit quaternions and scales, translations in [-1, 1]): <= 2e-6 on random 96-joint
 * trees (1.6e-6 measured); (d + 1) * 2**-23 * max(1, T) for depth d and global translations up
 * to T.
 */
#include "target.h"
#include "qts.h"
#include "quat_ops.h"
#include "quat_scalar.h"

/* A rest of at most this many skeletons (after the groups of SKS_W) walks SKS_ROWS at a time
 * within each joint instead of as one partial side-by-side group: a within-joint walk costs
 * about half of a side-by-side group per skeleton row. */
#define ROWS_WALK_MAX (SKS_W / 2)

/* The caller's scratch (qts.h) holds SKS_QTS_MAX_SIDE_BY_SIDE records per joint. */
typedef char qts_scratch_fits_side_by_side[SKS_W <= SKS_QTS_MAX_SIDE_BY_SIDE ? 1 : -1];

/* The scratch from SKS_QTS_SCRATCH_ALIGN bytes on (its size has that much slack): vector
 * records then never straddle cache lines (a 16-byte-aligned scratch measured 9% slower on the
 * avx2 walks, old and new code alike). */
static SKS_ALWAYS_INLINE void *qts_align_scratch(void *p)
{
    return (void *)(((uintptr_t)p + (SKS_QTS_SCRATCH_ALIGN - 1)) & ~(uintptr_t)(SKS_QTS_SCRATCH_ALIGN - 1));
}

/* ------------------------------------------------------------------------------------------
 * SKS_W skeletons side by side (SoA, item order). Record of a joint in scratch: SKS_QTS_REC (17)
 * fields of SKS_W floats: q (4), t (3), s (1), M = s R(q) (9).
 * ------------------------------------------------------------------------------------------ */

typedef struct qts_soa {
    quat_soa q;
    vf t[3], s, m[9];
} qts_soa;

/* Joint of the first `count` skeletons at p, p + stride, ... (8 floats each) into SoA: q and
 * (t, s) of each skeleton loaded together (one 256-bit load on avx2), in quat_soa_load's item
 * order. */
static SKS_ALWAYS_INLINE void qts_soa_load(qts_soa *g, const float *p, ptrdiff_t stride, size_t count)
{
    vf q[4], ts[4];
    int k;
    for (k = 0; k < 4; k++)
        vf_load_rows2_count(p + k * SKS_ROWS * stride, stride, &q[k], &ts[k], quat_soa_rows_in(count, k));
    vf_transpose4_in_rows(&q[0], &q[1], &q[2], &q[3]);
    vf_transpose4_in_rows(&ts[0], &ts[1], &ts[2], &ts[3]);
    g->q.x = q[0];
    g->q.y = q[1];
    g->q.z = q[2];
    g->q.w = q[3];
    g->t[0] = ts[0];
    g->t[1] = ts[1];
    g->t[2] = ts[2];
    g->s = ts[3];
}

static SKS_ALWAYS_INLINE void qts_soa_store(float *p, ptrdiff_t stride, const qts_soa *g, size_t count)
{
    const quat_soa ts = {g->t[0], g->t[1], g->t[2], g->s};
    quat_soa_store_n(p, stride, g->q, count);
    quat_soa_store_n(p + 4, stride, ts, count);
}

static SKS_ALWAYS_INLINE void qts_soa_rec_store(float *rec, const qts_soa *g)
{
    int c;
    vf_store(rec, g->q.x);
    vf_store(rec + SKS_W, g->q.y);
    vf_store(rec + 2 * SKS_W, g->q.z);
    vf_store(rec + 3 * SKS_W, g->q.w);
    for (c = 0; c < 3; c++) vf_store(rec + (4 + c) * SKS_W, g->t[c]);
    vf_store(rec + 7 * SKS_W, g->s);
    for (c = 0; c < 9; c++) vf_store(rec + (8 + c) * SKS_W, g->m[c]);
}

static SKS_ALWAYS_INLINE void qts_soa_rec_load(qts_soa *g, const float *rec)
{
    int c;
    g->q.x = vf_load(rec);
    g->q.y = vf_load(rec + SKS_W);
    g->q.z = vf_load(rec + 2 * SKS_W);
    g->q.w = vf_load(rec + 3 * SKS_W);
    for (c = 0; c < 3; c++) g->t[c] = vf_load(rec + (4 + c) * SKS_W);
    g->s = vf_load(rec + 7 * SKS_W);
    for (c = 0; c < 9; c++) g->m[c] = vf_load(rec + (8 + c) * SKS_W);
}

/* A parent before `start`, read from out at a (skeletons `stride` floats apart): a QTS joint, or
 * a matrix (its M and t as they are, q and s from matrix_to_qts per skeleton). */
static SKS_ALWAYS_INLINE void qts_soa_parent_from_out(qts_soa *par, const float *a, ptrdiff_t stride,
                                                      int matrix, size_t count)
{
    if (!matrix) {
        qts_soa_load(par, a, stride, count);
        quat_soa_scaled_rotation(par->m, par->q, par->s);
    } else {
        float x[8 * SKS_W];
        size_t l;
        int i;
        for (l = 0; l < count; l++) sks_matrix_to_qts_scalar(x + 8 * l, a + (ptrdiff_t)l * stride);
        par->q = quat_soa_load_n(x, 8, count);
        par->s = quat_soa_load_n(x + 4, 8, count).w;
        for (i = 0; i < 3; i++) {   /* row i of every matrix: (M_i0, M_i1, M_i2, t_i) */
            const quat_soa row = quat_soa_load_n(a + 4 * i, stride, count);
            par->m[3 * i] = row.x;
            par->m[3 * i + 1] = row.y;
            par->m[3 * i + 2] = row.z;
            par->t[i] = row.w;
        }
    }
}

/* Joint matrices [m | t] of the first `count` skeletons (SoA) at out + l stride: rows 0 and 1 of
 * each transposed and stored together (8 contiguous floats: one 256-bit store per skeleton on
 * avx2), then row 2. */
static SKS_ALWAYS_INLINE void qts_matrices_store_n(float *out, ptrdiff_t stride, const vf m[9],
                                                   const vf t[3], size_t count)
{
    vf r0[4] = {m[0], m[1], m[2], t[0]}, r1[4] = {m[3], m[4], m[5], t[1]};
    vf r2[4] = {m[6], m[7], m[8], t[2]};
    int k;
    vf_transpose4_in_rows(&r0[0], &r0[1], &r0[2], &r0[3]);
    vf_transpose4_in_rows(&r1[0], &r1[1], &r1[2], &r1[3]);
    for (k = 0; k < 4; k++)
        vf_store_rows2_count(out + k * SKS_ROWS * stride, stride, r0[k], r1[k], quat_soa_rows_in(count, k));
    vf_transpose4_in_rows(&r2[0], &r2[1], &r2[2], &r2[3]);
    for (k = 0; k < 4; k++)
        vf_store_rows_count(out + k * SKS_ROWS * stride + 8, stride, r2[k], quat_soa_rows_in(count, k));
}

/* The walk of `count` <= SKS_W skeletons (out and local `out_stride` and `in_stride` floats
 * apart); count is a constant in each instance. */
static SKS_ALWAYS_INLINE void walk_side_by_side(float *out, const float *local, const int32_t *parents,
                                                ptrdiff_t out_stride, ptrdiff_t in_stride,
                                                size_t start, size_t stop, float *scratch,
                                                int matrix, size_t count)
{
    const size_t of = matrix ? 12 : 8, rec = (size_t)SKS_QTS_REC * SKS_W;
    size_t j;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        qts_soa g, par, loc;
        qts_soa_load(&loc, local + 8 * j, in_stride, count);
        if (p < 0) {
            g = loc;
        } else {
            int c;
            if ((size_t)p >= start) {
                qts_soa_rec_load(&par, scratch + (size_t)p * rec);
            } else {
                qts_soa_parent_from_out(&par, out + of * (size_t)p, out_stride, matrix, count);
            }
            g.q = quat_soa_mul(par.q, loc.q);
            for (c = 0; c < 3; c++) g.t[c] = row_dot3(par.m + 3 * c, loc.t[0], loc.t[1], loc.t[2], par.t[c]);
            g.s = vf_mul(par.s, loc.s);
        }
        quat_soa_scaled_rotation(g.m, g.q, g.s);
        qts_soa_rec_store(scratch + j * rec, &g);
        if (matrix) {
            qts_matrices_store_n(out + 12 * j, out_stride, g.m, g.t, count);
        } else {
            qts_soa_store(out + 8 * j, out_stride, &g, count);
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Within each joint: one skeleton per row slot (count <= SKS_ROWS skeletons). A global joint is
 * q, (tx, ty, tz, s) and the columns of M = s R(q) (lane 3 unspecified), each one row; its
 * record in scratch is these 5 vectors.
 * ------------------------------------------------------------------------------------------ */

typedef struct qts_rows {
    vf q, ts, c[3];
} qts_rows;

/* Floats of a joint's record for `count` row slots: 5 fields of `count` rows of 4 (a lone
 * skeleton's record is 20 floats on every target: less scratch to bring into the cache). */
#define ROWS_REC(count) (20 * (count))

/* g = P (+) (lq, lts): q = q_P q_L, t = ((c0 tL0 + c1 tL1) + c2 tL2) + t_P, s = s_P s_L, M. */
static SKS_ALWAYS_INLINE void qts_rows_compose(qts_rows *g, const qts_rows *P, vf lq, vf lts)
{
    const vf t = vf_add(vf_add(vf_add(vf_mul(P->c[0], vf_splat_in_rows(lts, 0)),
                                      vf_mul(P->c[1], vf_splat_in_rows(lts, 1))),
                               vf_mul(P->c[2], vf_splat_in_rows(lts, 2))),
                        P->ts);
    g->q = quat_rows_mul(P->q, lq);
    g->ts = vf_blend_in_rows(t, vf_mul(P->ts, lts), 8);
    quat_rows_scaled_rotation(g->c, g->q, vf_splat_in_rows(g->ts, 3));
}

static SKS_ALWAYS_INLINE void qts_rows_rec_store(float *rec, const qts_rows *g, size_t count)
{
    const ptrdiff_t f = 4 * (ptrdiff_t)count;
    vf_store_rows_count(rec, 4, g->q, count);
    vf_store_rows_count(rec + f, 4, g->ts, count);
    vf_store_rows_count(rec + 2 * f, 4, g->c[0], count);
    vf_store_rows_count(rec + 3 * f, 4, g->c[1], count);
    vf_store_rows_count(rec + 4 * f, 4, g->c[2], count);
}

static SKS_ALWAYS_INLINE void qts_rows_rec_load(qts_rows *g, const float *rec, size_t count)
{
    const ptrdiff_t f = 4 * (ptrdiff_t)count;
    g->q = vf_load_rows_count(rec, 4, count);
    g->ts = vf_load_rows_count(rec + f, 4, count);
    g->c[0] = vf_load_rows_count(rec + 2 * f, 4, count);
    g->c[1] = vf_load_rows_count(rec + 3 * f, 4, count);
    g->c[2] = vf_load_rows_count(rec + 4 * f, 4, count);
}

/* A parent before `start`, read from out at a: a QTS joint, or a matrix (its M and t as they
 * are, q and s from matrix_to_qts). */
static SKS_ALWAYS_INLINE void qts_rows_parent_from_out(qts_rows *par, const float *a, ptrdiff_t stride,
                                                       int matrix, size_t count)
{
    if (!matrix) {
        par->q = vf_load_rows_count(a, stride, count);
        par->ts = vf_load_rows_count(a + 4, stride, count);
        quat_rows_scaled_rotation(par->c, par->q, vf_splat_in_rows(par->ts, 3));
    } else {
        float x[8 * SKS_ROWS];
        vf r3 = vf_zero();
        size_t l;
        for (l = 0; l < count; l++) sks_matrix_to_qts_scalar(x + 8 * l, a + (ptrdiff_t)l * stride);
        par->c[0] = vf_load_rows_count(a, stride, count);
        par->c[1] = vf_load_rows_count(a + 4, stride, count);
        par->c[2] = vf_load_rows_count(a + 8, stride, count);
        vf_transpose4_in_rows(&par->c[0], &par->c[1], &par->c[2], &r3);   /* columns of M */
        par->q = vf_load_rows_count(x, 8, count);
        par->ts = vf_load_rows_count(x + 4, 8, count);   /* (t from the matrix, s) */
    }
}

/* The walk of `count` <= SKS_ROWS skeletons, one per row slot; count is a constant in each
 * instance. */
static SKS_ALWAYS_INLINE void walk_rows(float *out, const float *local, const int32_t *parents,
                                        ptrdiff_t out_stride, ptrdiff_t in_stride, size_t start,
                                        size_t stop, float *scratch, int matrix, size_t count)
{
    const size_t of = matrix ? 12 : 8;
    qts_rows prev, g, par;
    size_t j;
    prev.q = prev.ts = prev.c[0] = prev.c[1] = prev.c[2] = vf_zero();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const vf lq = vf_load_rows_count(local + 8 * j, in_stride, count);
        const vf lts = vf_load_rows_count(local + 8 * j + 4, in_stride, count);
        if (p < 0) {
            g.q = lq;
            g.ts = lts;
            quat_rows_scaled_rotation(g.c, g.q, vf_splat_in_rows(g.ts, 3));
        } else if ((size_t)p + 1 == j && j > start) {
            qts_rows_compose(&g, &prev, lq, lts);
        } else {
            if ((size_t)p >= start) {
                qts_rows_rec_load(&par, scratch + ROWS_REC(count) * (size_t)p, count);
            } else {
                qts_rows_parent_from_out(&par, out + of * (size_t)p, out_stride, matrix, count);
            }
            qts_rows_compose(&g, &par, lq, lts);
        }
        qts_rows_rec_store(scratch + ROWS_REC(count) * j, &g, count);
        if (matrix) {
            vf r0 = g.c[0], r1 = g.c[1], r2 = g.c[2], r3 = g.ts;
            vf_transpose4_in_rows(&r0, &r1, &r2, &r3);
            vf_store_rows_count(out + 12 * j, out_stride, r0, count);
            vf_store_rows_count(out + 12 * j + 4, out_stride, r1, count);
            vf_store_rows_count(out + 12 * j + 8, out_stride, r2, count);
        } else {
            vf_store_rows_count(out + 8 * j, out_stride, g.q, count);
            vf_store_rows_count(out + 8 * j + 4, out_stride, g.ts, count);
        }
        prev = g;
    }
}

/* ------------------------------------------------------------------------------------------
 * The batch: groups of SKS_W side by side, then the rest (see ROWS_WALK_MAX).
 * ------------------------------------------------------------------------------------------ */

static SKS_ALWAYS_INLINE void walk(float *out, const float *local, const int32_t *parents, size_t batch,
                                   size_t joints, size_t start, size_t stop, float *scratch,
                                   int matrix)
{
    const ptrdiff_t os = (ptrdiff_t)((matrix ? 12 : 8) * joints), is = (ptrdiff_t)(8 * joints);
    size_t b = 0;
    for (; b + SKS_W <= batch; b += SKS_W)
        walk_side_by_side(out + b * os, local + b * is, parents, os, is, start, stop, scratch, matrix,
                          SKS_W);
    if (batch - b > ROWS_WALK_MAX) {
        walk_side_by_side(out + b * os, local + b * is, parents, os, is, start, stop, scratch, matrix,
                          batch - b);
        return;
    }
    for (; b + SKS_ROWS <= batch; b += SKS_ROWS)
        walk_rows(out + b * os, local + b * is, parents, os, is, start, stop, scratch, matrix, SKS_ROWS);
    if (b < batch) walk_rows(out + b * os, local + b * is, parents, os, is, start, stop, scratch, matrix, 1);
}

static void local_to_global(float *out, const float *local, const int32_t *parents, size_t batch,
                            size_t joints, size_t start, size_t stop, float *scratch)
{
    walk(out, local, parents, batch, joints, start, stop, (float *)qts_align_scratch(scratch), 0);
}

static void local_to_global_matrix(float *out, const float *local, const int32_t *parents,
                                   size_t batch, size_t joints, size_t start, size_t stop,
                                   float *scratch)
{
    walk(out, local, parents, batch, joints, start, stop, (float *)qts_align_scratch(scratch), 1);
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
 *     q_j = q_P * q_L                          (Hamilton product, quat_ops.h's order)
 *     t_j = ((M0 tL0 + M1 tL1) + M2 tL2) + t_P  per row, M = s_P R(q_P / |q_P|) in float64
 *                                               (quat_ops.h's order)
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
 * local joint is read before its output is written).
 *
 * Four skeletons side by side, one per lane of a vd4 (walk4_f64); each record field is stored to
 * the scratch as soon as it is computed and read back from there (or from the parent's record)
 * where it is needed, so no array of 17 vectors lives on the stack and the parent -> child
 * chain goes through plain vector stores and loads; the child's M is computed from the q and s
 * still in registers. A rest of at most three skeletons walks one at a time in plain C
 * (walk_one_f64: the same operations in the same order on doubles).
 * ------------------------------------------------------------------------------------------ */

/* float64 record of one global joint: QTS mode q (4), t (3), s (1), M = s R(q) (9); matrix
 * mode the 3x4 matrix (12); SKS_QTS_F64_LANES lanes of each field side by side. */
#define REC64 SKS_QTS_F64_REC
#define F64_LANES SKS_QTS_F64_LANES

/* Field f of a four-lane float64 record. */
static SKS_ALWAYS_INLINE vd4 rec64_get(const double *rec, int f)
{
    return vd4_load(rec + F64_LANES * f);
}

static SKS_ALWAYS_INLINE void rec64_put(double *rec, int f, vd4 v)
{
    vd4_store(rec + F64_LANES * f, v);
}

/* n floats (a multiple of 4) at p of the four skeletons (`stride` floats apart), as float64,
 * into the record fields 0 .. n - 1. */
static SKS_ALWAYS_INLINE void rec64_load_floats(double *rec, const float *p, ptrdiff_t stride, int n)
{
    int k, c;
    for (k = 0; k < n; k += 4) {
        vd4 v[4];
        vd4_load_floats_transposed(v, p + k, stride);
        for (c = 0; c < 4; c++) rec64_put(rec, k + c, v[c]);
    }
}

/* The record fields 0 .. n - 1 rounded to float32 and stored as n floats at p per skeleton. */
static SKS_ALWAYS_INLINE void rec64_store_floats(float *p, ptrdiff_t stride, const double *rec, int n)
{
    int k, c;
    for (k = 0; k < n; k += 4) {
        vd4 v[4];
        for (c = 0; c < 4; c++) v[c] = rec64_get(rec, k + c);
        vd4_store_floats_transposed(p + k, stride, v);
    }
}

/* Record fields r[0 .. 8] (row-major 3x3, row i at field rs i + c) = scale * R(q / |q|) on four
 * lanes (quat_ops.h's formula and order; a zero or NaN n2 gives scale * I). */
static SKS_ALWAYS_INLINE void scaled_rotation_f64x4(double *r, int rs, vd4 x, vd4 y, vd4 z, vd4 w,
                                                    vd4 scale)
{
    const vd4 zero = vd4_set1(0.0);
    const vd4 xx = vd4_mul(x, x), yy = vd4_mul(y, y), zz = vd4_mul(z, z), ww = vd4_mul(w, w);
    const vd4 n2 = vd4_add(vd4_add(xx, zz), vd4_add(yy, ww));
    const vd4 h = vd4_select_gt(n2, zero, vd4_div(scale, n2), zero), k = vd4_add(h, h);
    const vd4 id = vd4_select_gt(n2, zero, zero, scale);
    const vd4 xy = vd4_mul(x, y), xz = vd4_mul(x, z), yz = vd4_mul(y, z);
    const vd4 xw = vd4_mul(x, w), yw = vd4_mul(y, w), zw = vd4_mul(z, w);
    rec64_put(r, 0, vd4_add(vd4_mul(h, vd4_sub(vd4_add(ww, xx), vd4_add(yy, zz))), id));
    rec64_put(r, 1, vd4_mul(k, vd4_sub(xy, zw)));
    rec64_put(r, 2, vd4_mul(k, vd4_add(xz, yw)));
    rec64_put(r, rs, vd4_mul(k, vd4_add(xy, zw)));
    rec64_put(r, rs + 1, vd4_add(vd4_mul(h, vd4_sub(vd4_add(ww, yy), vd4_add(xx, zz))), id));
    rec64_put(r, rs + 2, vd4_mul(k, vd4_sub(yz, xw)));
    rec64_put(r, 2 * rs, vd4_mul(k, vd4_sub(xz, yw)));
    rec64_put(r, 2 * rs + 1, vd4_mul(k, vd4_add(yz, xw)));
    rec64_put(r, 2 * rs + 2, vd4_add(vd4_mul(h, vd4_sub(vd4_add(ww, zz), vd4_add(xx, yy))), id));
}

/* The M fields (8 .. 16) of a QTS record from its q (0 .. 3) and s (7). */
static SKS_ALWAYS_INLINE void qts_record_m_f64x4(double *g)
{
    scaled_rotation_f64x4(g + 8 * F64_LANES, 3, rec64_get(g, 0), rec64_get(g, 1), rec64_get(g, 2),
                          rec64_get(g, 3), rec64_get(g, 7));
}

/* (r[0] v[0] + r[1] v[cs]) + r[2] v[2 cs] on four lanes, fields of records r and v. */
static SKS_ALWAYS_INLINE vd4 row_dot3_f64x4(const double *r, const double *v, int cs)
{
    return vd4_add(vd4_add(vd4_mul(rec64_get(r, 0), rec64_get(v, 0)), vd4_mul(rec64_get(r, 1), rec64_get(v, cs))),
                   vd4_mul(rec64_get(r, 2), rec64_get(v, 2 * cs)));
}

/* Record g = P (+) l on four lanes; l holds the local joint in fields 0 .. 7. */
static SKS_ALWAYS_INLINE void qts_compose_f64x4(double *g, const double *P, const double *l)
{
    const vd4 ax = rec64_get(P, 0), ay = rec64_get(P, 1), az = rec64_get(P, 2), aw = rec64_get(P, 3);
    const vd4 bx = rec64_get(l, 0), by = rec64_get(l, 1), bz = rec64_get(l, 2), bw = rec64_get(l, 3);
    const vd4 x = vd4_add(vd4_add(vd4_mul(aw, bx), vd4_mul(ax, bw)), vd4_sub(vd4_mul(ay, bz), vd4_mul(az, by)));
    const vd4 y = vd4_add(vd4_add(vd4_mul(aw, by), vd4_mul(ay, bw)), vd4_sub(vd4_mul(az, bx), vd4_mul(ax, bz)));
    const vd4 z = vd4_add(vd4_add(vd4_mul(aw, bz), vd4_mul(az, bw)), vd4_sub(vd4_mul(ax, by), vd4_mul(ay, bx)));
    const vd4 w = vd4_sub(vd4_sub(vd4_mul(aw, bw), vd4_mul(ax, bx)), vd4_add(vd4_mul(ay, by), vd4_mul(az, bz)));
    const vd4 s = vd4_mul(rec64_get(P, 7), rec64_get(l, 7));
    int c;
    rec64_put(g, 0, x);
    rec64_put(g, 1, y);
    rec64_put(g, 2, z);
    rec64_put(g, 3, w);
    for (c = 0; c < 3; c++)
        rec64_put(g, 4 + c, vd4_add(row_dot3_f64x4(P + (8 + 3 * c) * F64_LANES, l + 4 * F64_LANES, 1),
                                    rec64_get(P, 4 + c)));
    rec64_put(g, 7, s);
    /* M from the registers: the q -> M -> child t chain does not wait on the record stores */
    scaled_rotation_f64x4(g + 8 * F64_LANES, 3, x, y, z, w, s);
}

/* Record m = [s R(q) | t] (12 fields, row-major 3x4) of the four-lane local joint x (fields
 * 0 .. 7). */
static SKS_ALWAYS_INLINE void local_matrix_f64x4(double *m, const double *x)
{
    int i;
    scaled_rotation_f64x4(m, 4, rec64_get(x, 0), rec64_get(x, 1), rec64_get(x, 2), rec64_get(x, 3),
                          rec64_get(x, 7));
    for (i = 0; i < 3; i++) rec64_put(m, 4 * i + 3, rec64_get(x, 4 + i));
}

/* Record g = P @ l (3x4 float64 matrices, the bottom row (0 0 0 1) implied) on four lanes. */
static SKS_ALWAYS_INLINE void matrix_compose_f64x4(double *g, const double *P, const double *l)
{
    int i, c;
    for (i = 0; i < 3; i++) {
        const double *row = P + 4 * i * F64_LANES;
        for (c = 0; c < 3; c++) rec64_put(g, 4 * i + c, row_dot3_f64x4(row, l + c * F64_LANES, 4));
        rec64_put(g, 4 * i + 3, vd4_add(row_dot3_f64x4(row, l + 3 * F64_LANES, 4), rec64_get(P, 4 * i + 3)));
    }
}

/* The float64 walk of four skeletons (out and local `out_stride` and `in_stride` floats apart).
 * Records in scratch: field f of joint j, lane l at scratch[(REC64 j + f) * 4 + l]; a parent
 * before `start` gets its record built from out in its own (otherwise unused) slot. */
static SKS_ALWAYS_INLINE void walk4_f64(float *out, const float *local, const int32_t *parents,
                                        ptrdiff_t out_stride, ptrdiff_t in_stride, size_t start,
                                        size_t stop, double *scratch, int matrix)
{
    const int nf = matrix ? 12 : 8;
    double l[8 * F64_LANES], lm[12 * F64_LANES];   /* the local joint, its matrix */
    size_t j;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        double *rec = scratch + (size_t)REC64 * F64_LANES * j;
        double *P = p >= 0 ? scratch + (size_t)REC64 * F64_LANES * (size_t)p : NULL;
        if (p >= 0 && (size_t)p < start) {   /* a global before this call: its record from out */
            rec64_load_floats(P, out + (size_t)nf * (size_t)p, out_stride, nf);
            if (!matrix) qts_record_m_f64x4(P);
        }
        if (matrix) {
            rec64_load_floats(l, local + 8 * j, in_stride, 8);
            if (P != NULL) {
                local_matrix_f64x4(lm, l);
                matrix_compose_f64x4(rec, P, lm);
            } else {
                local_matrix_f64x4(rec, l);
            }
        } else if (P != NULL) {
            rec64_load_floats(l, local + 8 * j, in_stride, 8);
            qts_compose_f64x4(rec, P, l);
        } else {
            rec64_load_floats(rec, local + 8 * j, in_stride, 8);
            qts_record_m_f64x4(rec);
        }
        rec64_store_floats(out + (size_t)nf * j, out_stride, rec, nf);
    }
}

/* ---- one skeleton in plain C: the same operations in the same order, one lane ---- */

/* o = a * b (Hamilton product). */
static inline void quat_mul_f64(double o[4], const double *a, const double *b)
{
    const double ax = a[0], ay = a[1], az = a[2], aw = a[3];
    const double bx = b[0], by = b[1], bz = b[2], bw = b[3];
    o[0] = (aw * bx + ax * bw) + (ay * bz - az * by);
    o[1] = (aw * by + ay * bw) + (az * bx - ax * bz);
    o[2] = (aw * bz + az * bw) + (ax * by - ay * bx);
    o[3] = (aw * bw - ax * bx) - (ay * by + az * bz);
}

/* r (row-major 3x3) = scale * R(q / |q|) (a zero or NaN n2 gives scale * I). */
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

/* (r0 v0 + r1 v[cs]) + r2 v[2 cs]. */
static inline double row_dot3_f64(const double *r, const double *v, size_t cs)
{
    return (r[0] * v[0] + r[1] * v[cs]) + r[2] * v[2 * cs];
}

/* The record of a float32 QTS joint (a root, or a parent before start): q, t, s, M. */
static inline void qts_record_f64(double g[REC64], const float *x)
{
    int i;
    for (i = 0; i < 8; i++) g[i] = (double)x[i];
    scaled_rotation_f64(g + 8, g, g[7]);
}

/* g = P (+) l: the record of a child joint from its parent's record and its local joint. */
static inline void qts_compose_f64(double g[REC64], const double *P, const double *l)
{
    int c;
    quat_mul_f64(g, P, l);
    for (c = 0; c < 3; c++) g[4 + c] = row_dot3_f64(P + 8 + 3 * c, l + 4, 1) + P[4 + c];
    g[7] = P[7] * l[7];
    scaled_rotation_f64(g + 8, g, g[7]);
}

/* m = [s R(q) | t] (3x4) of the float32 QTS joint x. */
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

/* g = P @ l (3x4 matrices, the bottom row (0 0 0 1) implied). */
static inline void matrix_compose_f64(double g[12], const double *P, const double *l)
{
    int i, c;
    for (i = 0; i < 3; i++) {
        for (c = 0; c < 3; c++) g[4 * i + c] = row_dot3_f64(P + 4 * i, l + c, 4);
        g[4 * i + 3] = row_dot3_f64(P + 4 * i, l + 3, 4) + P[4 * i + 3];
    }
}

/* The float64 walk of one skeleton: records in g (REC64 doubles per joint), float32 results in
 * out (8 floats per joint, or 12 in matrix mode); a parent before `start` gets its record built
 * from out in its own slot (one pointer to the parent's record: a local copy measured 25%
 * slower, GCC's SLP vectoriser then loaded the parent's q as pairs just stored as singles). */
static SKS_ALWAYS_INLINE void walk_one_f64(float *out, double *g, const float *local,
                                           const int32_t *parents, size_t start, size_t stop,
                                           int matrix)
{
    const size_t of = matrix ? 12 : 8;
    size_t j;
    int i;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        double *P = p >= 0 ? g + REC64 * (size_t)p : NULL, *gj = g + REC64 * j;
        if (p >= 0 && (size_t)p < start) {   /* a global before this call: its record from out */
            const float *a = out + of * (size_t)p;
            if (matrix) {
                for (i = 0; i < 12; i++) P[i] = (double)a[i];
            } else {
                qts_record_f64(P, a);
            }
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

static SKS_ALWAYS_INLINE void walk_f64(float *out, const float *local, const int32_t *parents,
                                       size_t batch, size_t joints, size_t start, size_t stop,
                                       double *scratch, int matrix)
{
    const ptrdiff_t os = (ptrdiff_t)((matrix ? 12 : 8) * joints), is = (ptrdiff_t)(8 * joints);
    size_t b = 0;
    for (; b + F64_LANES <= batch; b += F64_LANES)
        walk4_f64(out + b * os, local + b * is, parents, os, is, start, stop, scratch, matrix);
    for (; b < batch; b++)
        walk_one_f64(out + b * os, scratch, local + b * is, parents, start, stop, matrix);
}

static void local_to_global_f64(float *out, const float *local, const int32_t *parents,
                                size_t batch, size_t joints, size_t start, size_t stop,
                                double *scratch)
{
    walk_f64(out, local, parents, batch, joints, start, stop, (double *)qts_align_scratch(scratch), 0);
}

static void local_to_global_matrix_f64(float *out, const float *local, const int32_t *parents,
                                       size_t batch, size_t joints, size_t start, size_t stop,
                                       double *scratch)
{
    walk_f64(out, local, parents, batch, joints, start, stop, (double *)qts_align_scratch(scratch), 1);
}

SKS_ROW(qts) = {local_to_global, local_to_global_matrix, local_to_global_f64,
                local_to_global_matrix_f64};
