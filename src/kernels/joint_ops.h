/*
 * joint_ops.h -- the 3x4 joint-matrix product on the vector vocabulary, shared by every family
 * that multiplies joint matrices (joints.c: local_to_global, multiply_joints; skinning.c:
 * skinning_palette, float32 and float64). Included by family sources after target.h; one copy
 * per target translation unit. Sharing it is what makes those kernels bit-identical to each
 * other as well as across targets.
 *
 * Element (i, c) of a @ b is ((a[i][0] * b[0][c] + a[i][1] * b[1][c]) + a[i][2] * b[2][c]) + tau,
 * tau = a[i][3] for the translation column c = 3 and +0.0 otherwise (no FMA). Adding the parent's
 * translation last, once, keeps the large global translations out of the other roundings.
 * Error per element: three roundings of partial sums bounded by
 * |a_i0 b_0c| + |a_i1 b_1c| + |a_i2 b_2c|, then one of the result.
 *
 * Two register layouts of joints:
 *   joint_packed   one joint, its 3 rows packed into SKS_JOINT_VECS vectors (rows 0..SKS_ROWS-1
 *                  in the first, ...): 3 vectors on 4-lane targets, 2 on avx2 (rows 0-1, row 2).
 *   joint_rows     SKS_ROWS joints side by side, one per row slot: r[i] holds row i of each
 *                  (several skeletons of a batch walked together; one joint on 4-lane targets).
 * Both multiply the same way: result row = ((a_i0 B0 + a_i1 B1) + a_i2 B2) + (0, 0, 0, a_i3) with
 * B_k the rows of b broadcast (or loaded per slot) and a_ik spread within each row.
 *
 * The float64 product of the float64 walks is here too (joint_mul_f64).
 */
#ifndef SKS_JOINT_OPS_H
#define SKS_JOINT_OPS_H

#include "joints.h"

#define SKS_JOINT_VECS ((3 + SKS_ROWS - 1) / SKS_ROWS)

/* One row of a @ b on every row slot: ((a0 B0 + a1 B1) + a2 B2) + (0, 0, 0, a3). */
static SKS_ALWAYS_INLINE vf joint_row_product(vf a, vf b0, vf b1, vf b2)
{
    const vf s01 = vf_add(vf_mul(vf_splat_in_rows(a, 0), b0), vf_mul(vf_splat_in_rows(a, 1), b1));
    const vf s = vf_add(s01, vf_mul(vf_splat_in_rows(a, 2), b2));
    return vf_add(s, vf_keep_lane3(a));
}

/* ---- one joint, rows packed ---- */

typedef struct joint_packed {
    vf r[SKS_JOINT_VECS];
} joint_packed;

/* Rows held by packed vector k. */
#define SKS_JOINT_ROWS_IN(k) (3 - (k) * SKS_ROWS < SKS_ROWS ? 3 - (k) * SKS_ROWS : SKS_ROWS)

static SKS_ALWAYS_INLINE joint_packed joint_packed_load(const float *m)
{
    joint_packed g;
    int k;
    for (k = 0; k < SKS_JOINT_VECS; k++)
        g.r[k] = vf_load_rows_n(m + 4 * SKS_ROWS * k, (size_t)SKS_JOINT_ROWS_IN(k));
    return g;
}

static SKS_ALWAYS_INLINE void joint_packed_store(float *o, joint_packed g)
{
    int k;
    for (k = 0; k < SKS_JOINT_VECS; k++)
        vf_store_rows_n(o + 4 * SKS_ROWS * k, g.r[k], (size_t)SKS_JOINT_ROWS_IN(k));
}

/* a @ b with a in registers and b in memory. */
static SKS_ALWAYS_INLINE joint_packed joint_packed_mul(joint_packed a, const float *b)
{
    const vf b0 = vf_broadcast_row(b), b1 = vf_broadcast_row(b + 4), b2 = vf_broadcast_row(b + 8);
    joint_packed r;
    int k;
    for (k = 0; k < SKS_JOINT_VECS; k++) r.r[k] = joint_row_product(a.r[k], b0, b1, b2);
    return r;
}

/* o = a @ b in memory; all loads precede the stores, so o may alias a or b. */
static SKS_ALWAYS_INLINE void joint_mul(float *o, const float *a, const float *b)
{
    joint_packed_store(o, joint_packed_mul(joint_packed_load(a), b));
}

/* ---- SKS_ROWS joints side by side, `stride` floats apart ---- */

typedef struct joint_rows {
    vf r[3];
} joint_rows;

static SKS_ALWAYS_INLINE joint_rows joint_rows_load(const float *m, ptrdiff_t stride)
{
    joint_rows g;
    g.r[0] = vf_load_rows(m, stride);
    g.r[1] = vf_load_rows(m + 4, stride);
    g.r[2] = vf_load_rows(m + 8, stride);
    return g;
}

static SKS_ALWAYS_INLINE void joint_rows_store(float *o, ptrdiff_t stride, joint_rows g)
{
    vf_store_rows(o, stride, g.r[0]);
    vf_store_rows(o + 4, stride, g.r[1]);
    vf_store_rows(o + 8, stride, g.r[2]);
}

/* a @ b per slot, b's rows given as vectors (slot s of bk = row k of that slot's b; the same row
 * in every slot for a b shared by all). */
static SKS_ALWAYS_INLINE joint_rows joint_rows_mul_rows(joint_rows a, vf b0, vf b1, vf b2)
{
    joint_rows r;
    r.r[0] = joint_row_product(a.r[0], b0, b1, b2);
    r.r[1] = joint_row_product(a.r[1], b0, b1, b2);
    r.r[2] = joint_row_product(a.r[2], b0, b1, b2);
    return r;
}

/* a @ b per slot, b in memory (slot s at b + s * stride). */
static SKS_ALWAYS_INLINE joint_rows joint_rows_mul(joint_rows a, const float *b, ptrdiff_t stride)
{
    return joint_rows_mul_rows(a, vf_load_rows(b, stride), vf_load_rows(b + 4, stride),
                               vf_load_rows(b + 8, stride));
}

/* ---- float64 ---- */

/* r = p @ l in float64 (p float64, l float32: exact in float64), the order of the float64 walks
 * (local_to_global and skinning_palette with precision="float64"): element (i, c) is
 *     (p[i][0] * l[0][c] + p[i][1] * l[1][c]) + (p[i][2] * l[2][c] + tau)
 * with tau as above; the pairwise order shortens the parent -> child latency. */
static SKS_ALWAYS_INLINE void joint_mul_f64(vd4 r[3], const double *p, const float *l)
{
    const vd4 b0 = vd4_from_floats(l), b1 = vd4_from_floats(l + 4), b2 = vd4_from_floats(l + 8);
    int i;
    for (i = 0; i < 3; i++) {
        const double *prow = p + 4 * i;
        const vd4 s01 = vd4_add(vd4_mul(vd4_broadcast(prow), b0), vd4_mul(vd4_broadcast(prow + 1), b1));
        const vd4 s2 = vd4_add(vd4_mul(vd4_broadcast(prow + 2), b2), vd4_lane3_of(prow + 3));
        r[i] = vd4_add(s01, s2);
    }
}

/* The float32 joint widened: r = l. */
static SKS_ALWAYS_INLINE void joint_widen_f64(vd4 r[3], const float *l)
{
    r[0] = vd4_from_floats(l);
    r[1] = vd4_from_floats(l + 4);
    r[2] = vd4_from_floats(l + 8);
}

/* A global pose of a float64 walk: r = l for a root (p NULL), else p @ l (joint_mul_f64). */
static SKS_ALWAYS_INLINE void joint_global_f64(vd4 r[3], const double *p, const float *l)
{
    if (p == NULL) {
        joint_widen_f64(r, l);
    } else {
        joint_mul_f64(r, p, l);
    }
}

#endif /* SKS_JOINT_OPS_H */
