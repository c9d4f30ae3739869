/*
 * additive.c -- make_additive and apply_additive (see additive.h), written once against the
 * vector vocabulary and compiled per target (target.h).
 *
 * Blocks of SKS_W consecutive joints of a pose: the quaternions (floats 0-3 of each joint) in
 * structure-of-arrays form (quat_ops.h's quat_soa, a step of 8 floats); the (t, s) halves
 * (floats 4-7) as quat_soa for make_additive and in memory order for apply_additive (quat_aos:
 * its (t, s) step is per element, so it needs no transposes; measured 5-7% faster on avx2 and
 * avx512 than transposing them). apply_additive's full blocks are software pipelined (the next
 * block's delta rotation, with its square root and division, is formed before this block is
 * finished: 0.81x the time on avx2 and avx512, 0.91x on sse41). The last joints of a pose run
 * the same block code with the _n loads and stores. Every target evaluates the same float32 operations in the same order (no
 * FMA), so results are bit-identical across targets on finite inputs.
 *
 * make_additive (ozz-animation's AdditiveAnimationBuilder):
 *     q = conj(q_ref) * q        (quat_ops.h's Hamilton product; conj negates x, y, z)
 *     t = t - t_ref,  s = s / s_ref
 * apply_additive (the additive pass of ozz's BlendingJob, with exact division and square root
 * where ozz uses estimates), a = |w| m_j, d the delta's quaternion with its sign flipped to
 * d.w >= 0 (xor with the sign of d.w: the shortest path from the identity):
 *     r = (a d.x, a d.y, a d.z, (d.w - 1) a + 1),  n2 = dot(r, r) (quat_soa_dot's order)
 *     r = r (1 / sqrt(n2)) (one division; the identity when n2 < 1e-30: a zero delta at a = 1)
 *     q = q_base * r, or q_base * conj(r) when w < 0 (subtracting the delta)
 *     t = t_base + (w m_j) t_d
 *     f = s_d a + (1 - a);  s = s_base f, or s_base / f when w < 0
 *   With a = 0 every step is exact: r = (0, 0, 0, 1), q = q_base, t = t_base, s = s_base (for
 *   finite deltas).
 */
#include "target.h"
#include "additive.h"
#include "quat_ops.h"
#include "additive_ops.h"

/* make_additive on n <= SKS_W joints. */
static SKS_ALWAYS_INLINE void make_block(float *o, const float *x, const float *r, size_t n)
{
    const quat_soa q = half_load(x, n), rq = half_load(r, n), rts = half_load(r + 4, n);
    quat_soa ts = half_load(x + 4, n), conj = rq, d;
    conj.x = vf_neg(rq.x);
    conj.y = vf_neg(rq.y);
    conj.z = vf_neg(rq.z);
    d = quat_soa_mul(conj, q);
    ts.x = vf_sub(ts.x, rts.x);
    ts.y = vf_sub(ts.y, rts.y);
    ts.z = vf_sub(ts.z, rts.z);
    ts.w = vf_div(ts.w, rts.w);
    half_store(o, d, n);
    half_store(o + 4, ts, n);
}

static void make_additive(float *out, const float *x, const float *ref, size_t nref, size_t frames,
                          size_t njoints)
{
    const size_t pose = SKS_QTS_FLOATS * njoints;
    size_t r, f, j;
    for (r = 0; r < nref; r++) {
        const float *rp = ref + r * pose;
        for (f = 0; f < frames; f++) {
            const size_t at = (r * frames + f) * pose;
            for (j = 0; j + SKS_W <= njoints; j += SKS_W)
                make_block(out + at + 8 * j, x + at + 8 * j, rp + 8 * j, SKS_W);
            if (j < njoints) make_block(out + at + 8 * j, x + at + 8 * j, rp + 8 * j, njoints - j);
        }
    }
}

static SKS_ALWAYS_INLINE void apply_poses(float *out, const float *base, const float *delta,
                                          size_t delta_step, size_t npose, size_t njoints,
                                          float weight, const float *mask, int subtract)
{
    const size_t pose = SKS_QTS_FLOATS * njoints;
    size_t p;
    if (delta_step && !mask) {   /* one run across poses: only the last joints form a tail */
        apply_run(out, base, delta, npose * njoints, weight, NULL, subtract);
        return;
    }
    for (p = 0; p < npose; p++)
        apply_run(out + p * pose, base + p * pose, delta + p * delta_step * pose, njoints, weight,
                  mask, subtract);
}

static void apply_additive(float *out, const float *base, const float *delta, size_t delta_step,
                           size_t npose, size_t njoints, float weight, const float *mask)
{
    if (weight < 0.0f) apply_poses(out, base, delta, delta_step, npose, njoints, weight, mask, 1);
    else apply_poses(out, base, delta, delta_step, npose, njoints, weight, mask, 0);
}

SKS_ROW(additive) = {make_additive, apply_additive};
