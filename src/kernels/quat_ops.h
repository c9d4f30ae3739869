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

#endif /* SKS_QUAT_OPS_H */
