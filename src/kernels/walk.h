/*
 * walk.h -- the float64-accumulating hierarchy walk (precision="float64") shared by the families
 * whose global pose is global[j] = global[parents[j]] @ local[j] over blocks of `floats` floats:
 * joints.c (3x4 joint matrices, local_to_global) and mat4.c (4x4 matrices,
 * mat4_local_to_global). Each family supplies its float64 step; the float32 walks are
 * register-level walks in the families themselves.
 */
#ifndef SKS_WALK_H
#define SKS_WALK_H

#include "simd.h"

/* One joint of a float64-accumulating walk over blocks of float64 matrices: g = p @ l (p NULL:
 * a root, g = l) and o = float32(g). o may alias l (l is read first); g and p are distinct
 * scratch blocks. */
typedef void (*sks_step_f64)(float *o, double *g, const double *p, const float *l);

/* The float64-accumulating walk of `count` skeletons side by side (count is a constant at every
 * call site; the inner loop unrolls and the independent chains overlap in the out-of-order
 * core). Skeleton s uses out/local + s * stride floats and scratch + s * stop * floats doubles
 * (the global poses of joints start..stop-1 in float64). Parents before `start` are read from
 * out (float32, taken as exact) and converted. Always inlined, so `step` is inlined too. */
static SKS_ALWAYS_INLINE void sks_walk_f64(float *out, const float *local,
                                           const int32_t *parents, size_t count, size_t stride,
                                           size_t start, size_t stop, size_t floats,
                                           double *scratch, sks_step_f64 step)
{
    const size_t scratch_stride = stop * floats;
    size_t j, s, i;
    for (j = start; j < stop; j++) {
        const int32_t p = parents[j];
        const size_t oj = floats * j;
        for (s = 0; s < count; s++) {
            float *o = out + s * stride;
            double *g = scratch + s * scratch_stride;
            const double *gp = NULL;
            double from_out[16];   /* the largest block: a 4x4 matrix */
            if (p >= 0 && (size_t)p < start) {     /* a global computed before this call */
                for (i = 0; i < floats; i++) from_out[i] = (double)o[floats * (size_t)p + i];
                gp = from_out;
            } else if (p >= 0) {
                gp = g + floats * (size_t)p;
            }
            step(o + oj, g + oj, gp, local + s * stride + oj);
        }
    }
}

/* sks_walk_f64 over a batch of `batch` skeletons of `joints` blocks: `count` side by side (a
 * constant at every call site), then the remainder one at a time. */
static SKS_ALWAYS_INLINE void sks_walk_f64_batch(float *out, const float *local,
                                                 const int32_t *parents, size_t batch,
                                                 size_t joints, size_t start, size_t stop,
                                                 size_t floats, double *scratch, size_t count,
                                                 sks_step_f64 step)
{
    const size_t stride = joints * floats;
    size_t b = 0;
    for (; b + count <= batch; b += count) {
        sks_walk_f64(out + b * stride, local + b * stride, parents, count, stride, start, stop,
                     floats, scratch, step);
    }
    for (; b < batch; b++) {
        sks_walk_f64(out + b * stride, local + b * stride, parents, 1, stride, start, stop,
                     floats, scratch, step);
    }
}

#endif /* SKS_WALK_H */
