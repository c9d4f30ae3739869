/*
 * retarget.h -- the per-frame remap of retargeting between skeletons: the source's world QTS
 * joints, already expressed in the target's world frame and units, onto the target's local QTS
 * joints (mapped joints take the source's world rotation changes through a rest-alignment
 * offset, placed joints the source's world position, every other joint its rest).
 *
 * A QTS joint is 8 floats (qx, qy, qz, qw, tx, ty, tz, s); quaternions are (x, y, z, w). The
 * formula, the operation order and the bound are in retarget.c.
 */
#ifndef SKS_RETARGET_H
#define SKS_RETARGET_H

#include "simd.h"

/* One call: `frames` frames of `sources` source world joints onto `targets` target joints
 * (targets, sources >= 1). Validated by the caller: -1 <= src_index[j] < sources and
 * -1 <= parents[j] < j. `scratch` holds sks_retarget_scratch_bytes(targets) bytes (any
 * alignment). */
typedef struct sks_retarget_args {
    float *out;                  /* frames x targets x 8: the target's local QTS joints */
    const float *source;         /* frames x sources x 8: the source's world QTS joints */
    const int32_t *src_index;    /* targets: the source joint driving target joint j, or -1 */
    const float *offsets;        /* targets x 4: rest-alignment quaternions (read if mapped) */
    const int32_t *parents;      /* targets */
    const float *rest;           /* targets x 8: the target's rest local QTS joints */
    const unsigned char *placed; /* targets: nonzero = a mapped joint j takes the source's
                                    world position */
    size_t frames, targets, sources;
    void *scratch;
} sks_retarget_args;

typedef struct sks_retarget_kernels {
    /* The remap of every frame (retarget.c). out must not overlap an input. */
    void (*remap)(const sks_retarget_args *a);
    /* The index of the first of x[0..n) that is an infinity or NaN, or n when all are finite
     * (the same index on every target). */
    size_t (*first_nonfinite)(const float *x, size_t n);
} sks_retarget_kernels;

/* The world joints of SKS_W frames side by side: 8 fields (q, t, s) of up to 8 lanes per
 * target joint, one plan byte per target joint, and the slack to align the records to 64
 * bytes. */
#define SKS_RETARGET_MAX_LANES 8
#define SKS_RETARGET_SCRATCH_ALIGN 64

static inline size_t sks_retarget_scratch_bytes(size_t targets)
{
    return targets * (8 * SKS_RETARGET_MAX_LANES * sizeof(float) + 1) + SKS_RETARGET_SCRATCH_ALIGN;
}

/* One row per enum sks_isa (dispatch.c); the rows are defined in retarget.c, once per target. */
extern const sks_retarget_kernels *const sks_retarget_variants[SKS_ISA_COUNT];

#endif /* SKS_RETARGET_H */
