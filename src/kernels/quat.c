/*
 * quat.c -- quaternion algebra and conversions (see quat.h for layouts and quat_ops.h for the
 * fixed operation order shared by every target). Written once against the vector vocabulary:
 * SKS_W quaternions per step in structure-of-arrays form, the tail of a batch through the same
 * body with masked loads and stores.
 *
 * multiply    out = a * b:  x = (aw bx + ax bw) + (ay bz - az by), y, z likewise (cyclic),
 *             w = (aw bw - ax bx) - (ay by + az bz). Exact algebra on any quaternion (no
 *             normalisation). Error <= 2.5e-7 per component for unit inputs (tested).
 * conjugate   (-x, -y, -z, w): exact (a sign flip, NaN included).
 * normalize   q / sqrt(dot(q, q)), one division per component (1.3e-7 measured, bound 2e-7);
 *             zero -> (0, 0, 0, 1); tiny or huge q rescaled first; inf/NaN -> NaN.
 * rotate      R(q / |q|) v, rows ((r0 v0 + r1 v1) + r2 v2) with R from quat_ops.h, so it equals
 *             to_matrix(q) @ v in this order; a zero q is the identity. Error <= 4e-7 |v|
 *             per component (2.8e-7 measured over 4M vectors).
 * to_matrix   R(q / |q|) (h = 1 / |q|^2, quat_ops.h): a pure rotation even for non-unit q;
 *             zero q -> I. Error <= 4e-7 per entry (2.1e-7 measured over 4M; tested).
 * from_matrix Shepperd's method, robust for every rotation (including 180 degrees): of the four
 *             candidates 4w^2 = (1 + m00) + (m11 + m22), 4x^2 = (1 + m00) - (m11 + m22),
 *             4y^2 = (1 - m00) + (m11 - m22), 4z^2 = (1 - m00) - (m11 - m22) the largest (>= 1
 *             for a rotation) selects the row of 4 q_k q whose other entries are sums and
 *             differences of off-diagonal pairs; that vector is normalised (so no division by a
 *             small number ever happens, and the result is a unit quaternion even for a slightly
 *             non-orthogonal m) and flipped to w >= 0. Error <= 4e-7 (tested).
 * qts_to_matrix  [s R(q / |q|) | t] with h = s / |q|^2 (quat_ops.h), so s = 1 gives exactly
 *             to_matrix's R. Error <= 4e-7 max(1, |s|) (tested).
 * matrix_to_qts  s = sign(det A) sqrt(|A|_F^2 / 3) (a negative determinant becomes a negative
 *             uniform scale, so A / s is a proper rotation), q = from_matrix(A / s), t = column
 *             3. A zero A gives s = 0 and q = (0, 0, 0, 1). For a similarity A = s R this is
 *             exact up to rounding; otherwise s is the RMS column scale and q the normalised
 *             Shepperd quaternion of A / s (not the polar rotation).
 *
 * from_matrix and matrix_to_qts select one of four formulas per element: they run a per-element
 * loop (quat_scalar.h) on every target (a branch-free SoA form is future work; they are
 * conversion utilities, not per-frame kernels).
 */
#include "target.h"
#include "quat.h"
#include "quat_ops.h"
#include "quat_scalar.h"

/* Step of a broadcast (0) or consecutive (1) operand, in floats per quaternion. */
#define QSTEP(step) ((ptrdiff_t)(step) * SKS_QUAT_FLOATS)

/* out[i] = a[i a_step] * b[i b_step]; out may equal a or b (a block is loaded before it is
 * stored). A broadcast operand is splat once; the steps are constants in each instance. */
static SKS_ALWAYS_INLINE void multiply_blocks(float *out, const float *a, int a_one,
                                              const float *b, int b_one, size_t n)
{
    const quat_soa ca = quat_soa_splat(a), cb = quat_soa_splat(b);
    size_t i = 0;
    for (; i + SKS_W <= n; i += SKS_W) {
        const quat_soa qa = a_one ? ca : quat_soa_load(a + 4 * i, 4);
        const quat_soa qb = b_one ? cb : quat_soa_load(b + 4 * i, 4);
        quat_soa_store(out + 4 * i, 4, quat_soa_mul(qa, qb));
    }
    if (i < n) {
        const quat_soa qa = a_one ? ca : quat_soa_load_n(a + 4 * i, 4, n - i);
        const quat_soa qb = b_one ? cb : quat_soa_load_n(b + 4 * i, 4, n - i);
        quat_soa_store_n(out + 4 * i, 4, quat_soa_mul(qa, qb), n - i);
    }
}

static void multiply(float *out, const float *a, size_t a_step, const float *b, size_t b_step,
                     size_t n)
{
    if (n == 0) return;
    if (a_step && b_step) multiply_blocks(out, a, 0, b, 0, n);
    else if (a_step) multiply_blocks(out, a, 0, b, 1, n);
    else if (b_step) multiply_blocks(out, a, 1, b, 0, n);
    else multiply_blocks(out, a, 1, b, 1, n);
}

/* (-x, -y, -z, w): the sign bits of lanes 0-2 of every row flipped. */
static void conjugate(float *out, const float *q, size_t n)
{
    const vf sign = vf_clear_lane3(vf_set1(-0.0f));
    const size_t floats = 4 * n;
    size_t i = 0;
    for (; i + SKS_W <= floats; i += SKS_W) vf_store(out + i, vf_xor(vf_load(q + i), sign));
    if (i < floats) vf_store_n(out + i, vf_xor(vf_load_n(q + i, floats - i), sign), floats - i);
}

/* Every kernel below runs one always-inline block body: with count = SKS_W (a constant) for the
 * full blocks and count = n - i for the tail, so the full blocks carry no tail logic. */
#define FOR_BLOCKS(n, body)                                                                   \
    do {                                                                                      \
        size_t i_ = 0;                                                                        \
        for (; i_ + SKS_W <= (n); i_ += SKS_W) body(i_, (size_t)SKS_W);                       \
        if (i_ < (n)) body(i_, (n) - i_);                                                     \
    } while (0)

/* A block with a lane whose dot(q, q) lies outside the fast range (zero, tiny, huge, inf, NaN)
 * goes through the per-element helper, which takes the same path for in-range lanes
 * (bit-identical). */
static SKS_ALWAYS_INLINE void normalize_block(float *out, const float *q, size_t count)
{
    const unsigned all = (1u << SKS_W) - 1u;
    quat_soa v = quat_soa_load_n(q, 4, count);
    const vf n2 = quat_soa_dot(v, v);
    const vm ok = vm_and(vf_ge(n2, vf_set1(SKS_NORM2_MIN)), vf_le(n2, vf_set1(SKS_NORM2_MAX)));
    const vf len = vf_sqrt(n2);
    if (((vm_bits(ok) | ~vm_bits(vm_first_items(count))) & all) == all) {
        v.x = vf_div(v.x, len);
        v.y = vf_div(v.y, len);
        v.z = vf_div(v.z, len);
        v.w = vf_div(v.w, len);
        quat_soa_store_n(out, 4, v, count);
    } else {
        size_t l;   /* rare: the whole block element by element */
        for (l = 0; l < count; l++) sks_quat_normalize_scalar(out + 4 * l, q + 4 * l);
    }
}

static void normalize(float *out, const float *q, size_t n)
{
#define NORMALIZE_BLOCK(i, count) normalize_block(out + 4 * (i), q + 4 * (i), (count))
    FOR_BLOCKS(n, NORMALIZE_BLOCK);
#undef NORMALIZE_BLOCK
}

/* out[i] (3 floats) = R(q[i q_step] / |q|) v[i v_step]; out may equal v (a block is loaded
 * before it is stored). The 3-vectors are transposed like quaternions with a zero fourth lane. */
static SKS_ALWAYS_INLINE void rotate_block(float *out, const float *q, ptrdiff_t qs, const float *v,
                                           ptrdiff_t vs, size_t count)
{
    const vf zero = vf_zero();
    quat_soa vv, o;
    vf r[9];
    vv.x = vf_load_rows_xyz(v, vs, quat_soa_rows_in(count, 0));
    vv.y = vf_load_rows_xyz(v + SKS_ROWS * vs, vs, quat_soa_rows_in(count, 1));
    vv.z = vf_load_rows_xyz(v + 2 * SKS_ROWS * vs, vs, quat_soa_rows_in(count, 2));
    vv.w = vf_load_rows_xyz(v + 3 * SKS_ROWS * vs, vs, quat_soa_rows_in(count, 3));
    vf_transpose4_in_rows(&vv.x, &vv.y, &vv.z, &vv.w);
    quat_soa_scaled_rotation(r, quat_soa_load_n(q, qs, count), vf_set1(1.0f));
    o.x = row_dot3(r, vv.x, vv.y, vv.z, zero);
    o.y = row_dot3(r + 3, vv.x, vv.y, vv.z, zero);
    o.z = row_dot3(r + 6, vv.x, vv.y, vv.z, zero);
    o.w = zero;
    vf_transpose4_in_rows(&o.x, &o.y, &o.z, &o.w);
    vf_store_rows_xyz(out, 3, o.x, quat_soa_rows_in(count, 0));
    vf_store_rows_xyz(out + 3 * SKS_ROWS, 3, o.y, quat_soa_rows_in(count, 1));
    vf_store_rows_xyz(out + 6 * SKS_ROWS, 3, o.z, quat_soa_rows_in(count, 2));
    vf_store_rows_xyz(out + 9 * SKS_ROWS, 3, o.w, quat_soa_rows_in(count, 3));
}

static void rotate(float *out, const float *q, size_t q_step, const float *v, size_t v_step,
                   size_t n)
{
    const ptrdiff_t vs = 3 * (ptrdiff_t)v_step;
#define ROTATE_BLOCK(i, count)                                                                \
    (q_step ? rotate_block(out + 3 * (i), q + 4 * (i), 4, v + vs * (i), vs, (count))          \
            : rotate_block(out + 3 * (i), q, 0, v + vs * (i), vs, (count)))
    FOR_BLOCKS(n, ROTATE_BLOCK);
#undef ROTATE_BLOCK
}

/* out[i] (9 floats) = R(q[i] / |q|): rows of 3 floats, transposed out of SoA like joint rows. */
static SKS_ALWAYS_INLINE void to_matrix_block(float *out, const float *q, int scalar_first,
                                              size_t count)
{
    quat_soa p = quat_soa_load_n(q, 4, count);
    vf r[9];
    int row, k;
    if (scalar_first) {
        const quat_soa s = {p.y, p.z, p.w, p.x};
        p = s;
    }
    quat_soa_scaled_rotation(r, p, vf_set1(1.0f));
    for (row = 0; row < 3; row++) {
        vf v[4];
        v[0] = r[3 * row];
        v[1] = r[3 * row + 1];
        v[2] = r[3 * row + 2];
        v[3] = vf_zero();
        vf_transpose4_in_rows(&v[0], &v[1], &v[2], &v[3]);
        for (k = 0; k < 4; k++)
            vf_store_rows_xyz(out + 9 * k * SKS_ROWS + 3 * row, 9, v[k], quat_soa_rows_in(count, k));
    }
}

static void to_matrix(float *out, const float *q, size_t n, int scalar_first)
{
#define TO_MATRIX_BLOCK(i, count) to_matrix_block(out + 9 * (i), q + 4 * (i), scalar_first, (count))
    FOR_BLOCKS(n, TO_MATRIX_BLOCK);
#undef TO_MATRIX_BLOCK
}

static void from_matrix(float *out, const float *m, size_t n, int scalar_first)
{
    size_t i;
    for (i = 0; i < n; i++) {
        float q[4];
        sks_quat_from_rotation_scalar(q, m + 9 * i, 3);
        if (scalar_first) {
            out[4 * i] = q[3];
            out[4 * i + 1] = q[0];
            out[4 * i + 2] = q[1];
            out[4 * i + 3] = q[2];
        } else {
            memcpy(out + 4 * i, q, sizeof q);
        }
    }
}

/* out[i] (12 floats) = [s R(q / |q|) | t] of QTS joint x[i]: the quaternion and the (t, s)
 * halves of SKS_W joints are two SoA blocks of step 8. */
static SKS_ALWAYS_INLINE void qts_to_matrix_block(float *out, const float *x, size_t count)
{
    const quat_soa q = quat_soa_load_n(x, 8, count);
    const quat_soa ts = quat_soa_load_n(x + 4, 8, count);
    const vf t[3] = {ts.x, ts.y, ts.z};
    vf r[9];
    quat_soa_scaled_rotation(r, q, ts.w);
    joint_matrices_store_n(out, 12, r, t, count);
}

static void qts_to_matrix(float *out, const float *x, size_t n)
{
#define QTS_TO_MATRIX_BLOCK(i, count) qts_to_matrix_block(out + 12 * (i), x + 8 * (i), (count))
    FOR_BLOCKS(n, QTS_TO_MATRIX_BLOCK);
#undef QTS_TO_MATRIX_BLOCK
}

static void matrix_to_qts(float *out, const float *m, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) sks_matrix_to_qts_scalar(out + 8 * i, m + 12 * i);
}

SKS_ROW(quat) = {multiply, conjugate, normalize, rotate, to_matrix, from_matrix, qts_to_matrix,
                 matrix_to_qts};
