/*
 * ik.h -- batched inverse kinematics on model-space joint matrices (ozz-animation's IKTwoBoneJob
 * and IKAimJob, many chains per call): local rotation corrections as quaternions (x, y, z, w).
 *
 * Joint matrices are 12 floats, row-major [R | t] (a point p maps to R p + t); vectors 3 floats;
 * quaternions 4. Every input has a step of 0 (one value for every chain) or 1 (one per chain).
 * The twist is given as the sine and cosine of half the twist angle.
 */
#ifndef SKS_IK_H
#define SKS_IK_H

#include "simd.h"

typedef struct sks_ik_two_bone_args {
    const float *start, *mid, *end;        /* matrices */
    const float *target, *pole, *mid_axis; /* target and pole in model space, mid_axis (normalised
                                              here) in the mid joint's space */
    const float *twist_sin, *twist_cos;    /* sin and cos of half the twist angle */
    const float *soften, *weight;
    size_t start_step, mid_step, end_step, target_step, pole_step, mid_axis_step, twist_sin_step,
        twist_cos_step, soften_step, weight_step;
    float *start_correction, *mid_correction; /* n quaternions each */
    unsigned char *reached;                   /* n flags (0 or 1) */
    size_t n;
} sks_ik_two_bone_args;

typedef struct sks_ik_aim_args {
    const float *joint;                    /* matrices */
    const float *target, *pole;            /* model space */
    const float *forward, *up, *offset;    /* joint space; forward normalised here */
    const float *twist_sin, *twist_cos, *weight;
    size_t joint_step, target_step, pole_step, forward_step, up_step, offset_step, twist_sin_step,
        twist_cos_step, weight_step;
    float *correction;
    unsigned char *reached;
    size_t n;
} sks_ik_aim_args;

/* The aim spread over a chain (ozz-animation's look-at sample), n characters of c chain joints:
 * joint k of character i has the matrix chain + i chain_step 12 c + 12 k (the aiming joint
 * first, then its ancestors; chain_step 0: one chain for every character) and the weight
 * weights[k] (shared); its correction goes to correction + 4 (i c + k). */
typedef struct sks_ik_look_at_args {
    const float *chain;
    const float *target, *pole;            /* model space */
    const float *forward, *up, *offset;    /* the first joint's space; forward normalised here */
    const float *twist_sin, *twist_cos;
    const float *weights;                  /* c */
    size_t chain_step, target_step, pole_step, forward_step, up_step, offset_step, twist_sin_step,
        twist_cos_step;
    float *correction;                     /* n c quaternions */
    size_t n, c;
} sks_ik_look_at_args;

typedef struct sks_ik_kernels {
    void (*two_bone)(const sks_ik_two_bone_args *a);
    void (*aim)(const sks_ik_aim_args *a);
    void (*look_at)(const sks_ik_look_at_args *a);
} sks_ik_kernels;

extern const sks_ik_kernels *const sks_ik_variants[SKS_ISA_COUNT];

#endif /* SKS_IK_H */
