/*
 * convert.c -- rotation conversions (see convert.h for layouts and flags; vec_math.h for the
 * trigonometry and its error). Written once against the vector vocabulary: SKS_W rotations per
 * step in structure-of-arrays form (quat_ops.h's item order), the tail of a batch through the
 * same body with masked loads and stores. Errors below are max abs against float64, measured
 * on every variant (tests/test_convert.py holds them to the documented bounds).
 *
 * euler_to_quat  Half angles h = a / 2 (exact); (sin h, cos h) by vmath_sincos (radians) or
 *             vmath_sincos_deg (degrees: reduced exactly by multiples of 90 degrees first);
 *             elementary quaternions e = (sin h axis, cos h) composed as SciPy does: intrinsic
 *             (e0 e1) e2, extrinsic e2 (e1 e0) (quat_ops.h's Hamilton product; the zero
 *             components add nothing), so the sign is SciPy's. |h| beyond VMATH_TRIG_MAX
 *             (6000 rad; 4e6 degrees) or non-finite: that lane's sine and cosine in double
 *             (libm), rounded. Error <= 2.5e-7 per component, any angle.
 * quat_to_euler  SciPy's algorithm (Bernardes and Viollet 2022), on q of any non-zero scale
 *             (every step is an atan2 of two components, so no normalisation): with the axes
 *             (i, j, k) of the extrinsic order (intrinsic reversed), a, b, c, d = (w, qi, qj,
 *             sign qk) for proper Euler sequences, (w - qj, qi + sign qk, qj + w, sign qk - qi)
 *             otherwise; half_sum = atan2(b, a), half_diff = atan2(d, c), theta =
 *             2 atan2(hypot(c, d), hypot(a, b)) (minus pi/2 for Tait-Bryan). Gimbal lock is
 *             theta within 1e-7 of 0 or pi, decided as SciPy does (atan2(hypot(c, d), hypot(a,
 *             b)) <= 5e-8, or within 5e-8 of pi/2): the third angle is 0 and the first carries
 *             2 half_sum (near 0) or -+2 half_diff (near pi; the sign SciPy gives); otherwise
 *             the first and third are half_sum -+ half_diff (times sign for Tait-Bryan). The
 *             atan2s come as exact multiples of pi/4 plus a small part (vec_math.h), so the
 *             sums, the doubling and the wrap into [-pi, pi) are exact in the multiples and each
 *             angle rounds once. Near the lock the small a, b or c, d are differences of nearly
 *             equal components, exact in float32 (Sterbenz), so the angles stay accurate right
 *             up to it. Returns the count of locked rotations. A quaternion with dot(q, q)
 *             outside [1e-30, 1e30] is first scaled by a power of two (exact); zero gives
 *             (0, 0, 0), inf/NaN gives NaN. Error <= 4e-7 rad (a float32 ulp of pi is 2.4e-7;
 *             each angle rounds once, the middle one also carries the two hypots' rounding),
 *             <= 2.5e-5 degrees.
 * rotvec_to_quat  theta = sqrt((x^2 + y^2) + z^2), h = theta / 2: q = (v s, cos h) with
 *             s = sin(h) / theta: for h <= pi/4 (k = 0 after reduction) s = sinc(h) / 2 from
 *             the sine polynomial without its last step (no division, exact limit 1/2 at 0),
 *             else sin(h) / theta. Degrees: the same with h in degrees (exact reduction) and
 *             s = sinc(h pi/180) pi/360. theta beyond ROTVEC_FAST_MAX (3.2 rad, 183 degrees)
 *             or non-finite: the whole quaternion in double (below). Error <= 2.5e-7 per
 *             component, any length.
 * quat_to_rotvec  SciPy's canonical hemisphere (w < 0, or w == 0 and the first non-zero of x, y,
 *             z negative: negate), n = |xyz|, half angle = atan2(n, |w|) in multiples of pi/4:
 *             for half angles <= pi/8 (t = n/|w| <= tan(pi/8)) the scale is 2 atan(t) / (t |w|)
 *             = 2 (1 + t^2 A(t^2)) / |w| (no division by a small n, exact limit 2 / |w|), else
 *             2 angle / n; rotvec = scale xyz. Any non-zero scale of q (the ratio n/|w| and
 *             xyz/n are scale free); near pi the angle is pi - 2 atan(|w| / n), accurate. Zero
 *             q gives 0; inf/NaN NaN; dot(q, q) outside [1e-30, 1e30] is scaled by a power of
 *             two first. Error <= 3e-7 max(1, angle) per component (radians).
 * matrix_to_sixd  a copy of two columns (rows) of m: exact.
 * sixd_to_matrix  Gram-Schmidt as PyTorch3D's rotation_6d_to_matrix: b1 = a / |a| (|a| =
 *             sqrt((a0^2 + a1^2) + a2^2)), u = b - (b1.b) b1, b2 = u / |u|, then the same step
 *             once more on b2 (u = b2 - (b1.b2) b1, b2 = u / |u|: for nearly parallel a and b
 *             the first pass leaves b2 about 2^-24 / sin(a, b) off orthogonal, the second makes
 *             the result orthonormal to rounding level), b3 = b1 x b2 (each component a
 *             difference of two products); written as columns (rows). A zero a, or a b that is
 *             zero or within sin(a, b) <= 2^-20 of parallel to a (|u| <= 2^-20 |b|: u is then
 *             at most 16 roundings of b, too little for a direction or for the second pass),
 *             gives a NaN matrix (no rotation). |a|^2 or |b|^2 outside [1e-30, 1e30] is first
 *             scaled by a power of two (exact: the result does not depend on the scale of a or
 *             b). Error <= 3e-7 per entry for the 6D vector of a rotation; in general
 *             3e-7 / sin(a, b) (the conditioning of the problem).
 * quat_to_sixd  quat_soa_scaled_rotation (as quat_to_matrix), two columns (rows) stored: equal
 *             to matrix_to_sixd(quat_to_matrix(q)) bit for bit.
 * sixd_to_quat  sixd_to_matrix's body, then Shepperd's method on it with the operations of
 *             matrix_to_quat (quat_scalar.h) branch-free (every candidate computed, the largest
 *             of 4w^2, 4x^2, 4y^2, 4z^2 selected, normalised, w >= 0): equal to
 *             matrix_to_quat(sixd_to_matrix(d)) bit for bit.
 */
#include "target.h"
#include "convert.h"
#include "quat_ops.h"
#include "vec_math.h"

#include <math.h>

/* One always-inline block body with count = SKS_W (a constant) and more = 1 for the blocks
 * that have items after them, count = n - i (SKS_W at most) and more = 0 for the last block:
 * the full blocks carry no tail logic, and may read (and, for packed 3-vectors, write) one
 * float past their items (see vec3_load_n). */
#define FOR_BLOCKS(n, body)                                                                   \
    do {                                                                                      \
        size_t i_ = 0;                                                                        \
        for (; i_ + SKS_W < (n); i_ += SKS_W) body(i_, (size_t)SKS_W, 1);                     \
        if (i_ < (n)) body(i_, (n) - i_, 0);                                                  \
    } while (0)

#define ALL_LANES ((1u << SKS_W) - 1u)

/* Range of dot products the vector bodies take as they are; outside it (zero, tiny, huge,
 * non-finite) the rare path rescales first. */
#define NORM2_MIN 1e-30f
#define NORM2_MAX 1e30f

/* ---- loads and stores ------------------------------------------------------------------ */

/* The first `count` 3-vectors at p, p + stride, ... into SoA (x, y, z), item order. With `more`
 * (a constant: the block has items after it) each is read as 4 floats, the fourth being the
 * next item's (two loads per vector instead of six on avx2); otherwise exactly 3. */
static SKS_ALWAYS_INLINE void vec3_load_n(const float *p, ptrdiff_t stride, size_t count, int more, vf v[3])
{
    vf r[4];
    int k;
    for (k = 0; k < 4; k++) {
        const float *row = p + k * SKS_ROWS * stride;
        r[k] = more ? vf_load_rows(row, stride) : vf_load_rows_xyz(row, stride, quat_soa_rows_in(count, k));
    }
    vf_transpose4_in_rows(&r[0], &r[1], &r[2], &r[3]);
    v[0] = r[0];
    v[1] = r[1];
    v[2] = r[2];
}

/* The first `count` 3-vectors of a block stored at p, p + stride, ... With `more` and packed
 * vectors (stride 3), each is written as 4 floats in increasing order, the fourth (0) landing on
 * the next item's first float before that item is written (the next block's first item is
 * written by the next block); otherwise exactly 3 floats each. */
static SKS_ALWAYS_INLINE void vec3_store_n(float *p, ptrdiff_t stride, vf x, vf y, vf z, size_t count, int more)
{
    vf w = vf_zero();
    vf r[4];
    int k;
    vf_transpose4_in_rows(&x, &y, &z, &w);
    r[0] = x;
    r[1] = y;
    r[2] = z;
    r[3] = w;
    for (k = 0; k < 4; k++) {
        float *row = p + k * SKS_ROWS * stride;
        if (more && stride == 3) vf_store_rows(row, stride, r[k]);
        else vf_store_rows_xyz(row, stride, r[k], quat_soa_rows_in(count, k));
    }
}

/* Quaternions in memory order (x, y, z, w), or (w, x, y, z) when scalar_first. */
static SKS_ALWAYS_INLINE quat_soa quat_load_n(const float *p, size_t count, int scalar_first)
{
    const quat_soa q = quat_soa_load_n(p, 4, count);
    if (scalar_first) {
        const quat_soa r = {q.y, q.z, q.w, q.x};
        return r;
    }
    return q;
}

static SKS_ALWAYS_INLINE void quat_store_n(float *p, quat_soa q, size_t count, int scalar_first)
{
    if (scalar_first) {
        const quat_soa r = {q.w, q.x, q.y, q.z};
        q = r;
    }
    quat_soa_store_n(p, 4, q, count);
}

static void quat_store_scalar(float *p, const double q[4], int scalar_first)
{
    if (scalar_first) {
        p[0] = (float)q[3];
        p[1] = (float)q[0];
        p[2] = (float)q[1];
        p[3] = (float)q[2];
    } else {
        p[0] = (float)q[0];
        p[1] = (float)q[1];
        p[2] = (float)q[2];
        p[3] = (float)q[3];
    }
}

/* Lanes of a block of `count` items (item order) whose mask is clear; lanes past the items
 * count as set. */
static SKS_ALWAYS_INLINE unsigned lanes_failing(vm ok, size_t count)
{
    return ~(vm_bits(ok) | ~vm_bits(vmath_first_n_items(count))) & ALL_LANES;
}

static SKS_ALWAYS_INLINE unsigned popcount(unsigned x)
{
    unsigned c = 0;
    for (; x; x &= x - 1u) c++;
    return c;
}

/* ---- rare lanes: exact power-of-two rescaling ---------------------------------------------- */

/* The 3 or 4 floats v scaled by a power of two so that their largest magnitude is in [1, 2)
 * (exact), when dot(v, v) is outside [NORM2_MIN, NORM2_MAX] as the vector bodies compute it
 * (`n2`); zero stays zero; any inf/NaN component makes all of them NaN. Returns 1 when v was
 * zero, 2 when non-finite, 0 otherwise. */
static int rescale_scalar(float *v, int len, float n2)
{
    float m = 0.0f;
    int i, e;
    if (n2 >= NORM2_MIN && n2 <= NORM2_MAX) return 0;
    for (i = 0; i < len; i++) {
        if (!(fabsf(v[i]) <= 3.4028235e38f)) {
            for (i = 0; i < len; i++) v[i] = NAN;
            return 2;
        }
        m = fabsf(v[i]) > m ? fabsf(v[i]) : m;
    }
    if (m == 0.0f) return 1;
    (void)frexpf(m, &e);
    for (i = 0; i < len; i++) v[i] = ldexpf(v[i], 1 - e);
    return 0;
}

/* dot(q, q) in quat_soa_dot's order on (x, y, z, w) = q in memory, or (q1, q2, q3, q0) when
 * scalar_first, so that the rare path rescales exactly the items the vector test flagged. */
static SKS_ALWAYS_INLINE float quat_dot_scalar(const float *q, int scalar_first)
{
    if (scalar_first) return (q[1] * q[1] + q[3] * q[3]) + (q[2] * q[2] + q[0] * q[0]);
    return (q[0] * q[0] + q[2] * q[2]) + (q[1] * q[1] + q[3] * q[3]);
}

static SKS_ALWAYS_INLINE float vec3_dot_scalar(const float *v)
{
    return (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
}

static SKS_ALWAYS_INLINE vf vec3_dot(const vf *a, const vf *b)
{
    return vf_add(vf_add(vf_mul(a[0], b[0]), vf_mul(a[1], b[1])), vf_mul(a[2], b[2]));
}

/* Copies `count` quaternions to buf, rescaled (rescale_scalar); the masks give the lanes of
 * zero and of non-finite quaternions in item order. */
static SKS_ALWAYS_INLINE void quat_rescale_block(float *buf, const float *q, size_t count, int scalar_first,
                                                 unsigned *zero_items, unsigned *bad_items)
{
    size_t l;
    memcpy(buf, q, 4 * count * sizeof(float));
    memset(buf + 4 * count, 0, 4 * (SKS_W - count) * sizeof(float));
    *zero_items = *bad_items = 0;
    for (l = 0; l < count; l++) {
        const int kind = rescale_scalar(buf + 4 * l, 4, quat_dot_scalar(buf + 4 * l, scalar_first));
        if (kind == 1) *zero_items |= 1u << l;
        if (kind == 2) *bad_items |= 1u << l;
    }
}

/* A mask with the lanes of the items whose bits are set. */
static SKS_ALWAYS_INLINE vm items_mask(unsigned items)
{
    float f[SKS_W];
    unsigned lane;
    for (lane = 0; lane < SKS_W; lane++) f[lane] = (items >> vmath_item_of_lane(lane)) & 1u ? 1.0f : 0.0f;
    return vf_gt(vf_load(f), vf_zero());
}

/* A block of quaternions for the conversions that accept any scale: loaded (scalar_first
 * order), and when some lane's dot(q, q) is outside [NORM2_MIN, NORM2_MAX] (rare) reloaded from
 * a copy rescaled by powers of two (exact). Returns 0, or 1 with *zero and *bad set to the lanes
 * of zero and of non-finite quaternions (for special_results). */
static SKS_ALWAYS_INLINE int quat_load_any_scale(quat_soa *v, const float *q, size_t count,
                                                 int scalar_first, vm *zero, vm *bad)
{
    float buf[4 * SKS_W];
    unsigned zero_items, bad_items;
    vf n2;
    *v = quat_load_n(q, count, scalar_first);
    *zero = *bad = vf_lt(vf_zero(), vf_zero());   /* no lanes */
    n2 = quat_soa_dot(*v, *v);
    if (!lanes_failing(vm_and(vf_ge(n2, vf_set1(NORM2_MIN)), vf_le(n2, vf_set1(NORM2_MAX))), count))
        return 0;
    quat_rescale_block(buf, q, count, scalar_first, &zero_items, &bad_items);
    *v = quat_load_n(buf, count, scalar_first);
    *zero = items_mask(zero_items);
    *bad = items_mask(bad_items);
    return 1;
}

/* The results of zero quaternions (the identity: 0) and non-finite ones (NaN). */
static SKS_ALWAYS_INLINE void special_results(vf r[3], vm zero, vm bad)
{
    int o;
    for (o = 0; o < 3; o++) r[o] = vf_select(bad, vf_set1(NAN), vf_ifnot(zero, r[o]));
}

static SKS_ALWAYS_INLINE vtrig half_angle_trig(vf angle, int degrees, size_t count)
{
    const vf h = vf_mul(angle, vf_set1(0.5f));
    vtrig t = degrees ? vmath_sincos_deg(h) : vmath_sincos(h);
    const unsigned bad = lanes_failing(vmath_trig_ok(h, degrees), count);
    if (bad) vmath_trig_patch(&t, h, bad, degrees);
    return t;
}

/* ---- Euler angles ------------------------------------------------------------------------- */

/* (sin h e_axis, cos h) */
static SKS_ALWAYS_INLINE quat_soa elementary(int axis, vtrig t)
{
    quat_soa e;
    e.x = axis == 0 ? t.sin : vf_zero();
    e.y = axis == 1 ? t.sin : vf_zero();
    e.z = axis == 2 ? t.sin : vf_zero();
    e.w = t.cos;
    return e;
}

static SKS_ALWAYS_INLINE void euler_to_quat_block(float *out, const float *angles, size_t count, int more,
                                                  int seq, int degrees, int scalar_first)
{
    vf a[3];
    quat_soa e[3], q;
    int i;
    vec3_load_n(angles, 3, count, more, a);
    for (i = 0; i < 3; i++) e[i] = elementary(SKS_EULER_AXIS(seq, i), half_angle_trig(a[i], degrees, count));
    if (SKS_EULER_EXTRINSIC(seq)) q = quat_soa_mul(e[2], quat_soa_mul(e[1], e[0]));
    else q = quat_soa_mul(quat_soa_mul(e[0], e[1]), e[2]);
    quat_store_n(out, q, count, scalar_first);
}

static void euler_to_quat(float *out, const float *angles, size_t n, int seq, int flags)
{
    const int degrees = flags & SKS_CONVERT_DEGREES, scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
#define EULER_TO_QUAT_BLOCK(i, count, more)                                                         \
    euler_to_quat_block(out + 4 * (i), angles + 3 * (i), (count), (more), seq, degrees, scalar_first)
    FOR_BLOCKS(n, EULER_TO_QUAT_BLOCK);
#undef EULER_TO_QUAT_BLOCK
}

/* SciPy's frame for a sequence: the axes in extrinsic order, k replaced by the remaining axis
 * for proper Euler sequences, and the permutation's sign. */
typedef struct euler_frame {
    int i, j, k, extrinsic, symmetric;
    vf sign;   /* -0.0 when the sign is -1, else +0.0: xor flips */
} euler_frame;

static euler_frame make_frame(int seq)
{
    euler_frame f;
    int a0 = SKS_EULER_AXIS(seq, 0), a2 = SKS_EULER_AXIS(seq, 2);
    f.extrinsic = SKS_EULER_EXTRINSIC(seq);
    f.i = f.extrinsic ? a0 : a2;
    f.j = SKS_EULER_AXIS(seq, 1);
    f.k = f.extrinsic ? a2 : a0;
    f.symmetric = f.i == f.k;
    if (f.symmetric) f.k = 3 - f.i - f.j;
    f.sign = vf_set1((f.i - f.j) * (f.j - f.k) * (f.k - f.i) / 2 < 0 ? -0.0f : 0.0f);
    return f;
}

/* The angles of one block of quaternions q (x, y, z, w SoA); returns the lock mask. The frame's
 * axes come again as i, j, k: constants in each instance (quat_to_euler), so the components
 * are picked at compile time. */
static SKS_ALWAYS_INLINE vm euler_angles(vf out[3], quat_soa q, const euler_frame *f, int i, int j, int k,
                                         int degrees)
{
    const vf comp[4] = {q.x, q.y, q.z, q.w};
    const vf qi = comp[i], qj = comp[j], qk = vf_xor(comp[k], f->sign);
    vf a, b, c, d, t, z;
    vangle diff, sum, theta, first, third, middle;
    vm lock0, lock_pi, lock;
    int o;
    if (f->symmetric) {
        a = q.w;
        b = qi;
        c = qj;
        d = qk;
    } else {
        a = vf_sub(q.w, qj);
        b = vf_add(qi, qk);
        c = vf_add(qj, q.w);
        d = vf_sub(qk, qi);
    }
    /* half_sum -+ half_diff = arg((a + i b) (c -+ i d)), already in (-pi, pi]: no wrap */
    diff = vmath_atan2(vf_sub(vf_mul(b, c), vf_mul(a, d)), vf_add(vf_mul(a, c), vf_mul(b, d)));
    sum = vmath_atan2(vf_add(vf_mul(b, c), vf_mul(a, d)), vf_sub(vf_mul(a, c), vf_mul(b, d)));
    theta = vmath_atan2_pos(vf_sqrt(vf_add(vf_mul(c, c), vf_mul(d, d))), vf_sqrt(vf_add(vf_mul(a, a), vf_mul(b, b))),
                            &t, &z);
    lock0 = vm_and(vf_eq(theta.m, vf_zero()), vf_le(theta.s, vf_set1(5e-8f)));
    lock_pi = vm_and(vf_eq(theta.m, vf_set1(2.0f)), vf_ge(theta.s, vf_set1(-5e-8f)));
    lock = vm_or(lock0, lock_pi);
    middle = vangle_twice(theta);
    if (!f->symmetric) middle.m = vf_sub(middle.m, vf_set1(2.0f));
    if (!f->symmetric) sum = vangle_xorsign(sum, f->sign);
    if (f->extrinsic) {
        first = diff;
        third = sum;
    } else {
        first = sum;
        third = diff;
    }
    if (vm_any(lock)) {
        /* locked (rare): the third angle is 0 and the first carries the whole rotation about the
         * aligned axes, 2 half_sum (near 0) or -+2 half_diff (near pi), wrapped */
        vangle a0 = vangle_select(lock0, vangle_twice(vmath_atan2(b, a)),
                                  vangle_xorsign(vangle_twice(vmath_atan2(d, c)),
                                                 vf_set1(f->extrinsic ? -0.0f : 0.0f)));
        if (!f->extrinsic && !f->symmetric) a0 = vangle_xorsign(a0, f->sign);
        first = vangle_select(lock, vangle_wrap(a0), first);
        third.m = vf_ifnot(lock, third.m);
        third.s = vf_ifnot(lock, third.s);
    }
    {
        const vangle r[3] = {first, middle, third};
        for (o = 0; o < 3; o++) out[o] = degrees ? vangle_degrees(r[o]) : vangle_radians(r[o]);
    }
    return lock;
}

static SKS_ALWAYS_INLINE size_t quat_to_euler_block(float *out, const float *q, size_t count, int more,
                                                    const euler_frame *f, int i, int j, int k,
                                                    int degrees, int scalar_first)
{
    quat_soa v;
    vm zero, bad;
    vf e[3];
    const int special = quat_load_any_scale(&v, q, count, scalar_first, &zero, &bad);
    unsigned locked = vm_bits(euler_angles(e, v, f, i, j, k, degrees)) & vm_bits(vmath_first_n_items(count));
    if (special) {
        special_results(e, zero, bad);
        locked &= ~vm_bits(vm_or(zero, bad));
    }
    vec3_store_n(out, 3, e[0], e[1], e[2], count, more);
    return popcount(locked);
}

static SKS_ALWAYS_INLINE size_t quat_to_euler_axes(float *out, const float *q, size_t n, const euler_frame *f,
                                                   int i, int j, int k, int degrees, int scalar_first)
{
    size_t locked = 0;
#define QUAT_TO_EULER_BLOCK(b, count, more)                                                   \
    locked += quat_to_euler_block(out + 3 * (b), q + 4 * (b), (count), (more), f, i, j, k, degrees, scalar_first)
    FOR_BLOCKS(n, QUAT_TO_EULER_BLOCK);
#undef QUAT_TO_EULER_BLOCK
    return locked;
}

/* One instance per permutation (i, j, k) of the frame's axes. */
static size_t quat_to_euler(float *out, const float *q, size_t n, int seq, int flags)
{
    const euler_frame f = make_frame(seq);
    const int degrees = flags & SKS_CONVERT_DEGREES, scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
    switch (f.i * 3 + f.j) {
    case 1: return quat_to_euler_axes(out, q, n, &f, 0, 1, 2, degrees, scalar_first);
    case 2: return quat_to_euler_axes(out, q, n, &f, 0, 2, 1, degrees, scalar_first);
    case 3: return quat_to_euler_axes(out, q, n, &f, 1, 0, 2, degrees, scalar_first);
    case 5: return quat_to_euler_axes(out, q, n, &f, 1, 2, 0, degrees, scalar_first);
    case 6: return quat_to_euler_axes(out, q, n, &f, 2, 0, 1, degrees, scalar_first);
    default: return quat_to_euler_axes(out, q, n, &f, 2, 1, 0, degrees, scalar_first);
    }
}

/* ---- rotation vectors ----------------------------------------------------------------------- */

/* Rotation vectors longer than a little over half a turn (3.2 rad, 183 degrees: every vector
 * quat_to_rotvec and SciPy's as_rotvec give, rounding included, stays below) go through the
 * double path: the float32 norm's rounding (about 1.25 ulp of theta) moves the half angle by up
 * to 0.6 ulp of theta, which keeps the quaternion within its bound only up to there. */
#define ROTVEC_FAST_MAX 3.2f
#define ROTVEC_FAST_MAX_DEG 183.0f

/* The quaternion of rotation vector v (3 floats, radians or degrees) in double, rounded. */
static void rotvec_to_quat_double(float *out, const float *v, int degrees, int scalar_first)
{
    const double k = degrees ? 3.14159265358979323846 / 180.0 : 1.0;
    const double x = v[0] * k, y = v[1] * k, z = v[2] * k;
    const double theta = sqrt(x * x + y * y + z * z);
    double q[4], s;
    if (degrees) {
        /* the half angle reduced modulo 360 degrees exactly before the conversion */
        const double hd = 0.5 * sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
        double c;
        vmath_sincos_double(hd, 1, &s, &c);
        q[3] = c;
    } else {
        s = sin(0.5 * theta);
        q[3] = cos(0.5 * theta);
    }
    s = theta > 0.0 ? s / theta : NAN;   /* theta is not 0 here: large, inf or NaN */
    q[0] = x * s;
    q[1] = y * s;
    q[2] = z * s;
    quat_store_scalar(out, q, scalar_first);
}

static SKS_ALWAYS_INLINE void rotvec_to_quat_block(float *out, const float *rv, size_t count, int more,
                                                   int degrees, int scalar_first)
{
    vf v[3];
    vf theta, h, z, s;
    vtrig t;
    quat_soa q;
    unsigned bad;
    vec3_load_n(rv, 3, count, more, v);
    theta = vf_sqrt(vec3_dot(v, v));
    h = vf_mul(theta, vf_set1(0.5f));
    t = vmath_sincos_low(h, degrees);   /* h <= 1.6 rad (91.5 degrees) on this path */
    z = vf_mul(t.r, t.r);
    s = vf_select(vf_eq(t.k, vf_zero()),
                  vf_mul(vmath_sinc_poly(z), vf_set1(degrees ? 8.726646192e-03f : 0.5f)),
                  vf_div(t.sin, theta));
    q.x = vf_mul(v[0], s);
    q.y = vf_mul(v[1], s);
    q.z = vf_mul(v[2], s);
    q.w = t.cos;
    quat_store_n(out, q, count, scalar_first);
    bad = lanes_failing(vf_le(theta, vf_set1(degrees ? ROTVEC_FAST_MAX_DEG : ROTVEC_FAST_MAX)), count);
    if (bad) {   /* beyond half a turn, or non-finite: in double */
        unsigned lane;
        for (lane = 0; lane < SKS_W; lane++) {
            if (bad >> lane & 1u) {
                const size_t item = vmath_item_of_lane(lane);
                rotvec_to_quat_double(out + 4 * item, rv + 3 * item, degrees, scalar_first);
            }
        }
    }
}

static void rotvec_to_quat(float *out, const float *v, size_t n, int flags)
{
    const int degrees = flags & SKS_CONVERT_DEGREES, scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
#define ROTVEC_TO_QUAT_BLOCK(i, count, more)                                                        \
    rotvec_to_quat_block(out + 4 * (i), v + 3 * (i), (count), (more), degrees, scalar_first)
    FOR_BLOCKS(n, ROTVEC_TO_QUAT_BLOCK);
#undef ROTVEC_TO_QUAT_BLOCK
}

/* The rotation vectors of one block of quaternions (any non-zero scale). */
static SKS_ALWAYS_INLINE void rotvec_of(vf out[3], quat_soa q, int degrees)
{
    const vf zero = vf_zero();
    /* SciPy's canonical hemisphere: negate when w < 0, or w == 0 and the first non-zero of
     * x, y, z is negative */
    const vm wz = vf_eq(q.w, zero), xz = vf_eq(q.x, zero), yz = vf_eq(q.y, zero);
    const vm flip = vm_or(vf_lt(q.w, zero),
                          vm_and(wz, vm_or(vf_lt(q.x, zero),
                                           vm_and(xz, vm_or(vf_lt(q.y, zero), vm_and(yz, vf_lt(q.z, zero)))))));
    const vf xyz[3] = {q.x, q.y, q.z};
    const vf n = vf_sqrt(vec3_dot(xyz, xyz)), aw = vf_abs(q.w);
    vf t, z, scale_small, scale;
    /* half angle atan2(n, |w|) in [0, pi/2]; m = 0: up to pi/8, t = n / |w| */
    const vangle half = vmath_atan2_pos(n, aw, &t, &z);
    const vm small = vf_eq(half.m, vf_zero());
    /* 2 atan(t) / n = 2 (atan(t) / t) / |w| for small angles; 2 half / n otherwise */
    scale_small = vf_div(vf_mul(vmath_atan_over_t_poly(z), vf_set1(degrees ? 1.145915604e+02f : 2.0f)), aw);
    scale = vf_div(vf_mul(degrees ? vangle_degrees(half) : vangle_radians(half), vf_set1(2.0f)), n);
    scale = vf_select(small, scale_small, scale);
    scale = vf_xor(scale, vf_if(flip, vf_set1(-0.0f)));
    out[0] = vf_mul(q.x, scale);
    out[1] = vf_mul(q.y, scale);
    out[2] = vf_mul(q.z, scale);
}

static SKS_ALWAYS_INLINE void quat_to_rotvec_block(float *out, const float *q, size_t count, int more,
                                                   int degrees, int scalar_first)
{
    quat_soa v;
    vm zero, bad;
    vf r[3];
    const int special = quat_load_any_scale(&v, q, count, scalar_first, &zero, &bad);
    rotvec_of(r, v, degrees);
    if (special) special_results(r, zero, bad);
    vec3_store_n(out, 3, r[0], r[1], r[2], count, more);
}

static void quat_to_rotvec(float *out, const float *q, size_t n, int flags)
{
    const int degrees = flags & SKS_CONVERT_DEGREES, scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
#define QUAT_TO_ROTVEC_BLOCK(i, count, more)                                                        \
    quat_to_rotvec_block(out + 3 * (i), q + 4 * (i), (count), (more), degrees, scalar_first)
    FOR_BLOCKS(n, QUAT_TO_ROTVEC_BLOCK);
#undef QUAT_TO_ROTVEC_BLOCK
}

/* ---- 6D ---------------------------------------------------------------------------------------- */

static void matrix_to_sixd(float *out, const float *m, size_t n, int flags)
{
    size_t i;
    if (flags & SKS_CONVERT_ROWS) {
        for (i = 0; i < n; i++) memcpy(out + 6 * i, m + 9 * i, 6 * sizeof(float));
        return;
    }
    for (i = 0; i < n; i++) {
        const float *a = m + 9 * i;
        float *o = out + 6 * i;
        o[0] = a[0];
        o[1] = a[3];
        o[2] = a[6];
        o[3] = a[1];
        o[4] = a[4];
        o[5] = a[7];
    }
}

/* The rotation (9 SoA entries, row-major) of one block of 6D vectors (a, b), Gram-Schmidt. */
static SKS_ALWAYS_INLINE void gram_schmidt(vf r[9], const vf *a, const vf *b, int rows)
{
    const vf na = vf_sqrt(vec3_dot(a, a));
    vf b1[3], u[3], b2[3], b3[3], d, nu;
    vm degenerate;
    int i;
    for (i = 0; i < 3; i++) b1[i] = vf_div(a[i], na);
    d = vec3_dot(b1, b);
    for (i = 0; i < 3; i++) u[i] = vf_sub(b[i], vf_mul(d, b1[i]));
    nu = vec3_dot(u, u);
    /* b zero or within 2^-20 of parallel to a: what is left of it is mostly rounding noise */
    degenerate = vf_le(nu, vf_mul(vf_set1(0x1p-40f), vec3_dot(b, b)));
    nu = vf_sqrt(nu);
    for (i = 0; i < 3; i++) b2[i] = vf_div(u[i], nu);
    /* once more ("twice is enough"): for nearly parallel a and b the first pass leaves b2 off
     * orthogonal by about 2^-24 / sin(a, b); the second brings it to rounding level */
    d = vec3_dot(b1, b2);
    for (i = 0; i < 3; i++) u[i] = vf_sub(b2[i], vf_mul(d, b1[i]));
    nu = vf_sqrt(vec3_dot(u, u));
    for (i = 0; i < 3; i++) b2[i] = vf_div(u[i], nu);
    b3[0] = vf_sub(vf_mul(b1[1], b2[2]), vf_mul(b1[2], b2[1]));
    b3[1] = vf_sub(vf_mul(b1[2], b2[0]), vf_mul(b1[0], b2[2]));
    b3[2] = vf_sub(vf_mul(b1[0], b2[1]), vf_mul(b1[1], b2[0]));
    for (i = 0; i < 3; i++) {
        b1[i] = vf_select(degenerate, vf_set1(NAN), b1[i]);
        b2[i] = vf_select(degenerate, vf_set1(NAN), b2[i]);
        b3[i] = vf_select(degenerate, vf_set1(NAN), b3[i]);
    }
    for (i = 0; i < 3; i++) {
        if (rows) {
            r[i] = b1[i];
            r[3 + i] = b2[i];
            r[6 + i] = b3[i];
        } else {
            r[3 * i] = b1[i];
            r[3 * i + 1] = b2[i];
            r[3 * i + 2] = b3[i];
        }
    }
}

/* The first `count` 6D vectors at d as SoA (a, b), rescaled first when |a|^2 or |b|^2 is
 * outside [NORM2_MIN, NORM2_MAX] (rare). */
static SKS_ALWAYS_INLINE void sixd_load_n(const float *d, size_t count, int more, vf a[3], vf b[3])
{
    vm ok;
    vec3_load_n(d, 6, count, more, a);
    vec3_load_n(d + 3, 6, count, more, b);
    {
        const vf na = vec3_dot(a, a), nb = vec3_dot(b, b);
        ok = vm_and(vm_and(vf_ge(na, vf_set1(NORM2_MIN)), vf_le(na, vf_set1(NORM2_MAX))),
                    vm_and(vf_ge(nb, vf_set1(NORM2_MIN)), vf_le(nb, vf_set1(NORM2_MAX))));
    }
    if (lanes_failing(ok, count)) {
        float buf[6 * SKS_W];
        size_t l;
        memcpy(buf, d, 6 * count * sizeof(float));
        memset(buf + 6 * count, 0, 6 * (SKS_W - count) * sizeof(float));
        for (l = 0; l < count; l++) {
            (void)rescale_scalar(buf + 6 * l, 3, vec3_dot_scalar(buf + 6 * l));
            (void)rescale_scalar(buf + 6 * l + 3, 3, vec3_dot_scalar(buf + 6 * l + 3));
        }
        vec3_load_n(buf, 6, count, 0, a);
        vec3_load_n(buf + 3, 6, count, 0, b);
    }
}

static SKS_ALWAYS_INLINE void sixd_to_matrix_block(float *out, const float *d, size_t count, int more, int rows)
{
    vf a[3], b[3], r[9];
    int row;
    sixd_load_n(d, count, more, a, b);
    gram_schmidt(r, a, b, rows);
    for (row = 0; row < 3; row++) vec3_store_n(out + 3 * row, 9, r[3 * row], r[3 * row + 1], r[3 * row + 2], count, 0);
}

static void sixd_to_matrix(float *out, const float *d, size_t n, int flags)
{
    const int rows = (flags & SKS_CONVERT_ROWS) != 0;
#define SIXD_TO_MATRIX_BLOCK(i, count, more) sixd_to_matrix_block(out + 9 * (i), d + 6 * (i), (count), (more), rows)
    FOR_BLOCKS(n, SIXD_TO_MATRIX_BLOCK);
#undef SIXD_TO_MATRIX_BLOCK
}

static SKS_ALWAYS_INLINE void quat_to_sixd_block(float *out, const float *q, size_t count, int more, int rows,
                                                 int scalar_first)
{
    vf r[9];
    quat_soa_scaled_rotation(r, quat_load_n(q, count, scalar_first), vf_set1(1.0f));
    if (rows) {
        vec3_store_n(out, 6, r[0], r[1], r[2], count, 0);
        vec3_store_n(out + 3, 6, r[3], r[4], r[5], count, 0);
    } else {
        vec3_store_n(out, 6, r[0], r[3], r[6], count, 0);
        vec3_store_n(out + 3, 6, r[1], r[4], r[7], count, 0);
    }
}

static void quat_to_sixd(float *out, const float *q, size_t n, int flags)
{
    const int rows = (flags & SKS_CONVERT_ROWS) != 0;
    const int scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
#define QUAT_TO_SIXD_BLOCK(i, count, more) quat_to_sixd_block(out + 6 * (i), q + 4 * (i), (count), (more), rows, scalar_first)
    FOR_BLOCKS(n, QUAT_TO_SIXD_BLOCK);
#undef QUAT_TO_SIXD_BLOCK
}

/* Shepperd's method as sks_quat_from_rotation_scalar (quat_scalar.h), branch-free. */
static SKS_ALWAYS_INLINE quat_soa shepperd(const vf m[9])
{
    const vf one = vf_set1(1.0f);
    const vf p = vf_add(one, m[0]), s = vf_add(m[4], m[8]), u = vf_sub(one, m[0]), d = vf_sub(m[4], m[8]);
    const vf dw = vf_add(p, s), dx = vf_sub(p, s), dy = vf_add(u, d), dz = vf_sub(u, d);
    const vf s01 = vf_add(m[1], m[3]), s02 = vf_add(m[2], m[6]), s12 = vf_add(m[5], m[7]);
    const vf d21 = vf_sub(m[7], m[5]), d02 = vf_sub(m[2], m[6]), d10 = vf_sub(m[3], m[1]);
    const vm selx = vf_gt(dx, dw);
    const vf best1 = vf_select(selx, dx, dw);
    const vm sely = vf_gt(dy, best1);
    const vm selz = vf_gt(dz, vf_select(sely, dy, best1));
    quat_soa v;
    vf n;
    v.x = vf_select(selz, s02, vf_select(sely, s01, vf_select(selx, dx, d21)));
    v.y = vf_select(selz, s12, vf_select(sely, dy, vf_select(selx, s01, d02)));
    v.z = vf_select(selz, dz, vf_select(sely, s12, vf_select(selx, s02, d10)));
    v.w = vf_select(selz, d10, vf_select(sely, d02, vf_select(selx, d21, dw)));
    n = vf_sqrt(quat_soa_dot(v, v));
    v.x = vf_div(v.x, n);
    v.y = vf_div(v.y, n);
    v.z = vf_div(v.z, n);
    v.w = vf_div(v.w, n);
    {
        const vf flip = vf_if(vf_lt(v.w, vf_zero()), vf_set1(-0.0f));
        v.x = vf_xor(v.x, flip);
        v.y = vf_xor(v.y, flip);
        v.z = vf_xor(v.z, flip);
        v.w = vf_xor(v.w, flip);
    }
    return v;
}

static SKS_ALWAYS_INLINE void sixd_to_quat_block(float *out, const float *d, size_t count, int more, int rows,
                                                 int scalar_first)
{
    vf a[3], b[3], r[9];
    sixd_load_n(d, count, more, a, b);
    gram_schmidt(r, a, b, rows);
    quat_store_n(out, shepperd(r), count, scalar_first);
}

static void sixd_to_quat(float *out, const float *d, size_t n, int flags)
{
    const int rows = (flags & SKS_CONVERT_ROWS) != 0;
    const int scalar_first = (flags & SKS_CONVERT_SCALAR_FIRST) != 0;
#define SIXD_TO_QUAT_BLOCK(i, count, more) sixd_to_quat_block(out + 4 * (i), d + 6 * (i), (count), (more), rows, scalar_first)
    FOR_BLOCKS(n, SIXD_TO_QUAT_BLOCK);
#undef SIXD_TO_QUAT_BLOCK
}

SKS_ROW(convert) = {euler_to_quat,  quat_to_euler, rotvec_to_quat, quat_to_rotvec,
                    matrix_to_sixd, sixd_to_matrix, quat_to_sixd,  sixd_to_quat};
