/*
 * joints.c -- joint-matrix kernels: local_to_global (float32 and float64 walks),
 * global_to_local, multiply_joints, invert_joints (see joints.h for layouts). Written once
 * against the vector vocabulary and compiled per target (target.h).
 *
 * Bit-identical targets: every kernel evaluates each output element with the same operations in
 * the same order on every target (no FMA). For the product of two joints, element (i, c) of
 * a @ b is
 *     ((a[i][0] * b[0][c] + a[i][1] * b[1][c]) + a[i][2] * b[2][c]) + tau
 * with tau = a[i][3] for the translation column c = 3 and tau = +0.0 otherwise (joint_ops.h).
 * Adding the parent's translation last, once, keeps the large global translations out of the
 * other roundings: measured on 2000 random 96-joint trees of depth 16, max error 1.74e-6 against
 * 2.26e-6 for (a0 b0 + a1 b1) + (a2 b2 + tau) and 2.97e-6 for an FMA chain; a correctly rounded
 * float32 sum gives 1.35e-6.
 */
#include "target.h"
#include "joint_ops.h"
#include "walk.h"

/* ------------------------------------------------------------------------------------------
 * Inverses: general (adjugate / determinant) or rigid (transpose)
 * ------------------------------------------------------------------------------------------ */

/* u x v per row slot: (u1 v2 - u2 v1, u2 v0 - u0 v2, u0 v1 - u1 v0, unspecified). */
static SKS_ALWAYS_INLINE vf cross_rows(vf u, vf v)
{
    const vf u_yzx = vf_shuffle_in_rows(u, 1, 2, 0, 3), u_zxy = vf_shuffle_in_rows(u, 2, 0, 1, 3);
    const vf v_yzx = vf_shuffle_in_rows(v, 1, 2, 0, 3), v_zxy = vf_shuffle_in_rows(v, 2, 0, 1, 3);
    return vf_sub(vf_mul(u_yzx, v_zxy), vf_mul(u_zxy, v_yzx));
}

/* The columns of inverse(R) for the rotation part R of the joints whose rows are p0, p1, p2
 * (one joint per row slot); lane 3 is unspecified and no caller lets it reach a stored value
 * (the kernels read lanes 0-2 of each column, and joints_invert's transpose moves the lanes 3 into
 * the fourth row, which is not stored), so no blend clears it:
 *   general: col_k = (p_{k+1} x p_{k+2}) * (1 / det R), det R = (p0_0 c0_0 + p0_1 c0_1) + p0_2 c0_2
 *            with c0 = p1 x p2 (singular R: inf/NaN, IEEE);
 *   rigid:   col_k = p_k (the transpose).
 * cols[k] lane i = inverse(R)[i][k]. */
static SKS_ALWAYS_INLINE void inverse_columns(vf cols[3], vf p0, vf p1, vf p2, int rigid)
{
    if (rigid) {
        cols[0] = p0;
        cols[1] = p1;
        cols[2] = p2;
        return;
    }
    {
        const vf c0 = cross_rows(p1, p2), c1 = cross_rows(p2, p0), c2 = cross_rows(p0, p1);
        const vf m = vf_mul(p0, c0);
        const vf det = vf_add(vf_add(vf_splat_in_rows(m, 0), vf_splat_in_rows(m, 1)),
                              vf_splat_in_rows(m, 2));
        const vf inv_det = vf_div(vf_set1(1.0f), det);
        cols[0] = vf_mul(c0, inv_det);
        cols[1] = vf_mul(c1, inv_det);
        cols[2] = vf_mul(c2, inv_det);
    }
}

/* Row i of inverse(R) @ d: (cols0_i d0 + cols1_i d1) + cols2_i d2. */
#define INVERSE_ROW(cols, i, d0, d1, d2)                                                    \
    vf_add(vf_add(vf_mul(vf_splat_in_rows((cols)[0], i), (d0)),                            \
                  vf_mul(vf_splat_in_rows((cols)[1], i), (d1))),                           \
           vf_mul(vf_splat_in_rows((cols)[2], i), (d2)))

/* o = inverse(p) @ g for `count` <= SKS_ROWS joints side by side (one per row slot: slot s reads
 * p + s * p_stride and g + s * g_stride and writes o + s * o_stride; strides in floats, any
 * sign), computed as inverse(R_p) @ (g - [0 | t_p]) (translation first, as van Waveren's
 * UntransformJoint does). Slots >= count are zero and never stored. Every load precedes every
 * store, so o may alias g, and a slot's o may be another slot's p. */
static SKS_ALWAYS_INLINE void joints_untransform(float *o, ptrdiff_t o_stride, const float *p,
                                                 ptrdiff_t p_stride, const float *g,
                                                 ptrdiff_t g_stride, int rigid, size_t count)
{
    const vf p0 = vf_load_rows_count(p, p_stride, count);
    const vf p1 = vf_load_rows_count(p + 4, p_stride, count);
    const vf p2 = vf_load_rows_count(p + 8, p_stride, count);
    const vf d0 = vf_sub(vf_load_rows_count(g, g_stride, count), vf_keep_lane3(p0));
    const vf d1 = vf_sub(vf_load_rows_count(g + 4, g_stride, count), vf_keep_lane3(p1));
    const vf d2 = vf_sub(vf_load_rows_count(g + 8, g_stride, count), vf_keep_lane3(p2));
    vf cols[3];
    inverse_columns(cols, p0, p1, p2, rigid);
    {
        const vf r0 = INVERSE_ROW(cols, 0, d0, d1, d2);
        const vf r1 = INVERSE_ROW(cols, 1, d0, d1, d2);
        const vf r2 = INVERSE_ROW(cols, 2, d0, d1, d2);
        vf_store_rows_count(o, o_stride, r0, count);
        vf_store_rows_count(o + 4, o_stride, r1, count);
        vf_store_rows_count(o + 8, o_stride, r2, count);
    }
}

/* The `count` <= SKS_ROWS joints at m, m + 12, ... inverted: [R^-1 | -(R^-1 t)], the columns of
 * R^-1 and -(R^-1 t) (a true negation: -((c0_i t0 + c1_i t1) + c2_i t2)) transposed into rows.
 * o may alias m. */
static SKS_ALWAYS_INLINE void joints_invert(float *o, const float *m, int rigid, size_t count)
{
    const vf p0 = vf_load_rows_count(m, SKS_JOINT_FLOATS, count);
    const vf p1 = vf_load_rows_count(m + 4, SKS_JOINT_FLOATS, count);
    const vf p2 = vf_load_rows_count(m + 8, SKS_JOINT_FLOATS, count);
    vf cols[3], t;
    inverse_columns(cols, p0, p1, p2, rigid);
    t = vf_add(vf_add(vf_mul(cols[0], vf_splat_in_rows(p0, 3)), vf_mul(cols[1], vf_splat_in_rows(p1, 3))),
               vf_mul(cols[2], vf_splat_in_rows(p2, 3)));
    t = vf_neg(t);
    vf_transpose4_in_rows(&cols[0], &cols[1], &cols[2], &t);
    vf_store_rows_count(o, SKS_JOINT_FLOATS, cols[0], count);
    vf_store_rows_count(o + 4, SKS_JOINT_FLOATS, cols[1], count);
    vf_store_rows_count(o + 8, SKS_JOINT_FLOATS, cols[2], count);
}

/* ------------------------------------------------------------------------------------------
 * Items form: SKS_W joints of a batch (one per skeleton, `step` floats apart) as 12 vectors,
 * e[4 i + c] holding element (i, c) of every skeleton (vec.h's item order). Row i of the SKS_W
 * joints is loaded as 4 vectors of SKS_ROWS rows and transposed within rows; storing transposes
 * back. Transposes only move bits, so a kernel that computes every element with the scalar
 * operations in their order gives the same bits as the row-slot form.
 * ------------------------------------------------------------------------------------------ */

static SKS_ALWAYS_INLINE void items_load_row(vf e[4], const float *m, ptrdiff_t step)
{
    e[0] = vf_load_rows(m, step);
    e[1] = vf_load_rows(m + SKS_ROWS * step, step);
    e[2] = vf_load_rows(m + 2 * SKS_ROWS * step, step);
    e[3] = vf_load_rows(m + 3 * SKS_ROWS * step, step);
    vf_transpose4_in_rows(&e[0], &e[1], &e[2], &e[3]);
}

static SKS_ALWAYS_INLINE void items_load(vf e[12], const float *m, ptrdiff_t step)
{
    items_load_row(e, m, step);
    items_load_row(e + 4, m + 4, step);
    items_load_row(e + 8, m + 8, step);
}

static SKS_ALWAYS_INLINE void items_store_row(float *o, ptrdiff_t step, vf a, vf b, vf c, vf d)
{
    vf_transpose4_in_rows(&a, &b, &c, &d);
    vf_store_rows(o, step, a);
    vf_store_rows(o + SKS_ROWS * step, step, b);
    vf_store_rows(o + 2 * SKS_ROWS * step, step, c);
    vf_store_rows(o + 3 * SKS_ROWS * step, step, d);
}

/* ------------------------------------------------------------------------------------------
 * local_to_global: the hierarchy walk (van Waveren's TransformSkeleton, Molecular
 * Musings' forward loop)
 *
 * For every skeleton b and start <= j < stop, ascending: out[b,j] = local[b,j] for a root,
 * else out[b,parents[j]] @ local[b,j]. Register forwarding: when parents[j] == j - 1 (chains:
 * spine, limbs, fingers) the parent's global matrix is still in registers and is not reloaded
 * through memory (store forwarding would add its latency to the parent -> child chain).
 * Error: (d + 1) * 2**-23 * max(1, T) for depth d and global translations up to T.
 * ------------------------------------------------------------------------------------------ */

/* Two skeleton groups walked side by side (each group is SKS_ROWS skeletons in the row slots of
 * one set of vectors): two independent chains let the out-of-order core overlap one's latency
 * with the other's (4 skeletons on avx2, 2 on 4-lane targets). Four groups on avx512 (32
 * registers, 8 skeletons) measured slower at 1000 x 96 (2.02 against 1.86 ns per joint): the
 * walk is bound by the shuffle and multiply ports (9 splats, 9 multiplies, 9 adds, 3 blends per
 * row slot and joint), not by the parent -> child latency. The items form (SKS_W skeletons, one
 * lane each, as global_to_local's general inverses use it) measured slower here on every x86
 * target, with or without the parents kept in registers: it removes the splats and blends but
 * adds the transposes of every local joint in and every global joint out, and its 24 live
 * element vectors (parent and local) do not fit avx2's 16 registers. */
#define L2G_SIDE (2 * SKS_ROWS)

/* Calls whose input and output exceed this many bytes stream from DRAM (the whole call's: a
 * thread's chunk of a divided call streams as the call does; chunks of 1,250 of 10,000 x 96
 * skeletons walked side by side took 1.8x the time of the call walked one at a time). There, walking one
 * skeleton at a time was measured faster than several side by side (Zen 4, 32 MB L3, 10,000 x 96:
 * 2.9 ns per joint single, 4.4 four side by side), while in cache side by side wins (1.8 against
 * 2.5 ns per joint at 1000 x 96). */
#define L2G_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)

/* One skeleton, rows packed. Walking a lone skeleton as two streams in the two row slots (a
 * subtree hanging from near the root, e.g. an arm, beside the rest, the second stream lagging
 * until its parents are computed) measured slower on avx512 (humanoid, one call: 5.8 against
 * 5.3 ns per joint; 54 paired steps instead of 96, but the parents of non-chain steps come back
 * through memory and the plan costs a pass over the parents). */
static void walk_one(float *out, const float *local, const int32_t *parents, size_t start,
                     size_t stop)
{
    joint_packed g;
    size_t j;
    int k;
    for (k = 0; k < SKS_JOINT_VECS; k++) g.r[k] = vf_zero();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g = joint_packed_load(local + oj);
        } else if ((size_t)p + 1 == j && j > start) {
            g = joint_packed_mul(g, local + oj);
        } else {
            g = joint_packed_mul(joint_packed_load(out + SKS_JOINT_FLOATS * (size_t)p), local + oj);
        }
        joint_packed_store(out + oj, g);
    }
}

/* L2G_SIDE skeletons, `stride` floats apart: groups g0 (skeletons 0 .. SKS_ROWS - 1) and g1 (the
 * next SKS_ROWS). Two named groups, not an array, and not inlined into the batch loop: either
 * way the compiler kept fewer of the walk's values in registers (avx2: 3-5% slower). */
SKS_NOINLINE static void walk_groups(float *out, const float *local, const int32_t *parents,
                                     size_t stride, size_t start, size_t stop)
{
    const ptrdiff_t s = (ptrdiff_t)stride;
    const size_t group = SKS_ROWS * stride;
    joint_rows g0, g1;
    size_t j;
    int i;
    for (i = 0; i < 3; i++) g0.r[i] = g1.r[i] = vf_zero();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g0 = joint_rows_load(local + oj, s);
            g1 = joint_rows_load(local + group + oj, s);
        } else if ((size_t)p + 1 == j && j > start) {
            g0 = joint_rows_mul(g0, local + oj, s);
            g1 = joint_rows_mul(g1, local + group + oj, s);
        } else {
            const size_t op = SKS_JOINT_FLOATS * (size_t)p;
            g0 = joint_rows_mul(joint_rows_load(out + op, s), local + oj, s);
            g1 = joint_rows_mul(joint_rows_load(out + group + op, s), local + group + oj, s);
        }
        joint_rows_store(out + oj, s, g0);
        joint_rows_store(out + group + oj, s, g1);
    }
}

static void local_to_global(float *out, const float *local, const int32_t *parents, size_t batch,
                            size_t joints, size_t start, size_t stop, size_t call_batch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    const size_t side = L2G_SIDE;
    size_t b = 0;
    if (2 * call_batch * stride * sizeof(float) <= L2G_SIDE_BY_SIDE_MAX_BYTES) {
        for (; b + side <= batch; b += side)
            walk_groups(out + b * stride, local + b * stride, parents, stride, start, stop);
    }
    for (; b < batch; b++) walk_one(out + b * stride, local + b * stride, parents, start, stop);
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
 * `start` are read from out (float32) and taken as exact.
 * ------------------------------------------------------------------------------------------ */

/* Skeletons walked side by side by the float64 walk (at most SKS_L2G_F64_SIDE_BY_SIDE, which
 * sizes the caller's scratch): the 256-bit float64 rows of avx2 keep four chains busy, the
 * 128-bit halves of the 4-lane targets two. */
#define L2G_F64_SIDE_BY_SIDE (SKS_ROWS == 2 ? 4 : 2)

/* One joint of the float64 walk (an sks_step_f64, walk.h): g = p @ l (p NULL: a root, g = l) and
 * o = float32(g). o may alias l (l is read first); g and p are distinct scratch matrices. */
static SKS_ALWAYS_INLINE void joint_step_f64(float *o, double *g, const double *p, const float *l)
{
    vd4 r[3];
    int i;
    joint_global_f64(r, p, l);
    for (i = 0; i < 3; i++) {
        vd4_store(g + 4 * i, r[i]);
        vd4_store_floats(o + 4 * i, r[i]);
    }
}

static void local_to_global_f64(float *out, const float *local, const int32_t *parents,
                                size_t batch, size_t joints, size_t start, size_t stop,
                                double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_JOINT_FLOATS, scratch,
                       L2G_F64_SIDE_BY_SIDE, joint_step_f64);
}

/* ------------------------------------------------------------------------------------------
 * global_to_local (van Waveren's UntransformSkeleton): for start <= j < stop, descending,
 * out[b,j] = global[b,j] for a root, else inverse(global[b,parents[j]]) @ global[b,j];
 * `rigid` takes R^T as the inverse of R. In place works (descending order; a parent is read
 * before any joint at or below its index is written). Two forms, bit-identical to each other:
 *   items     (general inverses, SKS_W skeletons at a time): one lane per skeleton, every
 *             element of the inverse and the product in its own vector, so the product needs
 *             no splats; the cost is in the transposes into and out of that form.
 *   row slots (rigid inverses, and the skeletons left over): one skeleton at a time; on 2-row
 *             targets two joints share a vector (j - 1 and j - 2, when both have a parent),
 *             each row slot evaluating exactly the single-joint operations.
 * ------------------------------------------------------------------------------------------ */

/* Items form (SKS_W skeletons, one lane each, `step` floats apart): o = inverse(P) @ G for the
 * parent P and joint G given as elements (P[4 i + c] = element (i, c)), each element with
 * joints_untransform's operations in its order:
 *   c0 = p1 x p2, c1 = p2 x p0, c2 = p0 x p1 (components u1 v2 - u2 v1, u2 v0 - u0 v2,
 *   u0 v1 - u1 v0), det = (p00 c0_0 + p01 c0_1) + p02 c0_2, inv = 1 / det, col_k = c_k inv;
 *   d_k = row k of G, with d_k3 = g_k3 - p_k3 (the row-slot form also subtracts +0.0 from the
 *         other elements, which leaves every non-NaN value, -0.0 included, as it is, and a NaN
 *         reaches the output through a multiply either way: not repeated here);
 *   out_ic = (col0_i d0c + col1_i d1c) + col2_i d2c.
 * P and G are not modified. */
static SKS_ALWAYS_INLINE void untransform_items(float *o, ptrdiff_t step, const vf P[12],
                                                const vf G[12])
{
    vf cr[9], col[9], d3[3], det, inv;   /* col[3 k + i] = inverse(R)[i][k] */
    int i, k, c;
    for (k = 0; k < 3; k++) {
        const vf *u = P + 4 * ((k + 1) % 3), *v = P + 4 * ((k + 2) % 3);
        cr[3 * k + 0] = vf_sub(vf_mul(u[1], v[2]), vf_mul(u[2], v[1]));
        cr[3 * k + 1] = vf_sub(vf_mul(u[2], v[0]), vf_mul(u[0], v[2]));
        cr[3 * k + 2] = vf_sub(vf_mul(u[0], v[1]), vf_mul(u[1], v[0]));
    }
    det = vf_add(vf_add(vf_mul(P[0], cr[0]), vf_mul(P[1], cr[1])), vf_mul(P[2], cr[2]));
    inv = vf_div(vf_set1(1.0f), det);
    for (k = 0; k < 9; k++) col[k] = vf_mul(cr[k], inv);
    for (k = 0; k < 3; k++) d3[k] = vf_sub(G[4 * k + 3], P[4 * k + 3]);
    for (i = 0; i < 3; i++) {
        vf r[4];
        for (c = 0; c < 3; c++)
            r[c] = vf_add(vf_add(vf_mul(col[i], G[c]), vf_mul(col[3 + i], G[4 + c])),
                          vf_mul(col[6 + i], G[8 + c]));
        r[3] = vf_add(vf_add(vf_mul(col[i], d3[0]), vf_mul(col[3 + i], d3[1])),
                      vf_mul(col[6 + i], d3[2]));
        items_store_row(o + 4 * i, step, r[0], r[1], r[2], r[3]);
    }
}

/* Skeletons 0 .. SKS_W - 1 of `out` / `global` (`stride` floats apart) in items form, joint by
 * joint descending. A joint's parent is loaded (and transposed) once per child; when it is the
 * joint just below (parents[j] == j - 1: chains), it is also the next joint, kept in registers
 * instead of being loaded again (it is read before joint j is stored and is not written until
 * the next step, so in place works as in the row-slot form). */
SKS_NOINLINE static void g2l_items(float *out, const float *global, const int32_t *parents,
                                   size_t stride, size_t start, size_t stop)
{
    const ptrdiff_t step = (ptrdiff_t)stride;
    vf P[12], G[12];
    int have = 0, k;   /* G holds joint j (the previous step's parent) */
    size_t j, s;
    for (j = stop; j-- > start;) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            for (s = 0; s < SKS_W; s++)
                memmove(out + s * stride + oj, global + s * stride + oj,
                        SKS_JOINT_FLOATS * sizeof(float));
            have = 0;
            continue;
        }
        if (!have) items_load(G, global + oj, step);
        items_load(P, global + SKS_JOINT_FLOATS * (size_t)p, step);
        untransform_items(out + oj, step, P, G);
        have = (size_t)p + 1 == j;
        for (k = 0; k < 12; k++) G[k] = P[k];
    }
}

/* One skeleton in row slots: rigid inverses (the items form measured slower there: the
 * transposes cost more than the splats they save), batches below SKS_W and the last
 * batch % SKS_W skeletons. */
static void g2l_one(float *o, const float *g, const int32_t *parents, size_t start, size_t stop,
                    int rigid)
{
    const ptrdiff_t down = -(ptrdiff_t)SKS_JOINT_FLOATS;   /* slot 1 holds the joint below */
    size_t j;
    for (j = stop; j > start;) {
        const int32_t p = parents[j - 1];
        /* Two joints per vector (j - 1 in slot 0, j - 2 in slot 1) when both have a parent:
         * each slot computes exactly the single-joint operations. */
        if (SKS_ROWS >= 2 && j - 1 > start && p >= 0 && parents[j - 2] >= 0) {
            const ptrdiff_t between = (ptrdiff_t)SKS_JOINT_FLOATS * (parents[j - 2] - p);
            joints_untransform(o + SKS_JOINT_FLOATS * (j - 1), down,
                               g + SKS_JOINT_FLOATS * (size_t)p, between,
                               g + SKS_JOINT_FLOATS * (j - 1), down, rigid, SKS_ROWS);
            j -= 2;
            continue;
        }
        j--;
        if (p < 0) {
            memmove(o + SKS_JOINT_FLOATS * j, g + SKS_JOINT_FLOATS * j,
                    SKS_JOINT_FLOATS * sizeof(float));
        } else {
            joints_untransform(o + SKS_JOINT_FLOATS * j, 0, g + SKS_JOINT_FLOATS * (size_t)p, 0,
                               g + SKS_JOINT_FLOATS * j, 0, rigid, 1);
        }
    }
}

static void global_to_local(float *out, const float *global, const int32_t *parents, size_t batch,
                            size_t joints, size_t start, size_t stop, int rigid)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t b = 0;
    if (!rigid) {
        for (; b + SKS_W <= batch; b += SKS_W)
            g2l_items(out + b * stride, global + b * stride, parents, stride, start, stop);
    }
    for (; b < batch; b++)
        g2l_one(out + b * stride, global + b * stride, parents, start, stop, rigid);
}

/* ------------------------------------------------------------------------------------------
 * multiply_joints: out[i] = a[i * a_step] @ b[i * b_step] (steps 0 or 1); out may equal a or b.
 * invert_joints: out[i] = inverse(m[i]); out may equal m.
 * ------------------------------------------------------------------------------------------ */

static void multiply_joints(float *out, const float *a, size_t a_step, const float *b,
                            size_t b_step, size_t n)
{
    size_t i;
    a_step *= SKS_JOINT_FLOATS;
    b_step *= SKS_JOINT_FLOATS;
    for (i = 0; i < n; i++) joint_mul(out + SKS_JOINT_FLOATS * i, a + a_step * i, b + b_step * i);
}

static void invert_joints(float *out, const float *m, size_t n, int rigid)
{
    size_t i = 0;
    for (; i + SKS_ROWS <= n; i += SKS_ROWS)
        joints_invert(out + SKS_JOINT_FLOATS * i, m + SKS_JOINT_FLOATS * i, rigid, SKS_ROWS);
    if (i < n) joints_invert(out + SKS_JOINT_FLOATS * i, m + SKS_JOINT_FLOATS * i, rigid, n - i);
}

SKS_ROW(joints) = {local_to_global, local_to_global_f64, global_to_local, multiply_joints,
                   invert_joints};
