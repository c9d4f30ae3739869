/*
 * inertialize.h -- inertialization (Bollo, "Inertialization: High-Performance Animation
 * Transitions in Gears of War", GDC 2018; Holden, "Spring-It-On: The Game Developer's
 * Spring-Roll-Call", 2021): the offsets between two streams of poses at a switch, and their
 * critically damped decay with a half-life applied on top of the new stream.
 *
 * Poses are QTS joints of 8 floats (qx, qy, qz, qw, tx, ty, tz, s); offsets and velocities are
 * 6 floats per joint (rotation as a scaled angle-axis vector angle * axis, then translation).
 * Every array holds n joints back to back (the Python layer broadcasts the operands first).
 */
#ifndef SKS_INERTIALIZE_H
#define SKS_INERTIALIZE_H

#include "simd.h"

/* The decay constants of one step of dt seconds with half-life h, computed in double by the
 * caller and rounded once each: y = 2 ln 2 / h (half the damping), dt, e = exp(-y dt) and
 * ydt = y dt. When e rounds to 0 the caller passes dt = ydt = 0 too, so that fully decayed
 * offsets are exactly 0 for any finite input. */
typedef struct sks_inertialize_decay {
    float y, dt, e, ydt;
} sks_inertialize_decay;

typedef struct sks_inertialize_kernels {
    /* For every joint i < n: with x, v the 6 floats of offset and velocity,
     *   j1 = v + x y,  x' = e (x + j1 dt),  v' = e (v - j1 ydt)       (component by component)
     * into offset_out, velocity_out; then the pose with the decayed offsets applied:
     *   out_q = exp(x'_rot) * (q / |q|)  (a zero quaternion stays zero),
     *   out_t = t + x'_t,  out_s = s.
     * Any output may equal its own input (each joint is read before it is written). */
    void (*update)(float *out, float *offset_out, float *velocity_out, const float *pose,
                   const float *offset, const float *velocity, size_t n,
                   const sks_inertialize_decay *c);
    /* For every joint i < n, from the source and target QTS joints and their 6-float velocities
     * (offset, velocity: offsets still decaying, or NULL for none):
     *   q = (qs / |qs|) * conj(qt / |qt|),  q = exp(offset_rot) * q  (with offset),
     *   offset_out_rot = log(q) on the short arc (angle * axis, angle = 2 atan2(|q.xyz|, |q.w|)),
     *   offset_out_t = (offset_t + ts) - tt  (ts - tt without offset),
     *   velocity_out = (vs - vt) + velocity  (vs - vt without).
     * Outputs must not overlap the inputs. */
    void (*transition)(float *offset_out, float *velocity_out, const float *source,
                       const float *source_velocity, const float *target,
                       const float *target_velocity, const float *offset, const float *velocity,
                       size_t n);
} sks_inertialize_kernels;

/* Indexed by enum sks_isa: each target's row (inertialize.c compiled once per target). */
extern const sks_inertialize_kernels *const sks_inertialize_variants[SKS_ISA_COUNT];

#endif /* SKS_INERTIALIZE_H */
