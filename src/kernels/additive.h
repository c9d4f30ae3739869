/*
 * additive.h -- additive animation on QTS poses (ozz-animation's AdditiveAnimationBuilder and
 * the additive layers of its BlendingJob): deltas of a pose against a reference pose, and a
 * weighted delta applied on top of a base pose.
 *
 * QTS joints are 8 floats (qx, qy, qz, qw, tx, ty, tz, s); poses are njoints consecutive joints.
 */
#ifndef SKS_ADDITIVE_H
#define SKS_ADDITIVE_H

#include "simd.h"

typedef struct sks_additive_kernels {
    /* For every reference r < nref and frame f < frames, pose p = r frames + f of x and out
     * (njoints joints each) against pose r of ref:
     *   q = conj(q_ref) * q,  t = t - t_ref,  s = s / s_ref.
     * out may equal x (each joint is read before it is written). */
    void (*make_additive)(float *out, const float *x, const float *ref, size_t nref,
                          size_t frames, size_t njoints);
    /* For every pose p < npose (base and out advance one pose, delta delta_step poses, 0 or
     * 1) and joint j, with a = |weight| mask[j] (mask NULL: a = |weight|) and the delta's
     * quaternion d flipped to d.w >= 0:
     *   r = normalize(a d.x, a d.y, a d.z, (d.w - 1) a + 1)   (identity when |r|^2 < 1e-30)
     *   q = q_base * r          (weight < 0: q_base * conj(r))
     *   t = t_base + (weight mask[j]) t_delta
     *   s = s_base * f          (weight < 0: s_base / f),  f = s_delta a + (1 - a).
     * out may equal base. */
    void (*apply_additive)(float *out, const float *base, const float *delta, size_t delta_step,
                           size_t npose, size_t njoints, float weight, const float *mask);
} sks_additive_kernels;

extern const sks_additive_kernels *const sks_additive_variants[SKS_ISA_COUNT];

#endif /* SKS_ADDITIVE_H */
