/*
 * qts.h -- the QTS hierarchy walks (the comment thread of Molecular Musings' "Adventures in
 * data-oriented design, part 2": a quaternion + translation walk,
 * with uniform scale; ozz-animation's LocalToModelJob for the matrix output).
 *
 * A QTS joint is 8 floats (qx, qy, qz, qw, tx, ty, tz, s); a joint matrix 12 floats, row-major
 * 3x4 [R | t]. A pose batch is `batch` skeletons of `joints` joints, contiguous; `parents` has one
 * int32 per joint, -1 for a root, otherwise parents[j] < j (validated by the caller).
 * `scratch` is caller-provided working memory of sks_qts_scratch_floats(...) floats.
 */
#ifndef SKS_QTS_H
#define SKS_QTS_H

#include "simd.h"

typedef void (*sks_qts_walk_fn)(float *out, const float *local, const int32_t *parents,
                                size_t batch, size_t joints, size_t start, size_t stop,
                                float *scratch);
typedef void (*sks_qts_walk_f64_fn)(float *out, const float *local, const int32_t *parents,
                                    size_t batch, size_t joints, size_t start, size_t stop,
                                    double *scratch);

typedef struct sks_qts_kernels {
    /* For every skeleton and start <= j < stop, ascending (parents before start are read from
     * out as already-global QTS joints):
     *   out[j] = local[j] for a root, otherwise with P = out[parents[j]], L = local[j]:
     *   q = q_P * q_L,  t = s_P R(q_P) t_L + t_P,  s = s_P s_L.
     * out == local is allowed (in place). */
    sks_qts_walk_fn local_to_global;
    /* The same walk with 3x4 global matrices out (12 floats per joint): out[j] =
     * qts_to_matrix(global QTS j). Parents before start are read from out as global matrices
     * (their M and t as they are, q and s by matrix_to_qts). */
    sks_qts_walk_fn local_to_global_matrix;
    /* The same two walks with the global poses carried in float64 (see qts.c, "float64
     * accumulation"): every output element is rounded to float32 once. QTS output: the float32
     * walk's formula and order in float64. Matrix output: the 3x4 global matrix carried in
     * float64, G_j = G_P @ [s_L R(q_L) | t_L], parents before start read from out as float32
     * matrices taken as exact. `scratch` holds sks_qts_f64_scratch_doubles(stop) doubles.
     * out == local is allowed for the QTS output. Every variant gives bit-identical results on
     * finite inputs (a NaN may differ in sign or payload). */
    sks_qts_walk_f64_fn local_to_global_f64;
    sks_qts_walk_f64_fn local_to_global_matrix_f64;
} sks_qts_kernels;

/* Scratch of the float32 walks: a record of SKS_QTS_REC floats per joint for each of up to 8
 * skeletons side by side (q 4, t 3, s 1, M = s R(q) 9). */
#define SKS_QTS_REC 17
#define SKS_QTS_MAX_SIDE_BY_SIDE 8

/* Scratch of the float64 walks: a record of SKS_QTS_F64_REC doubles per joint for each of
 * SKS_QTS_F64_LANES skeletons side by side. */
#define SKS_QTS_F64_REC 17
#define SKS_QTS_F64_LANES 4

/* The walks use their scratch from the first SKS_QTS_SCRATCH_ALIGN-byte boundary on; the sizes
 * below include that slack (any float- or double-aligned scratch works). */
#define SKS_QTS_SCRATCH_ALIGN 64

/* Floats of scratch either float32 kernel needs for skeletons of `joints` joints. */
static inline size_t sks_qts_scratch_floats(size_t joints)
{
    return (size_t)SKS_QTS_REC * SKS_QTS_MAX_SIDE_BY_SIDE * joints + SKS_QTS_SCRATCH_ALIGN / sizeof(float);
}

/* Doubles of scratch either float64 kernel needs for a pass up to `stop`. */
static inline size_t sks_qts_f64_scratch_doubles(size_t stop)
{
    return (size_t)SKS_QTS_F64_REC * SKS_QTS_F64_LANES * stop + SKS_QTS_SCRATCH_ALIGN / sizeof(double);
}

/* One row per enum sks_isa (dispatch.c); the rows are defined in qts.c, once per target. */
extern const sks_qts_kernels *const sks_qts_variants[SKS_ISA_COUNT];

#endif /* SKS_QTS_H */
