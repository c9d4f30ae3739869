/*
 * blend.h -- quaternion interpolation and joint blending (van Waveren, "Slerping Clock
 * Cycles"): slerp (the article's optimised "fast" form and a careful trigonometric "exact"
 * form), nlerp (its Lerp with renormalisation), blend_joints (SlerpJoints / LerpJoints on QTS
 * joints with an index subset) and blend_layers (N-way weighted blending of QTS poses).
 *
 * Quaternions are 4 floats (x, y, z, w), QTS joints 8 floats (qx, qy, qz, qw, tx, ty, tz, s).
 * Counts are in elements; `*_step` is 0 (broadcast one element) or 1 (consecutive).
 */
#ifndef SKS_BLEND_H
#define SKS_BLEND_H

#include "simd.h"

/* Rotation interpolation methods of blend_joints. */
enum sks_interp { SKS_INTERP_FAST = 0, SKS_INTERP_EXACT = 1, SKS_INTERP_NLERP = 2 };

typedef void (*sks_interp_fn)(float *out, const float *q0, size_t q0_step, const float *q1,
                              size_t q1_step, const float *t, size_t t_step, size_t n);

/* An additive layer of blend_layers_additive (ozz-animation's BlendingJob additive_layers):
 * delta poses (delta_step 0: one pose for every pose, 1: one per pose), weight in [-1, 1], mask
 * (njoints,) per-joint weights in [0, 1] or NULL. Applied as apply_additive (additive.h). */
typedef struct sks_additive_layer {
    const float *delta;
    size_t delta_step;
    float weight;
    const float *mask;
} sks_additive_layer;

typedef struct sks_blend_kernels {
    /* out[i] = slerp(q0[i q0_step], q1[i q1_step], t[i t_step]) along the shortest arc; out may
     * equal q0 or q1 (each pair is read before it is written). */
    sks_interp_fn slerp_fast;
    sks_interp_fn slerp_exact;
    sks_interp_fn nlerp;
    /* For every pose p < npose (joints/blend advance by joints_step/blend_step poses, t by
     * t_step, out by one pose of njoints QTS joints): with tp = t[p t_step],
     *   tp <= 0: out = joints;  tp >= 1: out[j] = blend[j] for the selected joints;
     *   otherwise out[j] = interpolate(joints[j], blend[j], tp) for the selected joints
     *   (rotation by `method`, translation and scale a + tp (b - a)); the other joints of out are
     *   copies of joints. Selected: index[0 .. nindex) (distinct, < njoints), or all joints when
     *   index is NULL. out may equal joints (in place). */
    void (*blend_joints)(float *out, const float *joints, size_t joints_step, const float *blend,
                         size_t blend_step, const float *t, size_t t_step, size_t npose,
                         size_t njoints, const int32_t *index, size_t nindex, int method);
    /* For every pose p < npose and joint j < njoints, with w_l = weights[l layer_stride +
     * j joint_step] (>= 0, some > 0 per joint: validated by the caller) and the layers of pose p
     * at layers + p * nlayers * njoints * 8:
     *   q = normalize(sum_l w_l sign_l q_l) with sign_l = -1 when dot(running sum, q_l) < 0,
     *   t = (sum_l w_l t_l) / (sum_l w_l), s likewise. */
    void (*blend_layers)(float *out, const float *layers, size_t npose, size_t nlayers,
                         size_t njoints, const float *weights, size_t layer_stride,
                         size_t joint_step);
    /* blend_layers, then the additive layers add[0 .. nadd) in order on the blended pose, in one
     * pass over the joints (each block of joints is blended and gets its additive layers while
     * it is in registers): the same bits as blend_layers followed by one apply_additive(out, delta,
     * weight, mask, out) per layer. out must not overlap layers, weights or the deltas/masks. */
    void (*blend_layers_additive)(float *out, const float *layers, size_t npose, size_t nlayers,
                                  size_t njoints, const float *weights, size_t layer_stride,
                                  size_t joint_step, const sks_additive_layer *add, size_t nadd);
} sks_blend_kernels;

/* Indexed by enum sks_isa: each target's row (blend.c compiled once per target; dispatch.c). */
extern const sks_blend_kernels *const sks_blend_variants[SKS_ISA_COUNT];

#endif /* SKS_BLEND_H */
