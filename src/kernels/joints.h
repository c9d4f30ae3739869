/*
 * joints.h -- the joint-matrix kernel family (van Waveren, "The Skeleton
 * Assembly Line"; Molecular Musings, "Adventures in data-oriented design, part 2: hierarchical
 * data").
 *
 * A joint matrix is 12 floats, row-major 3x4 [R | t]; it maps a point p to R p + t and has an
 * implied last row (0 0 0 1). A pose batch is `batch` skeletons of `joints` matrices each,
 * contiguous. `parents` has one int32 per joint: -1 for a root, otherwise parents[j] < j
 * (validated by the caller; the kernels trust it).
 *
 * Every target of every kernel in this family evaluates the same floating-point operations in
 * the same order (no FMA), so all variants give bit-identical results on finite inputs.
 */
#ifndef SKS_JOINTS_H
#define SKS_JOINTS_H

#include "simd.h"

#define SKS_JOINT_FLOATS 12

/* Skeletons walked side by side by the float64-accumulating walk, and its scratch size: one
 * float64 3x4 matrix per joint below `stop` per skeleton. */
#define SKS_L2G_F64_SIDE_BY_SIDE 4
#define SKS_L2G_F64_SCRATCH_DOUBLES(stop) ((size_t)SKS_L2G_F64_SIDE_BY_SIDE * (stop) * SKS_JOINT_FLOATS)

typedef struct sks_joints_kernels {
    /* For every skeleton b and start <= j < stop, ascending:
     *   out[b,j] = local[b,j]                        if parents[j] < 0
     *   out[b,j] = out[b,parents[j]] @ local[b,j]     otherwise
     * out == local is allowed (in place). call_batch >= batch: the skeletons of the whole call
     * the batch belongs to (a chunk of a call divided over threads is a part of it); it only
     * chooses the walk (skeletons side by side while the call's input and output fit in cache,
     * one at a time when they stream from memory), never the result. */
    void (*local_to_global)(float *out, const float *local, const int32_t *parents,
                            size_t batch, size_t joints, size_t start, size_t stop,
                            size_t call_batch);
    /* The same walk with the global poses carried in float64 (see joints.c, "float64
     * accumulation"): out[b,j] is the float32 rounding of the float64 product chain, the
     * float32 locals and, for parents before start, the float32 out[b,parents[j]] taken as
     * exact. `scratch` holds SKS_L2G_F64_SCRATCH_DOUBLES(stop) doubles, allocated by the
     * caller. out == local is allowed. Every variant gives bit-identical results on finite
     * inputs (a NaN may differ in sign or payload). */
    void (*local_to_global_f64)(float *out, const float *local, const int32_t *parents,
                                size_t batch, size_t joints, size_t start, size_t stop,
                                double *scratch);
    /* For every skeleton b and start <= j < stop, descending:
     *   out[b,j] = global[b,j]                                   if parents[j] < 0
     *   out[b,j] = inverse(global[b,parents[j]]) @ global[b,j]    otherwise
     * `rigid` uses the transpose of the rotation as its inverse. out == global allowed. */
    void (*global_to_local)(float *out, const float *global, const int32_t *parents,
                            size_t batch, size_t joints, size_t start, size_t stop, int rigid);
    /* out[i] = a[i * a_step] @ b[i * b_step] for i < n; steps are 0 (broadcast one matrix)
     * or 1, in matrices. out may equal a or b (all inputs of a matrix are read first). */
    void (*multiply_joints)(float *out, const float *a, size_t a_step, const float *b,
                            size_t b_step, size_t n);
    /* out[i] = inverse(m[i]) for i < n; out == m allowed. */
    void (*invert_joints)(float *out, const float *m, size_t n, int rigid);
} sks_joints_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in joints.c, once per target. */
extern const sks_joints_kernels *const sks_joints_variants[SKS_ISA_COUNT];

#endif /* SKS_JOINTS_H */
