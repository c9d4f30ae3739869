/*
 * quat_ops.h -- quaternion building blocks on the vector vocabulary, shared by the quaternion
 * families (quat.c, blend.c, qts.c). Included by family sources after target.h; one copy per
 * target translation unit.
 *
 * A block is SKS_W quaternions in structure-of-arrays form (quat_soa: one vector per component),
 * in the vocabulary's item order (vec.h: the identity on 4-lane targets; per-item floats loaded
 * with vf_load_items follow the same order). Loads and stores take a step in floats between
 * quaternions (4 for packed quaternions, 8 for the quaternion of QTS joints, 0 to repeat one) and
 * have _n forms that touch only the first n items (tails).
 *
 * The operation order of every helper is fixed (no FMA), so every target gives the same bits:
 *   dot(a, b)     = (ax bx + az bz) + (ay by + aw bw)            (pairwise)
 *   a * b         = Hamilton product: x = (aw bx + ax bw) + (ay bz - az by), y and z cyclic,
 *                   w = (aw bw - ax bx) - (ay by + az bz)
 *   s R(q)        = s times the rotation of q / |q|: with n2 = dot(q, q) and h = s / n2, diagonal
 *                   h ((w^2 + x^2) - (y^2 + z^2)) and cyclic, off-diagonal 2h (xy - zw) etc.; a
 *                   zero quaternion gives s I, so s = 1 gives exactly R(q). The diagonal form
 *                   halves the entries' error against s - 2h (y^2 + z^2) (3.1e-7 -> 2.1e-7).
 *   row . v + tau = ((r0 v0 + r1 v1) + r2 v2) + tau              (translation added last)
 */
#ifndef SKS_QUAT_OPS_H
#define SKS_QUAT_OPS_H

#include "quat_scalar.h"

typedef struct quat_soa {
    vf x, y, z, w;
} quat_soa;

/* Rows loaded by vector k of a block of n items (k = 0..3). */
static SKS_ALWAYS_INLINE size_t quat_soa_rows_in(size_t n, int k)
{
    const size_t first = (size_t)k * SKS_ROWS;
    return n <= first ? 0 : (n - first < SKS_ROWS ? n - first : SKS_ROWS);
}

/* SKS_W quaternions at p, p + step, ... (step in floats; 0 repeats p) into SoA. */
static SKS_ALWAYS_INLINE quat_soa quat_soa_load(const float *p, ptrdiff_t step)
{
    quat_soa q;
    q.x = vf_load_rows(p, step);
    q.y = vf_load_rows(p + SKS_ROWS * step, step);
    q.z = vf_load_rows(p + 2 * SKS_ROWS * step, step);
    q.w = vf_load_rows(p + 3 * SKS_ROWS * step, step);
    vf_transpose4_in_rows(&q.x, &q.y, &q.z, &q.w);
    return q;
}

/* The first n <= SKS_W quaternions only (the other lanes are zero quaternions). */
static SKS_ALWAYS_INLINE quat_soa quat_soa_load_n(const float *p, ptrdiff_t step, size_t n)
{
    quat_soa q;
    q.x = vf_load_rows_count(p, step, quat_soa_rows_in(n, 0));
    q.y = vf_load_rows_count(p + SKS_ROWS * step, step, quat_soa_rows_in(n, 1));
    q.z = vf_load_rows_count(p + 2 * SKS_ROWS * step, step, quat_soa_rows_in(n, 2));
    q.w = vf_load_rows_count(p + 3 * SKS_ROWS * step, step, quat_soa_rows_in(n, 3));
    vf_transpose4_in_rows(&q.x, &q.y, &q.z, &q.w);
    return q;
}

static SKS_ALWAYS_INLINE void quat_soa_store(float *p, ptrdiff_t step, quat_soa q)
{
    vf_transpose4_in_rows(&q.x, &q.y, &q.z, &q.w);
    vf_store_rows(p, step, q.x);
    vf_store_rows(p + SKS_ROWS * step, step, q.y);
    vf_store_rows(p + 2 * SKS_ROWS * step, step, q.z);
    vf_store_rows(p + 3 * SKS_ROWS * step, step, q.w);
}

static SKS_ALWAYS_INLINE void quat_soa_store_n(float *p, ptrdiff_t step, quat_soa q, size_t n)
{
    vf_transpose4_in_rows(&q.x, &q.y, &q.z, &q.w);
    vf_store_rows_count(p, step, q.x, quat_soa_rows_in(n, 0));
    vf_store_rows_count(p + SKS_ROWS * step, step, q.y, quat_soa_rows_in(n, 1));
    vf_store_rows_count(p + 2 * SKS_ROWS * step, step, q.z, quat_soa_rows_in(n, 2));
    vf_store_rows_count(p + 3 * SKS_ROWS * step, step, q.w, quat_soa_rows_in(n, 3));
}

/* One quaternion in every lane. */
static SKS_ALWAYS_INLINE quat_soa quat_soa_splat(const float *p)
{
    quat_soa q;
    q.x = vf_set1(p[0]);
    q.y = vf_set1(p[1]);
    q.z = vf_set1(p[2]);
    q.w = vf_set1(p[3]);
    return q;
}

static SKS_ALWAYS_INLINE vf quat_soa_dot(quat_soa a, quat_soa b)
{
    return vf_add(vf_add(vf_mul(a.x, b.x), vf_mul(a.z, b.z)), vf_add(vf_mul(a.y, b.y), vf_mul(a.w, b.w)));
}

static SKS_ALWAYS_INLINE quat_soa quat_soa_mul(quat_soa a, quat_soa b)
{
    quat_soa r;
    r.x = vf_add(vf_add(vf_mul(a.w, b.x), vf_mul(a.x, b.w)), vf_sub(vf_mul(a.y, b.z), vf_mul(a.z, b.y)));
    r.y = vf_add(vf_add(vf_mul(a.w, b.y), vf_mul(a.y, b.w)), vf_sub(vf_mul(a.z, b.x), vf_mul(a.x, b.z)));
    r.z = vf_add(vf_add(vf_mul(a.w, b.z), vf_mul(a.z, b.w)), vf_sub(vf_mul(a.x, b.y), vf_mul(a.y, b.x)));
    r.w = vf_sub(vf_sub(vf_mul(a.w, b.w), vf_mul(a.x, b.x)), vf_add(vf_mul(a.y, b.y), vf_mul(a.z, b.z)));
    return r;
}

/* r[9] (row-major, SoA) = scale * R(q / |q|); a zero q gives scale * I. */
static SKS_ALWAYS_INLINE void quat_soa_scaled_rotation(vf r[9], quat_soa q, vf scale)
{
    const vf xx = vf_mul(q.x, q.x), yy = vf_mul(q.y, q.y), zz = vf_mul(q.z, q.z), ww = vf_mul(q.w, q.w);
    const vf n2 = vf_add(vf_add(xx, zz), vf_add(yy, ww));
    const vm positive = vf_gt(n2, vf_zero());
    const vf h = vf_if(positive, vf_div(scale, n2)), k = vf_add(h, h);
    const vf id = vf_ifnot(positive, scale);
    const vf xy = vf_mul(q.x, q.y), xz = vf_mul(q.x, q.z), yz = vf_mul(q.y, q.z);
    const vf xw = vf_mul(q.x, q.w), yw = vf_mul(q.y, q.w), zw = vf_mul(q.z, q.w);
    r[0] = vf_add(vf_mul(h, vf_sub(vf_add(ww, xx), vf_add(yy, zz))), id);
    r[1] = vf_mul(k, vf_sub(xy, zw));
    r[2] = vf_mul(k, vf_add(xz, yw));
    r[3] = vf_mul(k, vf_add(xy, zw));
    r[4] = vf_add(vf_mul(h, vf_sub(vf_add(ww, yy), vf_add(xx, zz))), id);
    r[5] = vf_mul(k, vf_sub(yz, xw));
    r[6] = vf_mul(k, vf_sub(xz, yw));
    r[7] = vf_mul(k, vf_add(yz, xw));
    r[8] = vf_add(vf_mul(h, vf_sub(vf_add(ww, zz), vf_add(xx, yy))), id);
}

/* ((r0 v0 + r1 v1) + r2 v2) + tau, lane by lane. */
static SKS_ALWAYS_INLINE vf row_dot3(const vf *r, vf v0, vf v1, vf v2, vf tau)
{
    return vf_add(vf_add(vf_add(vf_mul(r[0], v0), vf_mul(r[1], v1)), vf_mul(r[2], v2)), tau);
}

/* Joint matrices [r | t] of the first n items of a block (r: 9 SoA rotation entries, t: 3 SoA
 * translations) stored at out + item * stride (12 floats each; stride in floats). */
static SKS_ALWAYS_INLINE void joint_matrices_store_n(float *out, ptrdiff_t stride, const vf r[9],
                                                     const vf t[3], size_t n)
{
    int row, k;
    for (row = 0; row < 3; row++) {
        vf v[4];
        v[0] = r[3 * row];
        v[1] = r[3 * row + 1];
        v[2] = r[3 * row + 2];
        v[3] = t[row];
        vf_transpose4_in_rows(&v[0], &v[1], &v[2], &v[3]);
        for (k = 0; k < 4; k++)
            vf_store_rows_count(out + k * SKS_ROWS * stride + 4 * row, stride, v[k],
                                quat_soa_rows_in(n, k));
    }
}

/* ---- added for blend ---- */
/*
 * Memory-order blocks (quat_aos): SKS_W quaternions as loaded, no transpose: vector k holds
 * items k SKS_ROWS + r in its row r (vec.h "Items"). Per-item scalars come out of
 * vf_hsum4_in_rows in item order (the order vf_load_items gives), and vf_splat_in_rows(s, k)
 * spreads them back over the quaternions of vector k. A dot product then costs one in-row
 * reduction and a per-item weight one shuffle per vector, against two 4x4 transposes in and one
 * out for a SoA block: the cheaper form for kernels that only scale and add quaternions
 * (interpolation, blending). Same operation order as quat_soa_dot.
 */
typedef struct quat_aos {
    vf v[4];
} quat_aos;

/* Where vector k of a block starts and the stride between its rows: item i at p + i step (step
 * in floats: 4 packed quaternions, 8 QTS joints, 0 one item repeated) or, when off is set, at
 * p + off[i] (e.g. an index subset of joints; off has SKS_W entries, those past the block's
 * items are read but not used). A vector's rows are at most two items, so with offsets the
 * stride is the difference of theirs. */
typedef char quat_aos_needs_two_rows_at_most[SKS_ROWS <= 2 ? 1 : -1];
#define QUAT_AOS_AT(step, off, k) ((off) ? (off)[(k) * SKS_ROWS] : (ptrdiff_t)(k) * SKS_ROWS * (step))
#define QUAT_AOS_STRIDE(step, off, k) \
    ((off) ? (off)[(k) * SKS_ROWS + SKS_ROWS - 1] - (off)[(k) * SKS_ROWS] : (step))

/* The first n <= SKS_W quaternions of a block (rows of the other items are zero). A constant
 * step and n = SKS_W give plain loads (one 256-bit load per vector on avx2 for step 4, a
 * broadcast for 0). */
static SKS_ALWAYS_INLINE quat_aos quat_aos_load(const float *p, ptrdiff_t step, const ptrdiff_t *off,
                                                  size_t n)
{
    quat_aos q;
    int k;
    for (k = 0; k < 4; k++)
        q.v[k] = vf_load_rows_count(p + QUAT_AOS_AT(step, off, k), QUAT_AOS_STRIDE(step, off, k),
                                    quat_soa_rows_in(n, k));
    return q;
}

static SKS_ALWAYS_INLINE void quat_aos_store(float *p, ptrdiff_t step, const ptrdiff_t *off,
                                              const quat_aos *q, size_t n)
{
    int k;
    for (k = 0; k < 4; k++)
        vf_store_rows_count(p + QUAT_AOS_AT(step, off, k), QUAT_AOS_STRIDE(step, off, k), q->v[k],
                            quat_soa_rows_in(n, k));
}

/* QTS joints (8 floats: quaternion, translation, scale) as two blocks: the quaternions and the
 * (t, s) halves, one row of 8 per joint (vf_load_rows2_count). */
static SKS_ALWAYS_INLINE void qts_aos_load(const float *p, ptrdiff_t step, const ptrdiff_t *off,
                                            size_t n, quat_aos *q, quat_aos *ts)
{
    int k;
    for (k = 0; k < 4; k++)
        vf_load_rows2_count(p + QUAT_AOS_AT(step, off, k), QUAT_AOS_STRIDE(step, off, k), &q->v[k],
                            &ts->v[k], quat_soa_rows_in(n, k));
}

static SKS_ALWAYS_INLINE void qts_aos_store(float *p, ptrdiff_t step, const ptrdiff_t *off,
                                             const quat_aos *q, const quat_aos *ts, size_t n)
{
    int k;
    for (k = 0; k < 4; k++)
        vf_store_rows2_count(p + QUAT_AOS_AT(step, off, k), QUAT_AOS_STRIDE(step, off, k), q->v[k],
                             ts->v[k], quat_soa_rows_in(n, k));
}

/* Per-item dot(a, b) = (ax bx + az bz) + (ay by + aw bw), in item order. */
static SKS_ALWAYS_INLINE vf quat_aos_dot(const quat_aos *a, const quat_aos *b)
{
    return vf_hsum4_in_rows(vf_mul(a->v[0], b->v[0]), vf_mul(a->v[1], b->v[1]),
                            vf_mul(a->v[2], b->v[2]), vf_mul(a->v[3], b->v[3]));
}

/* w0 a + w1 b per item (w0, w1 in item order): (w0 a_c) + (w1 b_c) per component. */
static SKS_ALWAYS_INLINE quat_aos quat_aos_combine(const quat_aos *a, const quat_aos *b, vf w0, vf w1)
{
    quat_aos r;
#define QUAT_AOS_COMBINE(k)                                                                  \
    r.v[k] = vf_add(vf_mul(vf_splat_in_rows(w0, k), a->v[k]), vf_mul(vf_splat_in_rows(w1, k), b->v[k]))
    QUAT_AOS_COMBINE(0);
    QUAT_AOS_COMBINE(1);
    QUAT_AOS_COMBINE(2);
    QUAT_AOS_COMBINE(3);
#undef QUAT_AOS_COMBINE
    return r;
}

/* ---- added for qts ----
 * One quaternion per row slot (lanes x, y, z, w), for walks vectorised within a joint: the same
 * products and sums as the SoA helpers above, in the same order, lane by lane. A subtraction
 * a - b is evaluated as a + (-b) (the same IEEE result; a NaN may come out with the other sign).
 */

/* a * b per row: with p1 = aw b, p2 = (ax bw, ay bw, az bw, ax bx), p3 = (ay bz, az bx, ax by,
 * ay by), p4 = (az by, ax bz, ay bx, az bz): x, y, z = (p1 + p2) + (p3 - p4), w = (p1 - p2) -
 * (p3 + p4). */
static SKS_ALWAYS_INLINE vf quat_rows_mul(vf a, vf b)
{
    const vf w_sign = vf_keep_lane3(vf_set1(-0.0f)), xyz_sign = vf_clear_lane3(vf_set1(-0.0f));
    const vf p1 = vf_mul(vf_splat_in_rows(a, 3), b);
    const vf p2 = vf_mul(vf_shuffle_in_rows(a, 0, 1, 2, 0), vf_shuffle_in_rows(b, 3, 3, 3, 0));
    const vf p3 = vf_mul(vf_shuffle_in_rows(a, 1, 2, 0, 1), vf_shuffle_in_rows(b, 2, 0, 1, 1));
    const vf p4 = vf_mul(vf_shuffle_in_rows(a, 2, 0, 1, 2), vf_shuffle_in_rows(b, 1, 2, 0, 2));
    const vf sum_a = vf_add(p1, vf_xor(p2, w_sign));
    const vf sum_c = vf_add(p3, vf_xor(p4, xyz_sign));
    return vf_add(sum_a, vf_xor(sum_c, w_sign));
}

/* The columns c[0..2] of scale * R(q / |q|) per row (quat_soa_scaled_rotation's formula and
 * order: n2 = (xx + zz) + (yy + ww), h = scale / n2, diagonal h ((ww + xx) - (yy + zz)) + id,
 * off-diagonal 2h (xy - zw) etc.; a zero q gives scale * I). `scale` holds the scale in every
 * lane of its row; lane 3 of each column is unspecified. */
static SKS_ALWAYS_INLINE void quat_rows_scaled_rotation(vf c[3], vf q, vf scale)
{
    const vf sq = vf_mul(q, q);                                            /* xx yy zz ww */
    const vf half = vf_add(sq, vf_shuffle_in_rows(sq, 2, 3, 0, 1));
    const vf n2 = vf_add(half, vf_shuffle_in_rows(half, 1, 0, 3, 2));
    const vm positive = vf_gt(n2, vf_zero());
    const vf h = vf_if(positive, vf_div(scale, n2)), k = vf_add(h, h);
    const vf id = vf_ifnot(positive, scale);
    /* (ww + xx, ww + yy, ww + zz) - (yy + zz, xx + zz, xx + yy) */
    const vf dl = vf_add(vf_splat_in_rows(sq, 3), sq);
    const vf dr = vf_add(vf_shuffle_in_rows(sq, 1, 0, 0, 3), vf_shuffle_in_rows(sq, 2, 2, 1, 3));
    const vf dg = vf_add(vf_mul(h, vf_sub(dl, dr)), id);                   /* r00 r11 r22 */
    /* (xy, xz, yz) and (zw, yw, xw) */
    const vf pr = vf_mul(vf_shuffle_in_rows(q, 0, 0, 1, 3), vf_shuffle_in_rows(q, 1, 2, 2, 3));
    const vf qr = vf_mul(vf_shuffle_in_rows(q, 2, 1, 0, 3), vf_splat_in_rows(q, 3));
    const vf kp = vf_mul(k, vf_add(pr, qr));                               /* r10 r02 r21 */
    const vf km = vf_mul(k, vf_sub(pr, qr));                               /* r01 r20 r12 */
    const vf c2 = vf_shuffle2_in_rows(kp, km, 1, 1, 2, 2);                 /* r02 r02 r12 r12 */
    c[0] = vf_blend_in_rows(vf_shuffle2_in_rows(kp, km, 0, 0, 1, 1), dg, 1);
    c[1] = vf_blend_in_rows(vf_shuffle2_in_rows(km, kp, 0, 0, 2, 2), dg, 2);
    c[2] = vf_blend_in_rows(vf_shuffle_in_rows(c2, 0, 2, 2, 3), dg, 4);
}

#endif /* SKS_QUAT_OPS_H */
