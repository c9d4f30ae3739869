/*
 * mat4.h -- the 4x4 matrix kernel family (Frechette's "Optimizing 4x4 matrix
 * multiplication", Animation Compression Library posts).
 *
 * A 4x4 matrix is 16 floats, row-major; it acts on column vectors (the 3x4 joint matrix of
 * joints.h is its first three rows with an implied last row 0 0 0 1). A pose batch is `batch`
 * skeletons of `joints` matrices each, contiguous; `parents` as in joints.h (validated by the
 * caller; the kernels trust it).
 *
 * Determinism: every variant evaluates element (i, c) of a @ b as
 *     ((a[i][0] * b[0][c] + a[i][1] * b[1][c]) + a[i][2] * b[2][c]) + a[i][3] * b[3][c]
 * (no FMA), so matmul4 and mat4_local_to_global are bit-identical across variants on finite
 * inputs (Frechette's "binary exact" versions); transform_points is too. With NaN inputs only a
 * NaN's sign and payload may differ (the compiler may swap a product's operands).
 */
#ifndef SKS_MAT4_H
#define SKS_MAT4_H

#include "simd.h"

#define SKS_MAT4_FLOATS 16

/* Skeletons walked side by side by the float64-accumulating walk, and its scratch size: one
 * float64 4x4 matrix per joint below `stop` per skeleton. */
#define SKS_MAT4_F64_SIDE_BY_SIDE 4
#define SKS_MAT4_F64_SCRATCH_DOUBLES(stop) \
    ((size_t)SKS_MAT4_F64_SIDE_BY_SIDE * (size_t)(stop) * SKS_MAT4_FLOATS)

typedef struct sks_mat4_kernels {
    /* out[i] = a[i * a_step] @ b[i * b_step] for i < n; steps are 0 (one matrix broadcast) or 1,
     * in matrices. out may equal a or b (every input of a product is read before it is
     * written). Frechette's three cases: array x constant (b_step 0), constant x array
     * (a_step 0), one-off (n 1). */
    void (*matmul4)(float *out, const float *a, size_t a_step, const float *b, size_t b_step,
                    size_t n);
    /* For every skeleton b and start <= j < stop, ascending:
     *   out[b,j] = local[b,j]                        if parents[j] < 0
     *   out[b,j] = out[b,parents[j]] @ local[b,j]     otherwise
     * out == local is allowed (in place). */
    void (*mat4_local_to_global)(float *out, const float *local, const int32_t *parents,
                                 size_t batch, size_t joints, size_t start, size_t stop,
                                 size_t call_batch);
    /* The same walk with the global matrices carried in float64 (see mat4.c, "float64
     * accumulation"): out[b,j] is the float32 rounding of the float64 product chain of the
     * float32 locals and, for parents before start, the float32 out[b,parents[j]] taken as
     * exact. `scratch` holds SKS_MAT4_F64_SCRATCH_DOUBLES(stop) doubles, allocated by the
     * caller. out == local is allowed. Every variant gives bit-identical results on finite
     * inputs (a NaN may differ in sign or payload). */
    void (*mat4_local_to_global_f64)(float *out, const float *local, const int32_t *parents,
                                     size_t batch, size_t joints, size_t start, size_t stop,
                                     double *scratch);
    /* out[i] (3 floats) = the point points[i * p_step] (3 floats) transformed by the matrix
     * m[i * m_step], steps 0 or 1: a 3x4 joint matrix (12 floats) for _3x4, a 4x4 matrix
     * (16 floats) for _4x4. Affine matrices (3x4, or a 4x4 whose last row is exactly 0 0 0 1)
     * give R p + t; any other last row is projective: (R p + t) / w with
     * w = m[3][0] x + m[3][1] y + m[3][2] z + m[3][3]. out may equal points (in place). */
    void (*transform_points_3x4)(float *out, const float *m, size_t m_step, const float *points,
                                 size_t p_step, size_t n);
    void (*transform_points_4x4)(float *out, const float *m, size_t m_step, const float *points,
                                 size_t p_step, size_t n);
} sks_mat4_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in mat4.c, once per target. */
extern const sks_mat4_kernels *const sks_mat4_variants[SKS_ISA_COUNT];

#endif /* SKS_MAT4_H */
