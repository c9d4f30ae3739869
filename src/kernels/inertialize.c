/*
 * inertialize.c -- update and transition (see inertialize.h), written once against the vector
 * vocabulary and compiled per target (target.h).
 *
 * Blocks of SKS_W joints in structure-of-arrays form (quat_ops.h): a pose's quaternions and
 * (t, s) halves are loaded with a step of 8 floats; the 6 floats of an offset or velocity as two
 * overlapping quadruples with a step of 6, (r0, r1, r2, t0) at p and (r2, t0, t1, t2) at p + 2
 * (both inside the joint's 6 floats), stored back the same way (the overlapping floats are
 * written twice with the same bits). The last joints run the same block code with the _n loads
 * and stores. Every target evaluates the same float32 operations in the same order (no FMA), so
 * results are bit-identical across targets on finite inputs.
 *
 * Operation order (each a float32 operation):
 *   decay        j1 = v + x y;  x' = e (x + j1 dt);  v' = e (v - j1 ydt)
 *   normalize    n2 = dot(q, q) (quat_ops.h's pairwise order); q (1 / sqrt(n2)), q unchanged
 *                when n2 = 0
 *   exp(w)       a = sqrt((w0 w0 + w1 w1) + w2 w2), (s, c) = vmath_sincos(a / 2) (lanes beyond
 *                its range: sin and cos in double, rounded), f = s / a (0.5 when a = 0),
 *                exp(w) = (w0 f, w1 f, w2 f, c)
 *   log(q)       q flipped to w >= 0 (sign bits xored), s = sqrt((x x + y y) + z z),
 *                angle = 2 atan2(s, w) (vmath_atan2, doubled exactly in its multiple of pi/4,
 *                rounded once), f = angle / s (2 when s = 0), log(q) = (x f, y f, z f)
 *   products     quat_ops.h's Hamilton product; conj negates x, y, z
 */
#include "target.h"
#include "inertialize.h"
#include "quat_ops.h"
#include "vec_math.h"

#define OFF_FLOATS 6

/* n <= SKS_W quadruples at p, `step` floats apart. */
static SKS_ALWAYS_INLINE quat_soa quad_load(const float *p, ptrdiff_t step, size_t n)
{
    return n == SKS_W ? quat_soa_load(p, step) : quat_soa_load_n(p, step, n);
}

static SKS_ALWAYS_INLINE void quad_store(float *p, ptrdiff_t step, quat_soa q, size_t n)
{
    if (n == SKS_W) quat_soa_store(p, step, q);
    else quat_soa_store_n(p, step, q, n);
}

/* Six components of n <= SKS_W offsets or velocities. */
typedef struct six {
    vf c[6];
} six;

static SKS_ALWAYS_INLINE six six_load(const float *p, size_t n)
{
    const quat_soa a = quad_load(p, OFF_FLOATS, n), b = quad_load(p + 2, OFF_FLOATS, n);
    six s;
    s.c[0] = a.x;
    s.c[1] = a.y;
    s.c[2] = a.z;
    s.c[3] = b.y;
    s.c[4] = b.z;
    s.c[5] = b.w;
    return s;
}

static SKS_ALWAYS_INLINE void six_store(float *p, six s, size_t n)
{
    quat_soa a, b;
    a.x = s.c[0];
    a.y = s.c[1];
    a.z = s.c[2];
    a.w = s.c[3];
    b.x = s.c[2];
    b.y = s.c[3];
    b.z = s.c[4];
    b.w = s.c[5];
    quad_store(p, OFF_FLOATS, a, n);
    quad_store(p + 2, OFF_FLOATS, b, n);
}

/* q / |q| (a zero quaternion unchanged). */
static SKS_ALWAYS_INLINE quat_soa normalized(quat_soa q)
{
    const vf n2 = quat_soa_dot(q, q);
    const vm zero = vf_eq(n2, vf_zero());
    const vf inv = vf_div(vf_set1(1.0f), vf_sqrt(vf_select(zero, vf_set1(1.0f), n2)));
    q.x = vf_mul(q.x, inv);
    q.y = vf_mul(q.y, inv);
    q.z = vf_mul(q.z, inv);
    q.w = vf_mul(q.w, inv);
    return q;
}

/* The unit quaternion of the scaled angle-axis vector (w0, w1, w2). */
static SKS_ALWAYS_INLINE quat_soa quat_exp(vf w0, vf w1, vf w2)
{
    const vf a = vf_sqrt(vf_add(vf_add(vf_mul(w0, w0), vf_mul(w1, w1)), vf_mul(w2, w2)));
    const vf h = vf_mul(a, vf_set1(0.5f));
    const vm pos = vf_gt(a, vf_zero());
    vtrig t = vmath_sincos(h);
    const unsigned bad = vm_bits(vm_not(vmath_trig_ok(h, 0)));
    vf f;
    quat_soa q;
    if (bad) vmath_trig_patch(&t, h, bad, 0);
    f = vf_select(pos, vf_div(t.sin, vf_select(pos, a, vf_set1(1.0f))), vf_set1(0.5f));
    q.x = vf_mul(w0, f);
    q.y = vf_mul(w1, f);
    q.z = vf_mul(w2, f);
    q.w = t.cos;
    return q;
}

/* log(q) on the short arc into w[0..2] (q of unit length). */
static SKS_ALWAYS_INLINE void quat_log(quat_soa q, vf *w)
{
    const vf flip = vf_and(q.w, vf_set1(-0.0f));
    const vf x = vf_xor(q.x, flip), y = vf_xor(q.y, flip), z = vf_xor(q.z, flip);
    const vf qw = vf_xor(q.w, flip);
    const vf s = vf_sqrt(vf_add(vf_add(vf_mul(x, x), vf_mul(y, y)), vf_mul(z, z)));
    const vf angle = vangle_radians(vangle_twice(vmath_atan2(s, qw)));
    const vm pos = vf_gt(s, vf_zero());
    const vf f = vf_select(pos, vf_div(angle, vf_select(pos, s, vf_set1(1.0f))), vf_set1(2.0f));
    w[0] = vf_mul(x, f);
    w[1] = vf_mul(y, f);
    w[2] = vf_mul(z, f);
}

/* update on n <= SKS_W joints. */
static SKS_ALWAYS_INLINE void update_block(float *o, float *oo, float *vo, const float *p,
                                           const float *off, const float *vel, size_t n,
                                           const sks_inertialize_decay *c)
{
    const vf y = vf_set1(c->y), dt = vf_set1(c->dt), e = vf_set1(c->e), ydt = vf_set1(c->ydt);
    six x = six_load(off, n), v = six_load(vel, n);
    const quat_soa q = normalized(quad_load(p, SKS_QTS_FLOATS, n));
    quat_soa ts = quad_load(p + 4, SKS_QTS_FLOATS, n);
    int k;
    for (k = 0; k < 6; k++) {
        const vf j1 = vf_add(v.c[k], vf_mul(x.c[k], y));
        x.c[k] = vf_mul(e, vf_add(x.c[k], vf_mul(j1, dt)));
        v.c[k] = vf_mul(e, vf_sub(v.c[k], vf_mul(j1, ydt)));
    }
    ts.x = vf_add(ts.x, x.c[3]);
    ts.y = vf_add(ts.y, x.c[4]);
    ts.z = vf_add(ts.z, x.c[5]);
    quad_store(o, SKS_QTS_FLOATS, quat_soa_mul(quat_exp(x.c[0], x.c[1], x.c[2]), q), n);
    quad_store(o + 4, SKS_QTS_FLOATS, ts, n);
    six_store(oo, x, n);
    six_store(vo, v, n);
}

static void update(float *out, float *offset_out, float *velocity_out, const float *pose,
                   const float *offset, const float *velocity, size_t n,
                   const sks_inertialize_decay *c)
{
    size_t i;
    for (i = 0; i + SKS_W <= n; i += SKS_W)
        update_block(out + 8 * i, offset_out + 6 * i, velocity_out + 6 * i, pose + 8 * i,
                     offset + 6 * i, velocity + 6 * i, SKS_W, c);
    if (i < n)
        update_block(out + 8 * i, offset_out + 6 * i, velocity_out + 6 * i, pose + 8 * i,
                     offset + 6 * i, velocity + 6 * i, n - i, c);
}

/* transition on n <= SKS_W joints (off, vel NULL: no offsets carried over). */
static SKS_ALWAYS_INLINE void transition_block(float *oo, float *vo, const float *src,
                                               const float *sv, const float *dst, const float *dv,
                                               const float *off, const float *vel, size_t n)
{
    const quat_soa qs = normalized(quad_load(src, SKS_QTS_FLOATS, n));
    quat_soa qt = normalized(quad_load(dst, SKS_QTS_FLOATS, n)), q;
    const quat_soa ts = quad_load(src + 4, SKS_QTS_FLOATS, n), tt = quad_load(dst + 4, SKS_QTS_FLOATS, n);
    six x, v;
    const six a = six_load(sv, n), b = six_load(dv, n);
    int k;
    qt.x = vf_neg(qt.x);
    qt.y = vf_neg(qt.y);
    qt.z = vf_neg(qt.z);
    q = quat_soa_mul(qs, qt);
    if (off) {
        const six o = six_load(off, n);
        q = quat_soa_mul(quat_exp(o.c[0], o.c[1], o.c[2]), q);
        x.c[3] = vf_sub(vf_add(o.c[3], ts.x), tt.x);
        x.c[4] = vf_sub(vf_add(o.c[4], ts.y), tt.y);
        x.c[5] = vf_sub(vf_add(o.c[5], ts.z), tt.z);
    } else {
        x.c[3] = vf_sub(ts.x, tt.x);
        x.c[4] = vf_sub(ts.y, tt.y);
        x.c[5] = vf_sub(ts.z, tt.z);
    }
    quat_log(q, x.c);
    for (k = 0; k < 6; k++) v.c[k] = vf_sub(a.c[k], b.c[k]);
    if (vel) {
        const six w = six_load(vel, n);
        for (k = 0; k < 6; k++) v.c[k] = vf_add(v.c[k], w.c[k]);
    }
    six_store(oo, x, n);
    six_store(vo, v, n);
}

static void transition(float *offset_out, float *velocity_out, const float *source,
                       const float *source_velocity, const float *target,
                       const float *target_velocity, const float *offset, const float *velocity,
                       size_t n)
{
    size_t i;
    for (i = 0; i < n; i += SKS_W) {
        const size_t m = n - i < SKS_W ? n - i : SKS_W;
        transition_block(offset_out + 6 * i, velocity_out + 6 * i, source + 8 * i,
                         source_velocity + 6 * i, target + 8 * i, target_velocity + 6 * i,
                         offset ? offset + 6 * i : NULL, velocity ? velocity + 6 * i : NULL, m);
    }
}

SKS_ROW(inertialize) = {update, transition};
