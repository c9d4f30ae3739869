/*
 * walk.h -- the scalar hierarchy walk shared by the families whose global pose is
 * global[j] = global[parents[j]] @ local[j] over blocks of `floats` floats: joints.c (3x4 joint
 * matrices, local_to_global) and mat4.c (4x4 matrices, mat4_local_to_global). Each family
 * supplies its block product; the SIMD variants keep their own register-level walks.
 */
#ifndef SKS_WALK_H
#define SKS_WALK_H

#include "simd.h"

/* o = a @ b for one block; o may alias a or b. */
typedef void (*sks_block_product)(float *o, const float *a, const float *b);

/* For every skeleton b and start <= j < stop, ascending:
 *   out[b,j] = local[b,j]                                if parents[j] < 0
 *   out[b,j] = product(out[b,parents[j]], local[b,j])     otherwise
 * out == local is allowed. Always inlined, so `product` (a constant at every call site) is
 * inlined too. */
static SKS_ALWAYS_INLINE void sks_walk_scalar(float *out, const float *local,
                                              const int32_t *parents, size_t batch,
                                              size_t joints, size_t start, size_t stop,
                                              size_t floats, sks_block_product product)
{
    const size_t stride = joints * floats;
    size_t b, j;
    for (b = 0; b < batch; b++) {
        float *o = out + b * stride;
        const float *l = local + b * stride;
        for (j = start; j < stop; j++) {
            const int32_t p = parents[j];
            if (p < 0) {
                memmove(o + floats * j, l + floats * j, floats * sizeof(float));
            } else {
                product(o + floats * j, o + floats * (size_t)p, l + floats * j);
            }
        }
    }
}

#endif /* SKS_WALK_H */
