/*
 * mat4.c -- 4x4 matrix kernels: matmul4, mat4_local_to_global (float32 and float64 walks),
 * transform_points (see mat4.h for layouts and contracts). Written once against the vector
 * vocabulary and compiled per target (target.h).
 *
 * The method is Frechette's ("Optimizing 4x4 matrix multiplication", Animation Compression
 * Library posts): row i of a @ b is
 * a[i][0] * B0 + a[i][1] * B1 + a[i][2] * B2 + a[i][3] * B3 with B0..B3 the rows of b, each
 * coefficient of a replicated across the lanes of a row. b's rows are loaded with
 * vf_broadcast_row (on avx2 a 128-bit broadcast, a pure load: the article's "broadcast instead of
 * load + shuffle"), a's rows are packed SKS_ROWS to a vector (two on avx2, so one 256-bit
 * operation computes two rows of the result), its coefficients spread with vf_splat_in_rows, and
 * when a is the constant operand its spread coefficients are computed once and kept.
 *
 * Binary-exact on every target (the article made each version bit-identical to its reference):
 * each element is evaluated as
 *     ((a_i0 * b_0c + a_i1 * b_1c) + a_i2 * b_2c) + a_i3 * b_3c
 * with no FMA. With an affine b (last row 0 0 0 1) the last term is the translation a_i3 for
 * c = 3 and zero otherwise, so a chain of affine 4x4 matrices rounds exactly like the joint
 * family's 3x4 chain: the parent's translation is added last (see joints.c for why that order
 * is the more accurate one).
 *
 * Error bound (the standard one for a 4-term dot product in float32, u = 2**-24): every element
 * of matmul4 is within 4u / (1 - 4u) * sum_k |a_ik| |b_kc| of the exact product of the float32
 * inputs, as for a float32 NumPy matmul.
 */
#include "target.h"
#include "mat4.h"
#include "walk.h"

/* ------------------------------------------------------------------------------------------
 * Building blocks. A matrix in registers is packed: vector k holds rows k * SKS_ROWS ..
 * (k + 1) * SKS_ROWS - 1 (4 vectors on 4-lane targets, 2 on avx2). A right operand is its four
 * rows, each broadcast to every row slot.
 * ------------------------------------------------------------------------------------------ */

#define MAT4_VECS (4 / SKS_ROWS)

typedef struct mat4_packed {
    vf r[MAT4_VECS];
} mat4_packed;

typedef struct mat4_rows {
    vf b[4];
} mat4_rows;

/* A constant left operand's coefficients, spread once: s[k][c] lane group r = a[k R + r][c]. */
typedef struct mat4_coefs {
    vf s[MAT4_VECS][4];
} mat4_coefs;

static SKS_ALWAYS_INLINE mat4_packed mat4_load(const float *m)
{
    mat4_packed g;
    int k;
    for (k = 0; k < MAT4_VECS; k++) g.r[k] = vf_load(m + 4 * SKS_ROWS * k);
    return g;
}

static SKS_ALWAYS_INLINE void mat4_store(float *o, mat4_packed g)
{
    int k;
    for (k = 0; k < MAT4_VECS; k++) vf_store(o + 4 * SKS_ROWS * k, g.r[k]);
}

static SKS_ALWAYS_INLINE mat4_rows mat4_broadcast_rows(const float *b)
{
    mat4_rows r;
    int k;
    for (k = 0; k < 4; k++) r.b[k] = vf_broadcast_row(b + 4 * k);
    return r;
}

/* ((s0 B0 + s1 B1) + s2 B2) + s3 B3: rows of a product from spread coefficients. */
static SKS_ALWAYS_INLINE vf mat4_combine(vf s0, vf s1, vf s2, vf s3, const mat4_rows *b)
{
    const vf s01 = vf_add(vf_mul(s0, b->b[0]), vf_mul(s1, b->b[1]));
    const vf s012 = vf_add(s01, vf_mul(s2, b->b[2]));
    return vf_add(s012, vf_mul(s3, b->b[3]));
}

/* The rows of a @ b held by one packed vector of a. */
static SKS_ALWAYS_INLINE vf mat4_rows_product(vf a, const mat4_rows *b)
{
    return mat4_combine(vf_splat_in_rows(a, 0), vf_splat_in_rows(a, 1), vf_splat_in_rows(a, 2),
                        vf_splat_in_rows(a, 3), b);
}

static SKS_ALWAYS_INLINE mat4_packed mat4_mul(mat4_packed a, const mat4_rows *b)
{
    mat4_packed r;
    int k;
    for (k = 0; k < MAT4_VECS; k++) r.r[k] = mat4_rows_product(a.r[k], b);
    return r;
}

static SKS_ALWAYS_INLINE mat4_coefs mat4_coefs_of(const float *a)
{
    const mat4_packed m = mat4_load(a);
    mat4_coefs c;
    int k;
    for (k = 0; k < MAT4_VECS; k++) {
        c.s[k][0] = vf_splat_in_rows(m.r[k], 0);
        c.s[k][1] = vf_splat_in_rows(m.r[k], 1);
        c.s[k][2] = vf_splat_in_rows(m.r[k], 2);
        c.s[k][3] = vf_splat_in_rows(m.r[k], 3);
    }
    return c;
}

/* ------------------------------------------------------------------------------------------
 * matmul4: out[i] = a[i * a_step] @ b[i * b_step] (steps 0 or 1). Every input of a product is
 * read before its output is written, so out may equal a or b.
 * ------------------------------------------------------------------------------------------ */

static void matmul4(float *out, const float *a, size_t a_step, const float *b, size_t b_step,
                    size_t n)
{
    size_t i;
    a_step *= SKS_MAT4_FLOATS;
    b_step *= SKS_MAT4_FLOATS;
    if (b_step == 0) {   /* array x constant (and one-off products): b's rows stay in registers */
        const mat4_rows bm = mat4_broadcast_rows(b);
        for (i = 0; i < n; i++)
            mat4_store(out + SKS_MAT4_FLOATS * i, mat4_mul(mat4_load(a + a_step * i), &bm));
    } else if (a_step == 0) {   /* constant x array: a's coefficients spread once */
        const mat4_coefs c = mat4_coefs_of(a);
        for (i = 0; i < n; i++) {
            const mat4_rows bm = mat4_broadcast_rows(b + SKS_MAT4_FLOATS * i);
            mat4_packed r;
            int k;
            for (k = 0; k < MAT4_VECS; k++)
                r.r[k] = mat4_combine(c.s[k][0], c.s[k][1], c.s[k][2], c.s[k][3], &bm);
            mat4_store(out + SKS_MAT4_FLOATS * i, r);
        }
    } else {   /* pairs: both steps are one matrix */
        for (i = 0; i < n; i++) {
            const mat4_rows bm = mat4_broadcast_rows(b);
            mat4_store(out, mat4_mul(mat4_load(a), &bm));
            a += SKS_MAT4_FLOATS;
            b += SKS_MAT4_FLOATS;
            out += SKS_MAT4_FLOATS;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * mat4_local_to_global: for every skeleton b and start <= j < stop, ascending,
 * out[b,j] = local[b,j] for a root, else out[b,parents[j]] @ local[b,j]. When
 * parents[j] == j - 1 the parent's global matrix is still in registers and is not reloaded.
 * Error: (d + 1) * 2**-23 * max(1, T) for depth d and global translations up to T.
 * ------------------------------------------------------------------------------------------ */

/* Skeletons walked side by side (each one matrix of MAT4_VECS vectors): independent chains
 * overlap their latency (a 4x4 product is ~13 cycles deep, ~6 cycles of throughput). avx2,
 * measured at 1000 x 96 (humanoid): 2.6 ns per joint with three, 2.7 with two or four (four
 * spill registers), 3.1 with one. The 4-lane targets hold a matrix in 4 of their 16 registers
 * and walk one: two side by side measured 4.6 to 6.0 ns per joint at 1000 x 96 depending on the
 * arrays' alignment, one 4.6 to 4.7. */
#define MAT4_WALK_SIDE (SKS_ROWS == 2 ? 3 : 1)

/* Batches whose input and output exceed this many bytes stream from DRAM, where one skeleton at
 * a time was faster than several side by side (the same threshold as the joint family's). */
#define MAT4_SIDE_BY_SIDE_MAX_BYTES ((size_t)16 << 20)   /* of the whole call (call_batch) */

/* The walk of `count` skeletons, `stride` floats apart, side by side (count is a constant at
 * every call site, so the loops over s unroll). */
static SKS_ALWAYS_INLINE void mat4_walk(float *out, const float *local, const int32_t *parents,
                                        size_t stride, size_t count, size_t start, size_t stop)
{
    mat4_packed g[MAT4_WALK_SIDE];
    size_t j, s;
    int k;
    for (s = 0; s < count; s++)
        for (k = 0; k < MAT4_VECS; k++) g[s].r[k] = vf_zero();
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = SKS_MAT4_FLOATS * j;
        if (p < 0) {
            for (s = 0; s < count; s++) g[s] = mat4_load(local + s * stride + oj);
        } else if ((size_t)p + 1 == j && j > start) {
            for (s = 0; s < count; s++) {
                const mat4_rows l = mat4_broadcast_rows(local + s * stride + oj);
                g[s] = mat4_mul(g[s], &l);
            }
        } else {
            const size_t op = SKS_MAT4_FLOATS * (size_t)p;
            for (s = 0; s < count; s++) {
                const mat4_rows l = mat4_broadcast_rows(local + s * stride + oj);
                g[s] = mat4_mul(mat4_load(out + s * stride + op), &l);
            }
        }
        for (s = 0; s < count; s++) mat4_store(out + s * stride + oj, g[s]);
    }
}

static void mat4_local_to_global(float *out, const float *local, const int32_t *parents,
                                 size_t batch, size_t joints, size_t start, size_t stop,
                                 size_t call_batch)
{
    const size_t stride = joints * SKS_MAT4_FLOATS;
    size_t b = 0;
    if (2 * call_batch * stride * sizeof(float) <= MAT4_SIDE_BY_SIDE_MAX_BYTES) {
        for (; b + MAT4_WALK_SIDE <= batch; b += MAT4_WALK_SIDE)
            mat4_walk(out + b * stride, local + b * stride, parents, stride, MAT4_WALK_SIDE, start,
                      stop);
    }
    for (; b < batch; b++)
        mat4_walk(out + b * stride, local + b * stride, parents, stride, 1, start, stop);
}

/* ------------------------------------------------------------------------------------------
 * float64 accumulation: mat4_local_to_global(..., precision="float64")
 *
 * The float32 walk rounds every global matrix to float32 and the children build on the rounded
 * value, so the error grows with depth ((d + 1) * 2**-23 * max(1, T): 1.3e-5 on a 96-deep chain
 * with local translations in [-1, 1]). This walk keeps the global matrices in float64 scratch
 * and rounds only what it writes. All 16 elements are computed (general 4x4 matrices: the last
 * row is not assumed to be 0 0 0 1); element (i, c) of global[j] is, in float64,
 *     (p[i][0] * l[0][c] + p[i][1] * l[1][c]) + (p[i][2] * l[2][c] + p[i][3] * l[3][c])
 * with p the float64 global of the parent and l the float32 local (exact in float64); the
 * pairwise order shortens the parent -> child latency. A root's global is its local converted.
 * Error (affine data): the float64 chain is off by at most about (d + 2) * 2**-52 * max(1, T)
 * for depth d and global translations up to T, 2**29 times below a float32 ulp, so each output
 * element is its exact value rounded to float32 up to that:
 *     |out - exact| <= 2**-24 * |exact| + (d + 2) * 2**-52 * max(1, T)   (tested);
 * for projective chains the second term scales with the chain of absolute values instead.
 * Parents before `start` are read from out (float32) and taken as exact. out == local is
 * allowed (each local is read before its output is written; parents come from scratch). NaN and
 * infinities propagate as in float64 arithmetic.
 * ------------------------------------------------------------------------------------------ */

/* Skeletons walked side by side by the float64 walk (at most SKS_MAT4_F64_SIDE_BY_SIDE, which
 * sizes the caller's scratch): the 256-bit float64 rows of avx2 keep four chains busy, the
 * 128-bit halves of the 4-lane targets two. */
#define MAT4_F64_SIDE_BY_SIDE (SKS_ROWS == 2 ? 4 : 2)

/* One matrix of the float64 walk (an sks_step_f64, walk.h): g = p @ l (p NULL: a root, g = l)
 * and o = float32(g). o may alias l (l is read first). */
static SKS_ALWAYS_INLINE void mat4_step_f64(float *o, double *g, const double *p, const float *l)
{
    vd4 lr[4];
    int i;
    for (i = 0; i < 4; i++) lr[i] = vd4_from_floats(l + 4 * i);   /* all of l before o */
    for (i = 0; i < 4; i++) {
        vd4 r = lr[i];
        if (p != NULL) {
            const double *prow = p + 4 * i;
            const vd4 s01 = vd4_add(vd4_mul(vd4_broadcast(prow), lr[0]),
                                    vd4_mul(vd4_broadcast(prow + 1), lr[1]));
            const vd4 s23 = vd4_add(vd4_mul(vd4_broadcast(prow + 2), lr[2]),
                                    vd4_mul(vd4_broadcast(prow + 3), lr[3]));
            r = vd4_add(s01, s23);
        }
        vd4_store(g + 4 * i, r);
        vd4_store_floats(o + 4 * i, r);
    }
}

static void mat4_local_to_global_f64(float *out, const float *local, const int32_t *parents,
                                     size_t batch, size_t joints, size_t start, size_t stop,
                                     double *scratch)
{
    sks_walk_f64_batch(out, local, parents, batch, joints, start, stop, SKS_MAT4_FLOATS, scratch,
                       MAT4_F64_SIDE_BY_SIDE, mat4_step_f64);
}

/* ------------------------------------------------------------------------------------------
 * transform_points: out[i] = the point points[i * p_step] moved by the matrix m[i * m_step]
 * (3x4, or 4x4 with the last row as w). Each coordinate is ((m_i0 x + m_i1 y) + m_i2 z) + m_i3,
 * computed as ((C0 x + C1 y) + C2 z) + C3 with C0..C3 the matrix's columns (lane 3: the last
 * row, zero for a 3x4, so lane 3 of the result is w); a projective matrix (a 4x4 whose last row
 * is not exactly 0 0 0 1) divides the three coordinates by w. SKS_ROWS points per step, one per
 * row slot; the remaining points one at a time with every row slot on the same point (strides
 * 0), slot 0 stored. Exactly 3 floats are read per point and written per result, all reads of a
 * step before its writes: out may equal points.
 * ------------------------------------------------------------------------------------------ */

/* How a step divides by w: never (affine), in every row slot, or in the slots of a mask. */
enum { DIVIDE_NONE, DIVIDE_ALL, DIVIDE_MASKED };

/* The row slots whose last matrix row r3 is not exactly (0, 0, 0, 1): the lanes that match,
 * as 1.0 or 0.0, multiplied within each row (exact), are 1 only for an affine matrix. */
static SKS_ALWAYS_INLINE vm projective_rows(vf r3)
{
    const vf one = vf_set1(1.0f);
    const vf e = vf_if(vf_eq(r3, vf_keep_lane3(one)), one);
    const vf all = vf_mul(vf_mul(vf_splat_in_rows(e, 0), vf_splat_in_rows(e, 1)),
                          vf_mul(vf_splat_in_rows(e, 2), vf_splat_in_rows(e, 3)));
    return vf_lt(all, one);
}

/* The columns of the matrices of the row slots (slot s at m + s * m_stride floats), `rows`
 * rows each; returns how to divide by w (*proj: the slots to divide, for DIVIDE_MASKED). */
static SKS_ALWAYS_INLINE int columns_rows(vf c[4], vm *proj, const float *m, ptrdiff_t m_stride,
                                          size_t rows)
{
    int divide = DIVIDE_NONE;
    c[0] = vf_load_rows(m, m_stride);
    c[1] = vf_load_rows(m + 4, m_stride);
    c[2] = vf_load_rows(m + 8, m_stride);
    c[3] = rows == 4 ? vf_load_rows(m + 12, m_stride) : vf_zero();
    if (rows == 4) {   /* projective: a last row that is not exactly (0, 0, 0, 1) */
        const unsigned differ = vm_bits(vf_neq(c[3], vf_keep_lane3(vf_set1(1.0f))));
        int s, projective = 0;
        for (s = 0; s < SKS_ROWS; s++) projective += ((differ >> (4 * s)) & 0xFu) != 0;
        if (projective == SKS_ROWS) {
            divide = DIVIDE_ALL;
        } else if (projective) {
            divide = DIVIDE_MASKED;
            *proj = projective_rows(c[3]);
        }
    }
    vf_transpose4_in_rows(&c[0], &c[1], &c[2], &c[3]);
    return divide;
}

/* The points of the row slots (slot s at p + s * p_stride) by the columns c, the results of
 * the first `count` slots stored at o, o + 3, ...; divide: how to divide by w (proj: the slots,
 * for DIVIDE_MASKED). o may equal p. */
static SKS_ALWAYS_INLINE void transform_rows(float *o, size_t count, const vf c[4],
                                             const float *p, ptrdiff_t p_stride, int divide,
                                             vm proj)
{
    const vf x = vf_set1_rows(p, p_stride), y = vf_set1_rows(p + 1, p_stride);
    const vf z = vf_set1_rows(p + 2, p_stride);
    vf r = vf_add(vf_add(vf_add(vf_mul(c[0], x), vf_mul(c[1], y)), vf_mul(c[2], z)), c[3]);
    if (divide == DIVIDE_ALL) {
        r = vf_div(r, vf_splat_in_rows(r, 3));
    } else if (divide == DIVIDE_MASKED) {
        r = vf_select(proj, vf_div(r, vf_splat_in_rows(r, 3)), r);
    }
    vf_store_rows_xyz(o, 3, r, count);
}

/* transform_points for matrices of `rows` rows (3 or 4, a constant at each call site). */
static SKS_ALWAYS_INLINE void transform_points_rows(float *out, const float *m, size_t m_step,
                                                   const float *points, size_t p_step, size_t n,
                                                   size_t rows)
{
    const size_t mf = 4 * rows * m_step, pf = 3 * p_step;
    size_t i = 0;
    vf c[4];
    vm proj = vm_first_n(0);
    if (m_step == 0) {   /* one matrix: its columns once, in every row slot */
        const int divide = columns_rows(c, &proj, m, 0, rows);
        for (; i + SKS_ROWS <= n; i += SKS_ROWS)
            transform_rows(out + 3 * i, SKS_ROWS, c, points + pf * i, (ptrdiff_t)pf, divide, proj);
        for (; i < n; i++) transform_rows(out + 3 * i, 1, c, points + pf * i, 0, divide, proj);
        return;
    }
    for (; i + SKS_ROWS <= n; i += SKS_ROWS) {
        const int divide = columns_rows(c, &proj, m + mf * i, (ptrdiff_t)mf, rows);
        transform_rows(out + 3 * i, SKS_ROWS, c, points + pf * i, (ptrdiff_t)pf, divide, proj);
    }
    for (; i < n; i++) {
        const int divide = columns_rows(c, &proj, m + mf * i, 0, rows);
        transform_rows(out + 3 * i, 1, c, points + pf * i, 0, divide, proj);
    }
}

static void transform_points_3x4(float *out, const float *m, size_t m_step, const float *points,
                                 size_t p_step, size_t n)
{
    transform_points_rows(out, m, m_step, points, p_step, n, 3);
}

static void transform_points_4x4(float *out, const float *m, size_t m_step, const float *points,
                                 size_t p_step, size_t n)
{
    transform_points_rows(out, m, m_step, points, p_step, n, 4);
}

SKS_ROW(mat4) = {matmul4, mat4_local_to_global, mat4_local_to_global_f64, transform_points_3x4,
                 transform_points_4x4};
