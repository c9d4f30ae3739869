/*
 * skinning.c -- the matrix palette and linear-blend skinning: skinning_palette (float32 and
 * float64), skin and normalize_weights (see skinning.h). Written once against the vector
 * vocabulary and compiled per target (target.h).
 *
 * skinning_palette fuses the joint family's local_to_global and multiply_joints ("The
 * Skeleton Assembly Line", section 5: joints times the precomputed inverse bind pose; the
 * comments on "Adventures in data-oriented design, part 2": build the
 * palette per character in scratch memory). The global pose of each joint is computed, kept in
 * registers for the palette product and for a child that directly follows it, and written only
 * to a small per-call scratch (read back for the other children); the output receives the
 * palette alone. Both products use the joint family's building blocks (joint_ops.h), so the
 * palette is bit-identical to multiply_joints(local_to_global(local), inverse_bind) on every
 * target. On avx2 four skeletons are walked side by side (two groups of two, one skeleton per
 * 128-bit row slot), their global poses kept in scratch as the vectors themselves, so re-reading
 * a parent costs plain loads; the 4-lane targets walk one skeleton at a time.
 *
 * skin: for every vertex the palette matrices of its influences are blended with its weights
 * (M = w0 P0 + w1 P1 + ..., left to right), then M moves the position (and rotates the normal,
 * which is renormalised unless the caller asks for the raw rotated normal, as ozz's SkinningJob
 * leaves it). The palette is first transposed into columns C0..C3 (scratch), so the
 * blend and the transform are whole-register operations: position = ((x C0 + y C1) + z C2) + C3.
 * Weights are used as given (no renormalisation: see normalize_weights); zero weights and
 * repeated joint indices need no special case.
 *
 * Error (u = 2**-24, unit-magnitude data): the blend of K matrices is within about K u times
 * sum_k |w_k| |P_k| per element and the transform adds the 4-term dot product bound of
 * matmul4; measured max abs errors are in skelsimd/skinning.py.
 */
#include "target.h"
#include "skinning.h"
#include "joint_ops.h"

/* ------------------------------------------------------------------------------------------
 * skinning_palette: for each skeleton, G[j] = local[j] (a root) or G[parents[j]] @ local[j]
 * and out[j] = G[j] @ inverse_bind[j], both products joint_ops.h's (element (i, c) is
 * ((a_i0 b_0c + a_i1 b_1c) + a_i2 b_2c) + tau, tau = a_i3 for c = 3, else +0.0).
 * Error: that of local_to_global then multiply_joints.
 * ------------------------------------------------------------------------------------------ */

/* Skeleton groups walked side by side (each SKS_ROWS skeletons, one per row slot): on avx2 two
 * independent chains overlap their latency (four skeletons, whose global poses fill the
 * caller's scratch: SKS_PALETTE_SIDE_BY_SIDE); the 4-lane targets walk one skeleton (two side
 * by side measured up to 9% slower at 1000 x 96, depending on the arrays' placement). */
#define PALETTE_GROUPS (SKS_ROWS == 2 ? 2 : 1)

/* Above this many bytes of input and output of the whole call, skeletons are walked one at a
 * time (streaming from DRAM, several side by side measured slower for the joint family's walk). */
#define PALETTE_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)

/* A group's global pose of one joint in scratch: its three row vectors as they are. */
#define PALETTE_GROUP_FLOATS (3 * SKS_W)

static SKS_ALWAYS_INLINE joint_rows group_scratch_load(const float *s)
{
    joint_rows g;
    int i;
    for (i = 0; i < 3; i++) g.r[i] = vf_load(s + SKS_W * i);
    return g;
}

static SKS_ALWAYS_INLINE void group_scratch_store(float *s, joint_rows g)
{
    int i;
    for (i = 0; i < 3; i++) vf_store(s + SKS_W * i, g.r[i]);
}

/* g @ b per row slot, slot s's b at b + s * stride (stride 0: one b shared by every slot, its
 * rows broadcast by pure loads). */
static SKS_ALWAYS_INLINE joint_rows group_mul(joint_rows g, const float *b, ptrdiff_t stride)
{
    if (stride == 0)
        return joint_rows_mul_rows(g, vf_broadcast_row(b), vf_broadcast_row(b + 4),
                                   vf_broadcast_row(b + 8));
    return joint_rows_mul(g, b, stride);
}

/* PALETTE_GROUPS * SKS_ROWS skeletons side by side: skeleton q's local pose at
 * local + q * l_stride, inverse bind at ib + q * ib_stride, palette at out + q * o_stride. */
static void palette_groups(float *out, size_t o_stride, const float *local, size_t l_stride,
                           const float *ib, size_t ib_stride, const int32_t *parents,
                           size_t joints, float *scratch)
{
    const ptrdiff_t os = (ptrdiff_t)o_stride, ls = (ptrdiff_t)l_stride, is = (ptrdiff_t)ib_stride;
    joint_rows g[PALETTE_GROUPS];
    size_t j;
    int q, i;
    for (q = 0; q < PALETTE_GROUPS; q++)
        for (i = 0; i < 3; i++) g[q].r[i] = vf_zero();
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            for (q = 0; q < PALETTE_GROUPS; q++)
                g[q] = joint_rows_load(local + q * SKS_ROWS * l_stride + oj, ls);
        } else if ((size_t)p + 1 == j) {
            for (q = 0; q < PALETTE_GROUPS; q++)
                g[q] = joint_rows_mul(g[q], local + q * SKS_ROWS * l_stride + oj, ls);
        } else {
            for (q = 0; q < PALETTE_GROUPS; q++) {
                const float *sp = scratch + PALETTE_GROUP_FLOATS * (q * joints + (size_t)p);
                g[q] = joint_rows_mul(group_scratch_load(sp),
                                      local + q * SKS_ROWS * l_stride + oj, ls);
            }
        }
        for (q = 0; q < PALETTE_GROUPS; q++) {
            group_scratch_store(scratch + PALETTE_GROUP_FLOATS * (q * joints + j), g[q]);
            joint_rows_store(out + q * SKS_ROWS * o_stride + oj, os,
                             group_mul(g[q], ib + q * SKS_ROWS * ib_stride + oj, is));
        }
    }
}

/* One skeleton, rows packed. */
static void palette_one(float *out, const float *local, const float *ib, const int32_t *parents,
                        size_t joints, float *scratch)
{
    joint_packed g;
    size_t j;
    int k;
    for (k = 0; k < SKS_JOINT_VECS; k++) g.r[k] = vf_zero();
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        if (p < 0) {
            g = joint_packed_load(local + oj);
        } else if ((size_t)p + 1 == j) {
            g = joint_packed_mul(g, local + oj);
        } else {
            g = joint_packed_mul(joint_packed_load(scratch + SKS_JOINT_FLOATS * (size_t)p),
                                 local + oj);
        }
        joint_packed_store(scratch + oj, g);
        joint_packed_store(out + oj, joint_packed_mul(g, ib + oj));
    }
}

static void skinning_palette(float *out, const float *local, size_t local_step,
                             const float *inverse_bind, size_t ib_step, const int32_t *parents,
                             size_t n, size_t joints, float *scratch, size_t call_n)
{
    const size_t stride = joints * SKS_JOINT_FLOATS, side = (size_t)PALETTE_GROUPS * SKS_ROWS;
    const size_t l_stride = local_step * stride, ib_stride = ib_step * stride;
    size_t s = 0;
    if (side > 1 && 2 * call_n * stride * sizeof(float) <= PALETTE_SIDE_BY_SIDE_MAX_BYTES) {
        for (; s + side <= n; s += side)
            palette_groups(out + s * stride, stride, local + s * l_stride, l_stride,
                           inverse_bind + s * ib_stride, ib_stride, parents, joints, scratch);
    }
    for (; s < n; s++)
        palette_one(out + s * stride, local + s * l_stride, inverse_bind + s * ib_stride, parents,
                    joints, scratch);
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
 * (joint_mul_f64, joint_ops.h: a float64, b float32 and exact in float64; the pairwise order is
 * that of the joint family's local_to_global(..., precision="float64")), joint j of a skeleton is
 *     G[j] = local[j] converted (a root) or G[parents[j]] @ local[j],
 *     out[j] = float32(G[j] @ ib[j]).
 * Error: the float64 values are off by at most about (d + 3) * 2**-52 * max(1, T) * max(1, |ib|)
 * for depth d and global translations up to T, far below a float32 ulp, so each palette element
 * is its exact value rounded to float32 up to that:
 *     |out - exact| <= 2**-24 * |exact| + (d + 3) * 2**-52 * max(1, T) * max(1, |ib|)  (tested
 * against 2**-24 |exact| + 1e-12). out may equal local or inverse_bind (each joint's local and
 * inverse bind are read before its palette is written; the parents come from scratch).
 * ------------------------------------------------------------------------------------------ */

/* Skeletons side by side (at most SKS_PALETTE_SIDE_BY_SIDE, which sizes the scratch): the
 * 256-bit float64 rows of avx2 keep four chains busy, the 128-bit halves elsewhere two. */
#define PALETTE_F64_SIDE_BY_SIDE (SKS_ROWS == 2 ? 4 : 2)

/* One joint of one skeleton: g = p @ l (p NULL: a root, g = l) into scratch, then
 * o = float32(g @ ib). o may alias l or ib. */
static SKS_ALWAYS_INLINE void palette_step_f64(float *o, double *g, const double *p,
                                               const float *l, const float *ib)
{
    vd4 r[3];
    int i;
    joint_global_f64(r, p, l);
    for (i = 0; i < 3; i++) vd4_store(g + 4 * i, r[i]);
    joint_mul_f64(r, g, ib);
    for (i = 0; i < 3; i++) vd4_store_floats(o + 4 * i, r[i]);
}

/* The float64 palettes of `count` skeletons side by side (count is a constant at every call
 * site): skeleton s reads local + s * l_stride and ib + s * ib_stride, writes out + s * stride
 * and keeps its global poses at scratch + s * stride doubles (stride = joints * 12). */
static SKS_ALWAYS_INLINE void palette_walk_f64(float *out, const float *local, size_t l_stride,
                                               const float *ib, size_t ib_stride,
                                               const int32_t *parents, size_t count,
                                               size_t joints, double *scratch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    size_t j, s;
    for (j = 0; j < joints; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_JOINT_FLOATS * j;
        for (s = 0; s < count; s++) {
            double *g = scratch + s * stride;
            palette_step_f64(out + s * stride + oj, g + oj,
                             p < 0 ? NULL : g + SKS_JOINT_FLOATS * (size_t)p,
                             local + s * l_stride + oj, ib + s * ib_stride + oj);
        }
    }
}

static void skinning_palette_f64(float *out, const float *local, size_t local_step,
                                 const float *inverse_bind, size_t ib_step,
                                 const int32_t *parents, size_t n, size_t joints,
                                 double *scratch)
{
    const size_t stride = joints * SKS_JOINT_FLOATS;
    const size_t l_stride = local_step * stride, ib_stride = ib_step * stride;
    size_t s = 0;
    for (; s + PALETTE_F64_SIDE_BY_SIDE <= n; s += PALETTE_F64_SIDE_BY_SIDE)
        palette_walk_f64(out + s * stride, local + s * l_stride, l_stride,
                         inverse_bind + s * ib_stride, ib_stride, parents,
                         PALETTE_F64_SIDE_BY_SIDE, joints, scratch);
    for (; s < n; s++)
        palette_walk_f64(out + s * stride, local + s * l_stride, l_stride,
                         inverse_bind + s * ib_stride, ib_stride, parents, 1, joints, scratch);
}

/* ------------------------------------------------------------------------------------------
 * skin
 *
 * The palette's columns: cols[16 j + 4 k + i] = palette[j][i][k] (i < 3), lane 3 zero. A
 * vertex blends the columns of its influences packed SKS_ROWS to a vector (C0 C1 | C2 C3 on
 * avx2: two operations per influence), then SKS_ROWS vertices are transposed to one per row
 * slot (vf_transpose_rows) and moved together:
 *     position = ((C0 x + C1 y) + C2 z) + C3,
 *     normal = q / |q| with q = (C0 nx + C1 ny) + C2 nz, |q| = sqrt((q0 q0 + q1 q1) + q2 q2),
 *              zero where |q| == 0.
 * On the two-row targets, and with normals, the points (and normals) of a step are loaded one
 * per row slot and each coordinate spread over its row in registers: fewer loads than a
 * broadcast per coordinate (measured 3% faster for positions, 8% with normals on avx512;
 * SKIN_POINTS_AS_ROWS). Two steps go together (skin_pair; four in skin_group), their points
 * loaded and their results stored by vf_load_rows_xyz2 / vf_store_rows_xyz2: on avx2 twelve
 * contiguous floats as two loads and two permutes, two permutes, a blend and two stores,
 * instead of 3-float pieces per vertex (measured 7% faster for positions on avx2, 5% with
 * normals on sse41). With normals, four steps are normalised together (skin_group): their
 * normals transposed to components, so one square root and three divisions serve the group.
 * The last vertices of a mesh (fewer than 2 SKS_ROWS, or SKIN_GROUP with normals) go a step at
 * a time, then one at a time, slot 0 on the vertex (slot 0 stored).
 * ------------------------------------------------------------------------------------------ */

#define SKS_COLUMNS_FLOATS 16   /* one joint's columns C0..C3, 4 floats each (lane 3 = 0) */
/* Points and normals loaded one per row slot and spread in registers (1) or each coordinate
 * broadcast from memory (0), a tuning choice: 1 on the two-row targets (avx2, avx512: fewer
 * loads) and with normals; 0 for positions alone on the 4-lane targets (sse41 measured 3.5%
 * slower with 1 there: a 3-float load costs two loads and a shuffle, a broadcast one load and
 * one shuffle; with normals 1 measured 2% faster, and 0 30% slower in the grouped loop).
 * SKIN_POINTS_AS_ROWS_ALONE is the same choice for positions alone two steps at a time
 * (skin_pair: vf_load_rows_xyz2 there costs two loads and a shuffle per two points on sse41,
 * measured within 1% of the broadcasts). */
#define SKIN_POINTS_AS_ROWS (SKS_ROWS == 2 || with_normals)
#define SKIN_POINTS_AS_ROWS_ALONE (SKS_ROWS == 2)
#define COLUMN_VECS (4 / SKS_ROWS)

/* The columns of `count` <= SKS_ROWS consecutive palette matrices, one per row slot: each 3x4
 * transposed with a zero fourth row. */
static SKS_ALWAYS_INLINE void palette_columns_rows(float *c, const float *m, size_t count)
{
    vf r0 = vf_load_rows_count(m, SKS_JOINT_FLOATS, count);
    vf r1 = vf_load_rows_count(m + 4, SKS_JOINT_FLOATS, count);
    vf r2 = vf_load_rows_count(m + 8, SKS_JOINT_FLOATS, count), r3 = vf_zero();
    vf_transpose4_in_rows(&r0, &r1, &r2, &r3);
    vf_store_rows_count(c, SKS_COLUMNS_FLOATS, r0, count);
    vf_store_rows_count(c + 4, SKS_COLUMNS_FLOATS, r1, count);
    vf_store_rows_count(c + 8, SKS_COLUMNS_FLOATS, r2, count);
    vf_store_rows_count(c + 12, SKS_COLUMNS_FLOATS, r3, count);
}

static void palette_columns(float *cols, const float *palette, size_t joints)
{
    size_t j = 0;
    for (; j + SKS_ROWS <= joints; j += SKS_ROWS)
        palette_columns_rows(cols + SKS_COLUMNS_FLOATS * j, palette + SKS_JOINT_FLOATS * j,
                             SKS_ROWS);
    if (j < joints)
        palette_columns_rows(cols + SKS_COLUMNS_FLOATS * j, palette + SKS_JOINT_FLOATS * j,
                             joints - j);
}

/* The blended columns of the SKS_ROWS vertices of a step, each packed: c[s][q] holds columns
 * q R .. q R + R - 1 of slot s's vertex (R = SKS_ROWS), whose joint indices and weights are at
 * idx, w + s * istep. M = w0 P0 + w1 P1 + ..., influences in ascending order per vertex; the
 * vertices' chains are interleaved. */
static SKS_ALWAYS_INLINE void blend_columns(vf c[SKS_ROWS][COLUMN_VECS], const int32_t *idx,
                                            const float *w, ptrdiff_t istep, size_t influences,
                                            const float *cols)
{
    size_t k;
    int s, q;
    for (s = 0; s < SKS_ROWS; s++) {
        const float *src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[s * istep];
        const vf wk = vf_set1(w[s * istep]);
        for (q = 0; q < COLUMN_VECS; q++) c[s][q] = vf_mul(wk, vf_load_aligned(src + SKS_W * q));
    }
    for (k = 1; k < influences; k++) {
        for (s = 0; s < SKS_ROWS; s++) {
            const float *src = cols + SKS_COLUMNS_FLOATS * (size_t)idx[s * istep + (ptrdiff_t)k];
            const vf wk = vf_set1(w[s * istep + (ptrdiff_t)k]);
            for (q = 0; q < COLUMN_VECS; q++)
                c[s][q] = vf_add(c[s][q], vf_mul(wk, vf_load_aligned(src + SKS_W * q)));
        }
    }
}

/* q / |q| per row slot over lanes 0..2, |q| = sqrt((q0 q0 + q1 q1) + q2 q2); zero where
 * |q| == 0. */
static SKS_ALWAYS_INLINE vf normalize3_rows(vf q)
{
    const vf sq = vf_mul(q, q);
    const vf sum = vf_add(vf_add(vf_splat_in_rows(sq, 0), vf_splat_in_rows(sq, 1)),
                          vf_splat_in_rows(sq, 2));
    const vf len = vf_sqrt(sum);
    return vf_if(vf_neq(len, vf_zero()), vf_div(q, len));
}

/* The coordinates of SKS_ROWS points (or normals), one per row slot, each spread over its row:
 * from `rows` (the points as rows) when SKIN_POINTS_AS_ROWS, else broadcast from p + s * step. */
static SKS_ALWAYS_INLINE void spread_xyz(vf xyz[3], vf rows, const float *p, ptrdiff_t step,
                                         int as_rows)
{
    int c;
    for (c = 0; c < 3; c++) {
        if (as_rows) {
            xyz[c] = c == 0 ? vf_splat_in_rows(rows, 0)
                            : c == 1 ? vf_splat_in_rows(rows, 1) : vf_splat_in_rows(rows, 2);
        } else {
            xyz[c] = vf_set1_rows(p + c, step);
        }
    }
}

/* SKS_ROWS vertices, one per row slot, their coordinates spread (x[c]: spread_xyz), joint
 * offsets and weights at idx, w + s * istep (istep 0: every slot on one vertex). Returns the
 * positions ((C0 x + C1 y) + C2 z) + C3 per row slot and, with normals, sets *qn to the
 * unnormalised normals (C0 nx + C1 ny) + C2 nz. */
static SKS_ALWAYS_INLINE vf skin_rows_core(vf *qn, const vf x[3], const vf nx[3],
                                           const int32_t *idx, const float *w, ptrdiff_t istep,
                                           size_t influences, const float *cols, int with_normals)
{
    vf packed[SKS_ROWS][COLUMN_VECS], c[4];
    int s, q, u;
    blend_columns(packed, idx, w, istep, influences, cols);
    for (q = 0; q < COLUMN_VECS; q++) {
        vf t[SKS_ROWS];
        for (s = 0; s < SKS_ROWS; s++) t[s] = packed[s][q];
        vf_transpose_rows(t);
        for (u = 0; u < SKS_ROWS; u++) c[q * SKS_ROWS + u] = t[u];
    }
    if (with_normals)
        *qn = vf_add(vf_add(vf_mul(c[0], nx[0]), vf_mul(c[1], nx[1])), vf_mul(c[2], nx[2]));
    return vf_add(vf_add(vf_add(vf_mul(c[0], x[0]), vf_mul(c[1], x[1])), vf_mul(c[2], x[2])),
                  c[3]);
}

/* `count` <= SKS_ROWS vertices (slot s's position and normal at + s * step floats, steps 0:
 * every slot on one vertex; positions and normals of the first `count` slots stored at op, on,
 * + 3 s). All reads precede the writes: op may equal p, on n. */
static SKS_ALWAYS_INLINE void skin_rows(float *op, float *on, size_t count, const float *p,
                                        const float *n, ptrdiff_t step, const int32_t *idx,
                                        const float *w, ptrdiff_t istep, size_t influences,
                                        const float *cols, int with_normals, int renormalize)
{
    const int as_rows = SKIN_POINTS_AS_ROWS;
    vf x[3], nx[3], qn = vf_zero(), pos;
    spread_xyz(x, as_rows ? vf_load_rows_xyz(p, step, count) : vf_zero(), p, step, as_rows);
    if (with_normals)
        spread_xyz(nx, as_rows ? vf_load_rows_xyz(n, step, count) : vf_zero(), n, step, as_rows);
    pos = skin_rows_core(&qn, x, nx, idx, w, istep, influences, cols, with_normals);
    vf_store_rows_xyz(op, 3, pos, count);
    if (with_normals) vf_store_rows_xyz(on, 3, renormalize ? normalize3_rows(qn) : qn, count);
}

/* Two steps of positions alone (2 SKS_ROWS consecutive vertices): with the points as rows,
 * loaded and stored by vf_load_rows_xyz2 / vf_store_rows_xyz2 (twelve contiguous floats on avx2:
 * two loads and two permutes instead of a 3-float access per vertex). Reads precede writes. */
static SKS_ALWAYS_INLINE void skin_pair(float *op, const float *p, const int32_t *idx,
                                        const float *w, size_t influences, const float *cols)
{
    const ptrdiff_t istep = (ptrdiff_t)influences;
    const size_t second = SKS_ROWS * influences;
    vf x0[3], x1[3], r0, r1;
    if (SKIN_POINTS_AS_ROWS_ALONE) {
        vf_load_rows_xyz2(p, &r0, &r1);
        spread_xyz(x0, r0, p, 3, 1);
        spread_xyz(x1, r1, p + 3 * SKS_ROWS, 3, 1);
    } else {
        spread_xyz(x0, vf_zero(), p, 3, 0);
        spread_xyz(x1, vf_zero(), p + 3 * SKS_ROWS, 3, 0);
    }
    r0 = skin_rows_core(NULL, x0, NULL, idx, w, istep, influences, cols, 0);
    r1 = skin_rows_core(NULL, x1, NULL, idx + second, w + second, istep, influences, cols, 0);
    vf_store_rows_xyz2(op, r0, r1);
}

/* Vertices skin_group moves at once: four steps of SKS_ROWS. */
#define SKIN_GROUP (4 * SKS_ROWS)

/* Two steps of skin_group: the positions stored, the unnormalised normals into q[0], q[1]
 * (their normals' rows nr[0], nr[1]). A function called twice rather than a loop, so that q
 * stays in registers (measured: the loop was not unrolled). */
static SKS_ALWAYS_INLINE void skin_two_steps(float *op, const float *p, const vf nr[2], vf q[2],
                                             const int32_t *idx, const float *w,
                                             size_t influences, const float *cols)
{
    const ptrdiff_t istep = (ptrdiff_t)influences;
    const size_t second = SKS_ROWS * influences;
    vf pr[2], x[3], nx[3], pos0, pos1;
    vf_load_rows_xyz2(p, &pr[0], &pr[1]);
    spread_xyz(x, pr[0], p, 3, 1);
    spread_xyz(nx, nr[0], p, 3, 1);
    pos0 = skin_rows_core(&q[0], x, nx, idx, w, istep, influences, cols, 1);
    spread_xyz(x, pr[1], p, 3, 1);
    spread_xyz(nx, nr[1], p, 3, 1);
    pos1 = skin_rows_core(&q[1], x, nx, idx + second, w + second, istep, influences, cols, 1);
    vf_store_rows_xyz2(op, pos0, pos1);
}

/* SKIN_GROUP consecutive vertices with normals: points and normals loaded two steps at a time
 * (vf_load_rows_xyz2), four steps of skin_rows_core (the positions stored two steps at a time,
 * after those steps' inputs are read), then the four normal vectors normalised together: they
 * are transposed (vf_transpose4_in_rows: the x, y, z of every vertex in three vectors, item
 * order), |q| = sqrt((x x + y y) + z z) by one square root for the group, each component
 * divided by it (three divisions for the group instead of four, no spreading of |q|: measured
 * 1-2% faster on sse41 and avx512) and transposed back: the operations of normalize3_rows on
 * every element, so the same bits. The normals are stored after every input of the group is
 * read (on may equal n). Without renormalize the four normal vectors are stored as they are
 * (the same products and sums, no square root or division). */
static SKS_ALWAYS_INLINE void skin_group(float *op, float *on, const float *p, const float *n,
                                         const int32_t *idx, const float *w, size_t influences,
                                         const float *cols, int renormalize)
{
    vf nr[4], q[4], len, nrm[4];
    vm nonzero;
    vf_load_rows_xyz2(n, &nr[0], &nr[1]);
    vf_load_rows_xyz2(n + 6 * SKS_ROWS, &nr[2], &nr[3]);
    skin_two_steps(op, p, nr, q, idx, w, influences, cols);
    skin_two_steps(op + 6 * SKS_ROWS, p + 6 * SKS_ROWS, nr + 2, q + 2,
                   idx + 2 * SKS_ROWS * influences, w + 2 * SKS_ROWS * influences, influences,
                   cols);
    if (!renormalize) {
        vf_store_rows_xyz2(on, q[0], q[1]);
        vf_store_rows_xyz2(on + 6 * SKS_ROWS, q[2], q[3]);
        return;
    }
    /* the normals as components (x, y, z of every vertex of the group, item order) */
    vf_transpose4_in_rows(&q[0], &q[1], &q[2], &q[3]);
    len = vf_sqrt(vf_add(vf_add(vf_mul(q[0], q[0]), vf_mul(q[1], q[1])), vf_mul(q[2], q[2])));
    nonzero = vf_neq(len, vf_zero());
    nrm[0] = vf_if(nonzero, vf_div(q[0], len));
    nrm[1] = vf_if(nonzero, vf_div(q[1], len));
    nrm[2] = vf_if(nonzero, vf_div(q[2], len));
    nrm[3] = vf_zero();
    vf_transpose4_in_rows(&nrm[0], &nrm[1], &nrm[2], &nrm[3]);
    vf_store_rows_xyz2(on, nrm[0], nrm[1]);
    vf_store_rows_xyz2(on + 6 * SKS_ROWS, nrm[2], nrm[3]);
}

/* Vertices whose joint indices skin_mesh copies and checks at once (a multiple of SKS_ROWS). */
#define SKS_SKIN_INDEX_BLOCK 64

/* skin, with or without normals (a constant at both call sites): the palette's columns into
 * scratch, then every vertex.
 *
 * Joint indices are read from a private copy, checked as read: the caller validates every index
 * before the kernel runs, but the kernel runs with the GIL released over the caller's (large)
 * joint_indices array, read in place, which another thread may change during the call. So the
 * indices of each block of SKS_SKIN_INDEX_BLOCK vertices are copied to the stack, the copy is
 * checked against [0, joints) in one vectorised pass, and the vertices read only the copy: an
 * entry changed mid-call to another valid index is used or not depending on timing, one changed
 * to an invalid value selects joint 0. Never a read outside the palette; the same integer steps
 * in every target (bit-identical); about 0.1 ns per vertex. */
static SKS_ALWAYS_INLINE void skin_mesh(float *out_positions, float *out_normals,
                                        const float *positions, const float *normals,
                                        const int32_t *indices, const float *weights,
                                        size_t vertices, size_t influences, const float *palette,
                                        size_t joints, float *scratch, int with_normals,
                                        int renormalize)
{
    int32_t idx[SKS_SKIN_INDEX_BLOCK * SKS_SKIN_MAX_INFLUENCES];
    /* x is in [0, joints) exactly when (uint32_t)x <= last (a negative x is above INT32_MAX;
     * every non-negative int32 is valid when joints > INT32_MAX): the block's largest index
     * as uint32 against last */
    const uint32_t last = joints > (size_t)INT32_MAX ? (uint32_t)INT32_MAX : (uint32_t)(joints - 1);
    const ptrdiff_t istep = (ptrdiff_t)influences;
    /* the columns from the first 64-byte boundary: a joint's 16 floats in one cache line, read
     * by aligned whole-vector loads */
    float *cols = (float *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    size_t v0, v, i;
    if (joints == 0 || influences > SKS_SKIN_MAX_INFLUENCES) return;   /* never from the glue */
    palette_columns(cols, palette, joints);
    for (v0 = 0; v0 < vertices; v0 += SKS_SKIN_INDEX_BLOCK) {
        const size_t nv = vertices - v0 < SKS_SKIN_INDEX_BLOCK ? vertices - v0
                                                               : SKS_SKIN_INDEX_BLOCK;
        const size_t ni = nv * influences;
        uint32_t largest = 0;
        const int32_t *src = indices + influences * v0;
        for (i = 0; i < ni; i++) {
            const uint32_t x = (uint32_t)src[i];   /* read once: the check and the copy use x */
            idx[i] = (int32_t)x;
            largest = x > largest ? x : largest;
        }
        if (largest > last) {
            for (i = 0; i < ni; i++) {
                if ((size_t)(uint32_t)idx[i] >= joints) idx[i] = 0;
            }
        }
        v = v0;
        if (with_normals) {
            for (; v + SKIN_GROUP <= v0 + nv; v += SKIN_GROUP)
                skin_group(out_positions + 3 * v, out_normals + 3 * v, positions + 3 * v,
                           normals + 3 * v, idx + influences * (v - v0), weights + influences * v,
                           influences, cols, renormalize);
        }
        if (!with_normals) {
            for (; v + 2 * SKS_ROWS <= v0 + nv; v += 2 * SKS_ROWS)
                skin_pair(out_positions + 3 * v, positions + 3 * v, idx + influences * (v - v0),
                          weights + influences * v, influences, cols);
        }
        for (; v + SKS_ROWS <= v0 + nv; v += SKS_ROWS) {
            skin_rows(out_positions + 3 * v, with_normals ? out_normals + 3 * v : NULL, SKS_ROWS,
                      positions + 3 * v, with_normals ? normals + 3 * v : NULL, 3,
                      idx + influences * (v - v0), weights + influences * v, istep, influences,
                      cols, with_normals, renormalize);
        }
        for (; v < v0 + nv; v++) {
            skin_rows(out_positions + 3 * v, with_normals ? out_normals + 3 * v : NULL, 1,
                      positions + 3 * v, with_normals ? normals + 3 * v : NULL, 0,
                      idx + influences * (v - v0), weights + influences * v, 0, influences,
                      cols, with_normals, renormalize);
        }
    }
}

/* skin_mesh with the influence count, the normals and their renormalisation a constant where
 * it pays: up to 4 influences (the common counts) the blend loop unrolls completely. */
#define SKIN_MESH(k)                                                                            \
    do {                                                                                        \
        if (out_normals != NULL && renormalize)                                                 \
            skin_mesh(out_positions, out_normals, positions, normals, indices, weights,         \
                      vertices, k, palette, joints, scratch, 1, 1);                             \
        else if (out_normals != NULL)                                                           \
            skin_mesh(out_positions, out_normals, positions, normals, indices, weights,         \
                      vertices, k, palette, joints, scratch, 1, 0);                             \
        else                                                                                    \
            skin_mesh(out_positions, NULL, positions, NULL, indices, weights, vertices, k,      \
                      palette, joints, scratch, 0, 0);                                          \
    } while (0)

static void skin(float *out_positions, float *out_normals, const float *positions,
                 const float *normals, const int32_t *indices, const float *weights,
                 size_t vertices, size_t influences, const float *palette, size_t joints,
                 float *scratch, int renormalize)
{
    switch (influences) {
    case 1: SKIN_MESH(1); break;
    case 2: SKIN_MESH(2); break;
    case 3: SKIN_MESH(3); break;
    case 4: SKIN_MESH(4); break;
    default: SKIN_MESH(influences); break;
    }
}

#undef SKIN_MESH

/* ------------------------------------------------------------------------------------------
 * normalize_weights: out[v, k] = weights[v, k] / sum_k weights[v, k] (sum k ascending); a row
 * summing to exactly zero is copied. A load-time utility bound by memory: plain C.
 * ------------------------------------------------------------------------------------------ */

static void normalize_weights(float *out, const float *weights, size_t rows, size_t influences)
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

/* ------------------------------------------------------------------------------------------
 * largest_index: the range check of skin's joint_indices before the kernel runs (the caller's
 * error names the first bad index). Plain C the compiler vectorises per target (an unsigned
 * maximum per lane: 8 indices per instruction on avx2, 4 on sse41; the baseline glue's loop
 * measured about 5 times slower: 0.65 ns per vertex of 4 influences, against 0.13).
 * ------------------------------------------------------------------------------------------ */

static uint32_t largest_index(const int32_t *indices, size_t n)
{
    uint32_t largest = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        const uint32_t x = (uint32_t)indices[i];
        largest = x > largest ? x : largest;
    }
    return largest;
}

SKS_ROW(skinning) = {skinning_palette, skinning_palette_f64, skin, normalize_weights,
                     largest_index};
