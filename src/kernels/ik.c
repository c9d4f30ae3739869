/*
 * ik.c -- two-bone and aim inverse kinematics, and the aim spread over a chain (look-at, its
 * section below); see ik.h. Written once against the vector vocabulary and compiled per target
 * (target.h). SKS_W chains side by side, one per lane, in structure-of-arrays form (quat_ops.h's
 * item order): a joint matrix is loaded as its three rows (four floats each, quat_soa_load with
 * a step of 12 floats between chains, 12 c for look-at's chains of c joints), 3-vectors as rows
 * of three. Every target evaluates the same float32 operations in the same order (no FMA), so
 * results are bit-identical across targets on finite inputs. No transcendental function is
 * needed: angles are carried as cosines and half-angle sines and cosines (sqrt((1 +- c) / 2)).
 *
 * Method (ozz-animation's IKTwoBoneJob; the geometry of the softened target follows its
 * SoftenTarget, itself after Juckett's analytic two-bone IK):
 *   1. The inverse of the start and mid joints' 3x3 parts (adjugate over determinant): mid, end
 *      and target in start-joint space (ss), start and end in mid-joint space (ms); bone
 *      lengths l1 = |mid_ss|, l2 = |end_ss - mid_ss|, lt = |target_ss|.
 *   2. Soften: with da = (l1 + l2) clamp(soften, 0, 1) and ds = (l1 + l2) - da, a target
 *      further than da (and ds > 0, lt > 0) is pulled to length da + ds - ds 3^4 / (alpha + 3)^4,
 *      alpha = (lt - da) / ds, along its direction. reached = lt <= da and lt > |l1 - l2| (before
 *      softening) and weight >= 1.
 *   3. Mid joint: the interior angle at the mid joint for the target (theta, by the law of
 *      cosines written as products of sums and differences of lengths, which keeps its half
 *      angles accurate near full extension and folding) and for the current end (theta0, from
 *      the bones' unit directions, negative when the chain bends against mid_axis:
 *      dot(cross(start_mid_ms, axis), mid_end_ms) < 0); the correction is the rotation about
 *      mid_axis by theta - theta0, built from the half-angle sines and cosines. (The law of
 *      cosines on squared lengths, 1 + cos = (l1^2 + l2^2 - lt^2) / (2 l1 l2) + 1, cancels near
 *      full extension: on a nearly straight chain its theta0 was off by about
 *      eps / cos(theta0 / 2), and the end joint missed the target by 4e-5 of the chain length.)
 *   4. Start joint: the rotation taking the corrected start-to-end vector onto the (softened)
 *      target (rotation_between), then the rotation about the target direction taking the
 *      chain's plane normal (mid_axis in start space, rotated, its component along the target
 *      direction removed) onto the normal of the target and pole plane, then the twist about the
 *      target direction: start = (twist * plane) * to_target. ozz takes the plane angle from the
 *      cosine of the normals (and the side from the pole); rotation_about's half-angle form is
 *      the same rotation without the loss of accuracy of an arc cosine near 0 and pi.
 *   5. Weight: both quaternions flipped to w >= 0; weight < 1 nlerps from the identity
 *      (normalize(identity + (q - identity) weight)); weight <= 0 is the identity.
 * IKAimJob: the target in joint space; the forward vector is moved by the offset to the point
 *   of the sphere through the target that the offset point aims from (unreachable when the
 *   offset is further from the forward line than the target is from the joint); the rotation
 *   from that vector onto the target, then about the target direction taking the rotated up
 *   vector's plane onto the pole's, then the twist; weight as above.
 * Degenerate inputs give the identity and reached = 0 instead of NaN: a non-finite input, a
 * singular joint matrix, a zero-length bone (two-bone), a non-finite intermediate; a pole (or
 * rotated up vector) parallel to the target direction skips the plane rotation; a target at the
 * joint (zero length) gives no rotation onto it.
 */
#include "target.h"
#include "ik.h"
#include "quat_ops.h"
#include "v3_ops.h"

/* rotation_between: below this |from| |to| no rotation onto the target (ozz's threshold), and
 * below this squared norm of (u x v, |u + v|^2 / 2) the directions are opposite (an angle from
 * the half turn under 1e-6, where u x v has no direction left). */
#define IK_FROM_VECTORS_MIN 1e-6f
/* Two-bone IK: no rotation onto the target when |start-to-end| |target| <= this times the
 * chain length squared (2^-40: both under about 1e-6 of the chain length), relative so that a
 * target close to the start joint of a folded chain (bones of nearly equal length) is still
 * turned to (ozz's absolute 1e-6 left the end joint up to twice the target's distance away);
 * under it the end joint is within about 2e-6 of the chain length of the target anyway. */
#define IK_TWO_BONE_MIN_REL 9.094947017729282e-13f
#define IK_OPPOSITE_N2 1e-12f

typedef struct m33 {
    v3 r[3];   /* rows */
} m33;

static SKS_ALWAYS_INLINE v3 m33_apply(const m33 *m, v3 v)
{
    v3 r = {v3_dot(m->r[0], v), v3_dot(m->r[1], v), v3_dot(m->r[2], v)};
    return r;
}

/* The inverse of m (adjugate times 1 / det: its columns are the cross products of m's rows)
 * and the determinant. */
static SKS_ALWAYS_INLINE m33 m33_inverse(const m33 *m, vf *det)
{
    const v3 c0 = v3_cross(m->r[1], m->r[2]), c1 = v3_cross(m->r[2], m->r[0]);
    const v3 c2 = v3_cross(m->r[0], m->r[1]);
    vf inv_det;
    m33 r;
    *det = v3_dot(m->r[0], c0);
    inv_det = vf_div(vf_set1(1.0f), *det);
    r.r[0].x = vf_mul(c0.x, inv_det);
    r.r[0].y = vf_mul(c1.x, inv_det);
    r.r[0].z = vf_mul(c2.x, inv_det);
    r.r[1].x = vf_mul(c0.y, inv_det);
    r.r[1].y = vf_mul(c1.y, inv_det);
    r.r[1].z = vf_mul(c2.y, inv_det);
    r.r[2].x = vf_mul(c0.z, inv_det);
    r.r[2].y = vf_mul(c1.z, inv_det);
    r.r[2].z = vf_mul(c2.z, inv_det);
    return r;
}

static SKS_ALWAYS_INLINE quat_soa quat_identity(void)
{
    quat_soa q = {vf_zero(), vf_zero(), vf_zero(), vf_set1(1.0f)};
    return q;
}

static SKS_ALWAYS_INLINE quat_soa quat_select(vm m, quat_soa a, quat_soa b)
{
    quat_soa r = {vf_select(m, a.x, b.x), vf_select(m, a.y, b.y), vf_select(m, a.z, b.z),
                  vf_select(m, a.w, b.w)};
    return r;
}

/* v rotated by the unit quaternion q: t = 2 (u x v), v' = (v + w t) + u x t. */
static SKS_ALWAYS_INLINE v3 quat_rotate(quat_soa q, v3 v)
{
    const v3 u = {q.x, q.y, q.z};
    const v3 c = v3_cross(u, v);
    const v3 t = v3_add(c, c);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}

/* q (1 / |q|) (q not zero): one division per quaternion. */
static SKS_ALWAYS_INLINE quat_soa quat_normalize(quat_soa q)
{
    const vf f = vf_div(vf_set1(1.0f), vf_sqrt(quat_soa_dot(q, q)));
    quat_soa r = {vf_mul(q.x, f), vf_mul(q.y, f), vf_mul(q.z, f), vf_mul(q.w, f)};
    return r;
}

/* The shortest rotation taking the direction of `a` onto that of `b`, in a form that stays
 * accurate for nearly opposite directions: with u = a / |a|, v = b / |b|,
 *     q = normalize(u x v, |u + v|^2 / 2)
 * (|u + v|^2 / 2 = 1 + u . v, but without its cancellation: the angle keeps about an ulp of
 * accuracy near a half turn, where 1 + u . v loses all of it). The identity when
 * |a| |b| <= min_nn (no direction); a half turn about `half_axis` (unit, orthogonal to a) when
 * the directions are opposite to float32 precision. */
static SKS_ALWAYS_INLINE quat_soa rotation_between(v3 a, v3 b, vf min_nn, v3 half_axis)
{
    const vf one = vf_set1(1.0f);
    const vf la2 = v3_dot(a, a), lb2 = v3_dot(b, b);
    const vm none = vm_not(vf_gt(vf_sqrt(vf_mul(la2, lb2)), min_nn));
    const v3 u = v3_scale(a, vf_div(one, vf_sqrt(la2))), v = v3_scale(b, vf_div(one, vf_sqrt(lb2)));
    const v3 c = v3_cross(u, v), h = v3_add(u, v);
    const vf w = vf_mul(v3_dot(h, h), vf_set1(0.5f));
    const vf n2 = vf_add(v3_dot(c, c), vf_mul(w, w));
    const vm opposite = vf_lt(n2, vf_set1(IK_OPPOSITE_N2));
    const vf f = vf_div(one, vf_sqrt(vf_select(opposite, one, n2)));
    quat_soa q;
    q.x = vf_select(opposite, half_axis.x, vf_mul(c.x, f));
    q.y = vf_select(opposite, half_axis.y, vf_mul(c.y, f));
    q.z = vf_select(opposite, half_axis.z, vf_mul(c.z, f));
    q.w = vf_ifnot(opposite, vf_mul(w, f));
    return quat_select(none, quat_identity(), q);
}

/* The rotation about the unit axis `dir` taking the direction of `a` onto that of `b` (both
 * orthogonal to dir): with u = a / |a|, v = b / |b| and the angle alpha between them,
 *     q = normalize(dir (dir . (u x v)), |u + v|^2 / 2) = normalize(dir sin(alpha), 1 + cos(alpha))
 * The axis is dir itself (a rotation about it keeps the target where it is, however badly the
 * angle is conditioned), and the angle stays accurate near 0 and near a half turn (then
 * a half turn about dir). The identity when a or b is zero. */
static SKS_ALWAYS_INLINE quat_soa rotation_about(v3 dir, v3 a, v3 b)
{
    const vf one = vf_set1(1.0f);
    const vf la2 = v3_dot(a, a), lb2 = v3_dot(b, b);
    const vm none = vm_not(vm_and(vf_gt(la2, vf_zero()), vf_gt(lb2, vf_zero())));
    const v3 u = v3_scale(a, vf_div(one, vf_sqrt(la2))), v = v3_scale(b, vf_div(one, vf_sqrt(lb2)));
    const v3 h = v3_add(u, v);
    const vf sn = v3_dot(dir, v3_cross(u, v));
    const vf w = vf_mul(v3_dot(h, h), vf_set1(0.5f));
    const vf n2 = vf_add(vf_mul(sn, sn), vf_mul(w, w));
    const vm opposite = vf_lt(n2, vf_set1(IK_OPPOSITE_N2));
    const vf f = vf_div(one, vf_sqrt(vf_select(opposite, one, n2)));
    const vf k = vf_select(opposite, one, vf_mul(sn, f));
    quat_soa q;
    q.x = vf_mul(dir.x, k);
    q.y = vf_mul(dir.y, k);
    q.z = vf_mul(dir.z, k);
    q.w = vf_ifnot(opposite, vf_mul(w, f));
    return quat_select(none, quat_identity(), q);
}

/* A unit axis orthogonal to a (ozz's choice: (-ay, ax, 0) when |ax| > |az|, else
 * (0, -az, ay), normalised); a zero a gives (0, 0, 0) (then unused). */
static SKS_ALWAYS_INLINE v3 orthogonal_axis(v3 a)
{
    const vm x_axis = vf_gt(vf_abs(a.x), vf_abs(a.z));
    v3 o;
    vf n2;
    o.x = vf_if(x_axis, vf_neg(a.y));
    o.y = vf_select(x_axis, a.x, vf_neg(a.z));
    o.z = vf_ifnot(x_axis, a.y);
    n2 = v3_dot(o, o);
    return v3_scale(o, vf_if(vf_gt(n2, vf_zero()), vf_div(vf_set1(1.0f), vf_sqrt(n2))));
}

static SKS_ALWAYS_INLINE vf clamp_01(vf c)
{
    return vf_min(vf_set1(1.0f), vf_max(vf_zero(), c));
}

/* The weighted correction: q flipped to w >= 0, then for weight < 1
 * normalize((0, 0, 0, 1) + (q - (0, 0, 0, 1)) max(weight, 0)); the identity for weight <= 0. */
static SKS_ALWAYS_INLINE quat_soa weighted(quat_soa q, vf weight)
{
    const vf one = vf_set1(1.0f);
    const vf flip = vf_and(vf_set1(-0.0f), q.w);
    const vf w = vf_max(vf_zero(), weight);
    quat_soa f, l;
    f.x = vf_xor(q.x, flip);
    f.y = vf_xor(q.y, flip);
    f.z = vf_xor(q.z, flip);
    f.w = vf_xor(q.w, flip);
    l.x = vf_mul(f.x, w);
    l.y = vf_mul(f.y, w);
    l.z = vf_mul(f.z, w);
    l.w = vf_add(vf_mul(vf_sub(f.w, one), w), one);
    l = quat_normalize(l);
    return quat_select(vf_gt(weight, vf_zero()), quat_select(vf_lt(weight, one), l, f),
                       quat_identity());
}

/* The last steps of both solvers, after the rotation e2t onto the target: (twist * plane) * e2t
 * with plane the rotation about the unit target direction `dir` taking `from_n` onto `to_n`
 * (both orthogonal to dir; the identity when either is zero or there is no direction) and twist
 * (dir sin, cos) of the twist angle's half (the identity when there is no direction). */
static SKS_ALWAYS_INLINE quat_soa plane_and_twist(quat_soa e2t, v3 dir, vm has_dir, v3 from_n, v3 to_n,
                                                  vf tw_s, vf tw_c)
{
    const vf zero = vf_zero();
    const vm plane_ok = vm_and(has_dir, vm_and(vf_gt(v3_dot(to_n, to_n), zero),
                                               vf_gt(v3_dot(from_n, from_n), zero)));
    quat_soa plane_q = rotation_about(dir, from_n, to_n), twist_q;
    plane_q = quat_select(plane_ok, plane_q, quat_identity());
    twist_q.x = vf_mul(dir.x, tw_s);
    twist_q.y = vf_mul(dir.y, tw_s);
    twist_q.z = vf_mul(dir.z, tw_s);
    twist_q.w = tw_c;
    twist_q = quat_select(has_dir, twist_q, quat_identity());
    return quat_soa_mul(quat_soa_mul(twist_q, plane_q), e2t);
}

/* ------------------------------------------------------------------------------------------
 * Loads and stores of one block of n <= SKS_W chains (step 0: one value for all)
 * ------------------------------------------------------------------------------------------ */

/* Joint matrices `stride` floats apart (0: one for every lane): rotation rows and translation. */
static SKS_ALWAYS_INLINE void load_matrix(const float *p, size_t stride, size_t n, m33 *r, v3 *t)
{
    const ptrdiff_t st = (ptrdiff_t)stride;
    vf m[12];
    int k;
    if (!stride) {
        for (k = 0; k < 12; k++) m[k] = vf_set1(p[k]);
    } else {
        for (k = 0; k < 3; k++) {
            const quat_soa q = n == SKS_W ? quat_soa_load(p + 4 * k, st) : quat_soa_load_n(p + 4 * k, st, n);
            m[4 * k] = q.x;
            m[4 * k + 1] = q.y;
            m[4 * k + 2] = q.z;
            m[4 * k + 3] = q.w;
        }
    }
    for (k = 0; k < 3; k++) {
        r->r[k].x = m[4 * k];
        r->r[k].y = m[4 * k + 1];
        r->r[k].z = m[4 * k + 2];
    }
    t->x = m[3];
    t->y = m[7];
    t->z = m[11];
}

static SKS_ALWAYS_INLINE v3 load_v3(const float *p, size_t step, size_t n)
{
    v3 r;
    if (!step) {
        r.x = vf_set1(p[0]);
        r.y = vf_set1(p[1]);
        r.z = vf_set1(p[2]);
    } else {
        vf a = vf_load_rows_xyz(p, 3, quat_soa_rows_in(n, 0));
        vf b = vf_load_rows_xyz(p + 3 * SKS_ROWS, 3, quat_soa_rows_in(n, 1));
        vf c = vf_load_rows_xyz(p + 6 * SKS_ROWS, 3, quat_soa_rows_in(n, 2));
        vf d = vf_load_rows_xyz(p + 9 * SKS_ROWS, 3, quat_soa_rows_in(n, 3));
        vf_transpose4_in_rows(&a, &b, &c, &d);
        r.x = a;
        r.y = b;
        r.z = c;
    }
    return r;
}

static SKS_ALWAYS_INLINE vf load_scalar(const float *p, size_t step, size_t n)
{
    if (!step) return vf_set1(*p);
    return n == SKS_W ? vf_load_items(p) : vf_load_items_n(p, n);
}

/* Quaternions `stride` floats apart. */
static SKS_ALWAYS_INLINE void store_quat(float *p, size_t stride, quat_soa q, size_t n)
{
    if (n == SKS_W) quat_soa_store(p, (ptrdiff_t)stride, q);
    else quat_soa_store_n(p, (ptrdiff_t)stride, q, n);
}

static SKS_ALWAYS_INLINE void store_flags(unsigned char *p, vm m, size_t n)
{
    SKS_ALIGNED(SKS_VEC_ALIGN) float f[SKS_W];
    size_t i;
    vf_store_items(f, vf_if(m, vf_set1(1.0f)));
    for (i = 0; i < n; i++) p[i] = f[i] != 0.0f;
}

/* x * 0 accumulated: NaN when any x is infinite or NaN. */
static SKS_ALWAYS_INLINE vf nonfinite_acc(vf acc, vf x)
{
    return vf_add(acc, vf_mul(x, vf_zero()));
}
static SKS_ALWAYS_INLINE vf nonfinite_v3(vf acc, v3 v)
{
    return nonfinite_acc(nonfinite_acc(nonfinite_acc(acc, v.x), v.y), v.z);
}
static SKS_ALWAYS_INLINE vf nonfinite_m(vf acc, const m33 *m, v3 t)
{
    return nonfinite_v3(nonfinite_v3(nonfinite_v3(nonfinite_v3(acc, m->r[0]), m->r[1]), m->r[2]), t);
}
static SKS_ALWAYS_INLINE vf nonfinite_q(vf acc, quat_soa q)
{
    return nonfinite_acc(nonfinite_acc(nonfinite_acc(nonfinite_acc(acc, q.x), q.y), q.z), q.w);
}

/* ------------------------------------------------------------------------------------------
 * Two-bone IK
 * ------------------------------------------------------------------------------------------ */

#define AT(name) (a->name + i * a->name##_step * WIDTH_##name)
#define WIDTH_start 12
#define WIDTH_mid 12
#define WIDTH_end 12
#define WIDTH_joint 12
#define WIDTH_target 3
#define WIDTH_pole 3
#define WIDTH_mid_axis 3
#define WIDTH_forward 3
#define WIDTH_up 3
#define WIDTH_offset 3
#define WIDTH_twist_sin 1
#define WIDTH_twist_cos 1
#define WIDTH_soften 1
#define WIDTH_weight 1

static SKS_ALWAYS_INLINE void two_bone_block(const sks_ik_two_bone_args *a, size_t i, size_t n)
{
    const vf zero = vf_zero(), one = vf_set1(1.0f), sign = vf_set1(-0.0f);
    m33 rs, rm, re, is, im;
    v3 ps, pm, pe, target, pole, axis;
    vf tw_s, tw_c, soften, weight, det_s, det_m, acc;
    load_matrix(AT(start), a->start_step ? 12 : 0, n, &rs, &ps);
    load_matrix(AT(mid), a->mid_step ? 12 : 0, n, &rm, &pm);
    load_matrix(AT(end), a->end_step ? 12 : 0, n, &re, &pe);
    target = load_v3(AT(target), a->target_step, n);
    pole = load_v3(AT(pole), a->pole_step, n);
    axis = load_v3(AT(mid_axis), a->mid_axis_step, n);
    tw_s = load_scalar(AT(twist_sin), a->twist_sin_step, n);
    tw_c = load_scalar(AT(twist_cos), a->twist_cos_step, n);
    soften = load_scalar(AT(soften), a->soften_step, n);
    weight = load_scalar(AT(weight), a->weight_step, n);
    acc = nonfinite_m(nonfinite_m(nonfinite_m(zero, &rs, ps), &rm, pm), &re, pe);
    acc = nonfinite_v3(nonfinite_v3(nonfinite_v3(acc, target), pole), axis);
    acc = nonfinite_acc(nonfinite_acc(nonfinite_acc(nonfinite_acc(acc, tw_s), tw_c), soften), weight);
    axis = v3_scale(axis, vf_div(one, vf_sqrt(v3_dot(axis, axis))));   /* a zero axis: NaN, identity */
    acc = nonfinite_v3(acc, axis);

    is = m33_inverse(&rs, &det_s);
    im = m33_inverse(&rm, &det_m);
    {
        /* 1. positions in start space (ss) and mid space (ms), lengths */
        const v3 start_mid_ms = v3_neg(m33_apply(&im, v3_sub(ps, pm)));
        const v3 mid_end_ms = m33_apply(&im, v3_sub(pe, pm));
        const v3 mid_ss = m33_apply(&is, v3_sub(pm, ps));
        const v3 end_ss = m33_apply(&is, v3_sub(pe, ps));
        const v3 mid_end_ss = v3_sub(end_ss, mid_ss);
        const vf l1s = v3_dot(mid_ss, mid_ss), l2s = v3_dot(mid_end_ss, mid_end_ss);
        v3 tgt = m33_apply(&is, v3_sub(target, ps));
        vf lts = v3_dot(tgt, tgt);
        /* 2. soften */
        const vf l1 = vf_sqrt(l1s), l2 = vf_sqrt(l2s), lt = vf_sqrt(lts);
        const vf diff = vf_abs(vf_sub(l1, l2)), chain = vf_add(l1, l2);
        const vf da = vf_mul(chain, vf_min(one, vf_max(zero, soften)));
        const vf ds = vf_sub(chain, da);
        const vm beyond = vf_gt(lt, da);
        const vm soft = vm_and(vm_and(beyond, vf_gt(lt, zero)), vf_gt(ds, zero));
        const vf alpha = vf_div(vf_sub(lt, da), ds);
        const vf op = vf_add(alpha, vf_set1(3.0f)), op2 = vf_mul(op, op), op4 = vf_mul(op2, op2);
        const vf ratio = vf_div(vf_set1(81.0f), op4);
        const vf soft_len = vf_sub(vf_add(da, ds), vf_mul(ds, ratio));
        const vf soft_scale = vf_div(soft_len, lt);
        vm reached = vm_and(vm_andnot(beyond, vf_gt(lt, diff)), vf_ge(weight, one));
        vm ok;
        quat_soa mid_q, start_q, e2t;
        tgt.x = vf_select(soft, vf_mul(tgt.x, soft_scale), tgt.x);
        tgt.y = vf_select(soft, vf_mul(tgt.y, soft_scale), tgt.y);
        tgt.z = vf_select(soft, vf_mul(tgt.z, soft_scale), tgt.z);
        lts = vf_select(soft, vf_mul(soft_len, soft_len), lts);
        {
            /* 3. mid joint: half-angle sines and cosines of theta and theta0, in forms without
             * the cancellation of the law of cosines near full extension and folding:
             * cos^2(theta / 2) = (l1 + l2 - lt)(l1 + l2 + lt) / (4 l1 l2),
             * sin^2(theta / 2) = (lt - l1 + l2)(lt + l1 - l2) / (4 l1 l2) (clamped to [0, 1]),
             * and theta0 from the unit bone directions a = mid_ss / l1, b = mid_end_ss / l2:
             * cos(theta0 / 2) = |b - a| / 2, sin(theta0 / 2) = |b + a| / 2 */
            const vf half = vf_set1(0.5f);
            const vf lte = vf_select(soft, soft_len, lt);
            const vf inv4 = vf_div(vf_set1(0.25f), vf_mul(l1, l2));
            const vf hcc2 = vf_mul(vf_mul(vf_sub(chain, lte), vf_add(chain, lte)), inv4);
            const vf hsc2 = vf_mul(vf_mul(vf_add(vf_sub(lte, l1), l2), vf_sub(vf_add(lte, l1), l2)), inv4);
            const vf hcc = vf_sqrt(clamp_01(hcc2));
            const vf hsc = vf_sqrt(clamp_01(hsc2));
            const v3 ua = v3_scale(mid_ss, vf_div(one, l1)), ub = v3_scale(mid_end_ss, vf_div(one, l2));
            const v3 dba = v3_sub(ub, ua), sba = v3_add(ub, ua);
            const vf hc0 = vf_mul(vf_sqrt(v3_dot(dba, dba)), half);
            const vf bent = v3_dot(v3_cross(start_mid_ms, axis), mid_end_ms);
            const vf hs0 = vf_xor(vf_mul(vf_sqrt(v3_dot(sba, sba)), half), vf_if(vf_lt(bent, zero), sign));
            const vf sd = vf_sub(vf_mul(hsc, hc0), vf_mul(hcc, hs0));
            mid_q.x = vf_mul(axis.x, sd);
            mid_q.y = vf_mul(axis.y, sd);
            mid_q.z = vf_mul(axis.z, sd);
            mid_q.w = vf_add(vf_mul(hcc, hc0), vf_mul(hsc, hs0));
        }
        {
            /* 4. start joint */
            const v3 pole_ss = m33_apply(&is, pole);
            const v3 me_final = m33_apply(&is, m33_apply(&rm, quat_rotate(mid_q, mid_end_ms)));
            const v3 ref_n = v3_cross(tgt, pole_ss);
            const v3 axis_ss = m33_apply(&is, m33_apply(&rm, axis));
            v3 jpn, dir;
            vf rx;
            vm has_dir;
            const v3 se_final = v3_add(mid_ss, me_final);
            e2t = rotation_between(se_final, tgt, vf_mul(vf_mul(chain, chain), vf_set1(IK_TWO_BONE_MIN_REL)),
                                   orthogonal_axis(se_final));
            jpn = quat_rotate(e2t, axis_ss);
            has_dir = vf_gt(lts, zero);
            rx = vf_div(one, vf_sqrt(lts));
            dir = v3_scale(tgt, rx);
            /* the chain's plane normal about the target direction onto the pole plane's normal:
             * both taken orthogonal to the direction (ref_n is), so the rotation is about it */
            jpn = v3_sub(jpn, v3_scale(dir, v3_dot(jpn, dir)));
            start_q = plane_and_twist(e2t, dir, has_dir, jpn, ref_n, tw_s, tw_c);
        }
        /* 5. weight, degenerate chains */
        start_q = weighted(start_q, weight);
        mid_q = weighted(mid_q, weight);
        acc = nonfinite_q(nonfinite_q(acc, start_q), mid_q);
        ok = vm_and(vm_not(vf_unordered(acc, acc)),
                    vm_and(vm_and(vf_neq(det_s, zero), vf_neq(det_m, zero)),
                           vm_and(vf_gt(l1s, zero), vf_gt(l2s, zero))));
        reached = vm_and(reached, ok);
        start_q = quat_select(ok, start_q, quat_identity());
        mid_q = quat_select(ok, mid_q, quat_identity());
        store_quat(a->start_correction + 4 * i, 4, start_q, n);
        store_quat(a->mid_correction + 4 * i, 4, mid_q, n);
        store_flags(a->reached + i, reached, n);
    }
}

static void two_bone(const sks_ik_two_bone_args *a)
{
    size_t i;
    for (i = 0; i + SKS_W <= a->n; i += SKS_W) two_bone_block(a, i, SKS_W);
    if (i < a->n) two_bone_block(a, i, a->n - i);
}

/* ------------------------------------------------------------------------------------------
 * Aim IK
 * ------------------------------------------------------------------------------------------ */

/* One aim solve for SKS_W joints: the joint's rotation rows rj (its inverse ij and determinant
 * det given), position pj and the operands; forward is normalised here (*unit_forward gets it).
 * Returns the correction (the identity where not reached or degenerate) and the reached flags. */
static SKS_ALWAYS_INLINE quat_soa aim_solve(const m33 *rj, v3 pj, const m33 *ij, vf det, v3 target,
                                            v3 pole, v3 forward, v3 up, v3 offset, vf tw_s,
                                            vf tw_c, vf weight, v3 *unit_forward, vm *reached_out)
{
    const vf zero = vf_zero(), one = vf_set1(1.0f);
    vf acc;
    acc = nonfinite_m(zero, rj, pj);
    acc = nonfinite_v3(nonfinite_v3(nonfinite_v3(nonfinite_v3(nonfinite_v3(acc, target), pole), forward), up), offset);
    acc = nonfinite_acc(nonfinite_acc(nonfinite_acc(acc, tw_s), tw_c), weight);
    forward = v3_scale(forward, vf_div(one, vf_sqrt(v3_dot(forward, forward))));   /* zero: identity */
    acc = nonfinite_v3(acc, forward);
    *unit_forward = forward;
    {
        const v3 tjs = m33_apply(ij, v3_sub(target, pj));
        const vf r2 = v3_dot(tjs, tjs);
        const vf aol = v3_dot(forward, offset);
        const vf acl2 = vf_sub(v3_dot(offset, offset), vf_mul(aol, aol));
        vm reached = vm_not(vf_gt(acl2, r2));
        const vf ail = vf_sqrt(vf_max(zero, vf_sub(r2, acl2)));
        const v3 off_fwd = v3_add(offset, v3_scale(forward, vf_sub(ail, aol)));
        const quat_soa e2t = rotation_between(off_fwd, tjs, vf_set1(IK_FROM_VECTORS_MIN), orthogonal_axis(off_fwd));
        const v3 cup = quat_rotate(e2t, up);
        const v3 pole_js = m33_apply(ij, pole);
        /* both normals orthogonal to the target direction: the rotation is about it */
        const v3 ref_n = v3_cross(pole_js, tjs), jn = v3_cross(cup, tjs);
        const vm has_dir = vf_gt(r2, zero);
        const v3 dir = v3_scale(tjs, vf_div(one, vf_sqrt(r2)));
        quat_soa q = plane_and_twist(e2t, dir, has_dir, jn, ref_n, tw_s, tw_c);
        vm ok;
        q = weighted(q, weight);
        acc = nonfinite_q(acc, q);
        ok = vm_and(vm_not(vf_unordered(acc, acc)), vf_neq(det, zero));
        reached = vm_and(reached, ok);
        *reached_out = reached;
        return quat_select(vm_and(vm_and(ok, reached), has_dir), q, quat_identity());
    }
}

static SKS_ALWAYS_INLINE void aim_block(const sks_ik_aim_args *a, size_t i, size_t n)
{
    m33 rj, ij;
    v3 pj, unit_forward;
    vf det;
    vm reached;
    quat_soa q;
    load_matrix(AT(joint), a->joint_step ? 12 : 0, n, &rj, &pj);
    ij = m33_inverse(&rj, &det);
    q = aim_solve(&rj, pj, &ij, det, load_v3(AT(target), a->target_step, n),
                  load_v3(AT(pole), a->pole_step, n), load_v3(AT(forward), a->forward_step, n),
                  load_v3(AT(up), a->up_step, n), load_v3(AT(offset), a->offset_step, n),
                  load_scalar(AT(twist_sin), a->twist_sin_step, n),
                  load_scalar(AT(twist_cos), a->twist_cos_step, n),
                  load_scalar(AT(weight), a->weight_step, n), &unit_forward, &reached);
    store_quat(a->correction + 4 * i, 4, q, n);
    store_flags(a->reached + i, reached, n);
}

static void aim(const sks_ik_aim_args *a)
{
    size_t i;
    for (i = 0; i + SKS_W <= a->n; i += SKS_W) aim_block(a, i, SKS_W);
    if (i < a->n) aim_block(a, i, a->n - i);
}

/* ------------------------------------------------------------------------------------------
 * Look-at: the aim spread over a chain (ozz-animation's look-at sample)
 *
 * For each character, chain joint k = 0, 1, ..., c - 1 (the aiming joint first, then its
 * ancestors), with its model matrix [R_k | t_k] as given (the pose before any correction):
 *   q_k = aim(R_k, t_k, target, pole, f_k, up, o_k, twist, weights[k]) (aim_solve; u_k = f_k
 *         normalised), f_0 = forward, o_0 = offset;
 *   then, with R'_k = R_k rot(q_k) (joint k as corrected), the offset point and the forward
 *   axis in the next joint's space:
 *         o_{k+1} = R_{k+1}^-1 ((R_k (q_k o_k q_k^*) + t_k) - t_{k+1})
 *         f_{k+1} = R_{k+1}^-1 (R_k (q_k u_k q_k^*))
 *   (R^-1 the adjugate over the determinant, as aim_solve's; rotations by quat_rotate). Each
 *   ancestor thus turns what remains of the aim after the joints below it, in its own space.
 * Degenerate lanes: a joint whose solve is degenerate gets the identity (aim_solve); its
 * non-finite propagated operands (a singular R_{k+1}) make every later joint of that lane the
 * identity too. Every target evaluates the same operations in the same order.
 * ------------------------------------------------------------------------------------------ */

static SKS_ALWAYS_INLINE void look_at_block(const sks_ik_look_at_args *a, size_t i, size_t n)
{
    const size_t c = a->c, cs = a->chain_step ? 12 * c : 0;
    const float *m0 = a->chain + i * cs;
    const v3 target = load_v3(AT(target), a->target_step, n), pole = load_v3(AT(pole), a->pole_step, n);
    const v3 up = load_v3(AT(up), a->up_step, n);
    const vf tw_s = load_scalar(AT(twist_sin), a->twist_sin_step, n);
    const vf tw_c = load_scalar(AT(twist_cos), a->twist_cos_step, n);
    v3 f = load_v3(AT(forward), a->forward_step, n), o = load_v3(AT(offset), a->offset_step, n);
    m33 rj, ij;
    v3 pj;
    vf det;
    size_t k;
    load_matrix(m0, cs, n, &rj, &pj);
    ij = m33_inverse(&rj, &det);
    for (k = 0; k < c; k++) {
        v3 u;
        vm reached;
        const quat_soa q = aim_solve(&rj, pj, &ij, det, target, pole, f, up, o, tw_s, tw_c,
                                     vf_set1(a->weights[k]), &u, &reached);
        store_quat(a->correction + 4 * (i * c + k), 4 * c, q, n);
        if (k + 1 < c) {
            m33 rn, in;
            v3 pn, point, dir;
            vf detn;
            load_matrix(m0 + 12 * (k + 1), cs, n, &rn, &pn);
            in = m33_inverse(&rn, &detn);
            point = v3_add(m33_apply(&rj, quat_rotate(q, o)), pj);
            dir = m33_apply(&rj, quat_rotate(q, u));
            o = m33_apply(&in, v3_sub(point, pn));
            f = m33_apply(&in, dir);
            rj = rn;
            pj = pn;
            ij = in;
            det = detn;
        }
    }
}

static void look_at(const sks_ik_look_at_args *a)
{
    size_t i;
    for (i = 0; i + SKS_W <= a->n; i += SKS_W) look_at_block(a, i, SKS_W);
    if (i < a->n) look_at_block(a, i, a->n - i);
}

#undef AT

SKS_ROW(ik) = {two_bone, aim, look_at};
