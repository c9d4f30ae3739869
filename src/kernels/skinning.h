/*
 * skinning.h -- the matrix palette and linear-blend skinning (van Waveren, "The Skeleton
 * Assembly Line", section 5; the comments on Molecular Musings' "Adventures in data-oriented
 * design, part 2": the palette is global x inverse bind pose, built per character into scratch
 * memory, then the mesh is skinned).
 *
 * Layouts: joint matrices are 12 floats ([R | t] row-major, joints.h); a palette is `joints` of
 * them; positions and normals are 3 floats per vertex; joint indices (int32, validated by the
 * caller: 0 <= index < joints; skin re-checks them as it reads them) and weights (float32) are
 * `influences` per vertex, contiguous.
 *
 * Every variant of every kernel here evaluates the same float32 operations in the same order
 * (no FMA; sqrt and division are IEEE correctly rounded), so results are bit-identical across
 * variants on finite inputs.
 */
#ifndef SKS_SKINNING_H
#define SKS_SKINNING_H

#include "simd.h"

/* How many skeletons skinning_palette walks side by side at most; its scratch holds the global
 * poses of that many skeletons. */
#define SKS_PALETTE_SIDE_BY_SIDE 4
/* Floats of scratch skinning_palette needs for skeletons of `joints` joints. */
#define SKS_PALETTE_SCRATCH_FLOATS(joints) \
    ((size_t)SKS_PALETTE_SIDE_BY_SIDE * 12 * (size_t)(joints))
/* Doubles of scratch skinning_palette_f64 needs (the float64 global poses of that many
 * skeletons). */
#define SKS_PALETTE_F64_SCRATCH_DOUBLES(joints) \
    ((size_t)SKS_PALETTE_SIDE_BY_SIDE * 12 * (size_t)(joints))
/* Floats of scratch skin needs for a palette of `joints` joints (the palette's columns, from
 * the first 64-byte boundary in scratch: any alignment). */
#define SKS_SKIN_SCRATCH_FLOATS(joints) ((size_t)16 * (size_t)(joints) + 16)
/* The most influences per vertex skin accepts. */
#define SKS_SKIN_MAX_INFLUENCES 12

typedef struct sks_skinning_kernels {
    /* For s < n skeletons (local = local_base + s * local_step skeletons, inverse_bind likewise,
     * steps 0 or 1): out[s, j] = global[j] @ inverse_bind[j], where global is local_to_global of
     * local (roots copy, global[j] = global[parents[j]] @ local[j]). The global poses live only
     * in registers and `scratch` (SKS_PALETTE_SCRATCH_FLOATS(joints) floats, any alignment);
     * out receives the palette alone. Bit-identical to the joint family's
     * multiply_joints(local_to_global(local), inverse_bind). out must not overlap the inputs.
     * call_n >= n: the palettes of the whole call (as the joint family's call_batch: it chooses
     * the walk, never the result). */
    void (*skinning_palette)(float *out, const float *local, size_t local_step,
                             const float *inverse_bind, size_t ib_step, const int32_t *parents,
                             size_t n, size_t joints, float *scratch, size_t call_n);
    /* The same palette with the global poses carried in float64 and the product with
     * inverse_bind done in float64 (see skinning.c, "float64 accumulation"): out[s, j] is the
     * float32 rounding of the float64 value. `scratch` holds
     * SKS_PALETTE_F64_SCRATCH_DOUBLES(joints) doubles. out may equal local or inverse_bind
     * exactly (each joint's inputs are read before its palette is written). Bit-identical
     * across variants. */
    void (*skinning_palette_f64)(float *out, const float *local, size_t local_step,
                                 const float *inverse_bind, size_t ib_step,
                                 const int32_t *parents, size_t n, size_t joints,
                                 double *scratch);
    /* Linear-blend skinning of one mesh by one palette. For every vertex v:
     *   M = sum over k of weights[v, k] * palette[indices[v, k]]   (k ascending, from k = 0)
     *   out_positions[v] = M applied to positions[v] (rotation part, then + translation)
     *   out_normals[v]   = normalize(R(M) normals[v]); a zero-length result stays zero
     *                      (renormalize != 0), or R(M) normals[v] as it is (renormalize == 0:
     *                      ozz's SkinningJob)
     * normals/out_normals may be NULL (positions only). The indices are read through a
     * private copy checked as read: an index outside [0, joints) at that moment (possible only
     * when another thread changes the caller-validated indices during the call) selects joint
     * 0, never a read outside the palette. `scratch` holds
     * SKS_SKIN_SCRATCH_FLOATS(joints) floats. Outputs may equal their own input (in place). */
    void (*skin)(float *out_positions, float *out_normals, const float *positions,
                 const float *normals, const int32_t *indices, const float *weights,
                 size_t vertices, size_t influences, const float *palette, size_t joints,
                 float *scratch, int renormalize);
    /* out[v, k] = weights[v, k] / sum_k weights[v, k] (sum k ascending) for v < rows; a row
     * summing to exactly zero is copied unchanged. out may equal weights. */
    void (*normalize_weights)(float *out, const float *weights, size_t rows, size_t influences);
    /* The largest of indices[0..n-1] as uint32 (a negative index counts as above INT32_MAX);
     * 0 when n == 0. The callers' range check of joint_indices: every index is in [0, J) exactly
     * when the result is below min(J, 2**31). */
    uint32_t (*largest_index)(const int32_t *indices, size_t n);
} sks_skinning_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in skinning.c, once per target. */
extern const sks_skinning_kernels *const sks_skinning_variants[SKS_ISA_COUNT];

#endif /* SKS_SKINNING_H */
