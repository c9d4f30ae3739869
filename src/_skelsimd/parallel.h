/*
 * parallel.h -- dividing a kernel call over the thread pool (src/kernels/pool.h): the estimated
 * cost of each kind of unit, and the helpers the glue calls.
 *
 * The glue validates every argument and prepares every output first, with the GIL held; only
 * then is the call divided, with the GIL released, into chunks that each run the same kernel on
 * a sub-range of the batch (whole 8-unit blocks: a chunk never splits a SIMD vector, and a walk's
 * unit is a whole character). Kernels do not fail, so no error crosses a chunk boundary (the
 * encoder's one failure, an unreachable precision, is marked per segment and decided after the
 * join: compress_search.c divides itself, from the costs given here); a kernel's count
 * (quat_to_euler's gimbal-locked angles, ...) is kept per slot and summed after the join.
 */
#ifndef SKS_PARALLEL_H
#define SKS_PARALLEL_H

#include "glue.h"
#include "../kernels/pool.h"

/* Units per block: chunk boundaries fall on multiples of it. */
#define SKS_GRAIN 8

/* Estimated single-thread nanoseconds per unit (a few times below the measured cost, on the
 * 2-core Zen 4 machine of the benchmarks with AVX2: a slower target or CPU only divides calls
 * earlier, by about the same ratio as it is slower). A call is divided when units x cost
 * exceeds SKS_POOL_MIN_NS. */
#define SKS_NS_WALK_JOINT 4.0     /* one joint of one skeleton in a hierarchy walk */
#define SKS_NS_OUT_FLOAT 0.25     /* one float of the result of an elementwise kernel */
#define SKS_NS_ROTATION 5.0       /* one rotation conversion (trigonometry, square roots) */
#define SKS_NS_SKIN_INFLUENCE 0.4 /* one influence of one skinned vertex (positions) */
#define SKS_SKIN_NORMALS_FACTOR 1.25 /* ... with its normal as well */
#define SKS_NS_INTERP 4.0         /* one slerp / nlerp of a quaternion pair, one blended joint */
#define SKS_NS_SAMPLE_JOINT 3.0   /* one joint of one pose sampled from a compressed clip */
#define SKS_NS_SEARCH_ROW 0.05    /* one database row of one motion-matching query (pruned) */
#define SKS_NS_IK_TWO_BONE 10.0   /* one two-bone chain solved */
#define SKS_NS_IK_AIM 5.0         /* one aimed joint (ik_aim, one joint of a look-at chain) */
#define SKS_NS_ERROR_JOINT 10.0   /* one joint of one pose of clip_error (float64 walk, shell) */
#define SKS_NS_SURFACE_VERTEX 1.0 /* one vertex of a spring-grid surface in one substep */
#define SKS_NS_COMPRESS_JOINT 100.0 /* one joint of one frame in compress's rate search (its
                                    * trials; the passes over the clip cost SKS_NS_ERROR_JOINT) */

/* Runs fn(ctx, begin, end, slot) over [0, units) on the pool: chunks of whole SKS_GRAIN blocks
 * when units x ns_per_unit exceeds SKS_POOL_MIN_NS, else one plain call on this thread. */
static inline void sks_parallel_for(size_t units, double ns_per_unit, sks_pool_fn fn, void *ctx)
{
    const sks_pool_plan plan = sks_pool_plan_for(units, SKS_GRAIN, ns_per_unit);
    sks_pool_run(&plan, fn, ctx);
}

/* The plan of a call that needs per-slot scratch (allocate plan.slots copies first). */
static inline sks_pool_plan sks_parallel_plan(size_t units, double ns_per_unit)
{
    return sks_pool_plan_for(units, SKS_GRAIN, ns_per_unit);
}

#endif /* SKS_PARALLEL_H */
