/*
 * quat.h -- the quaternion kernel family: algebra and conversions on (x, y, z, w) quaternions
 * and QTS joints (van Waveren, "Slerping Clock Cycles"; the comment thread of Molecular Musings'
 * "Adventures in data-oriented design, part 2").
 *
 * A quaternion is 4 floats (x, y, z, w); a QTS joint is 8 floats (qx, qy, qz, qw, tx, ty, tz, s)
 * with s a uniform scale; a rotation matrix is 9 floats row-major; a joint matrix is 12 floats,
 * row-major 3x4 [R | t]. Counts `n` are in elements; `*_step` is 0 (one element broadcast to all)
 * or 1 (consecutive elements). `scalar_first` nonzero reads/writes quaternions as (w, x, y, z).
 *
 * Every target evaluates the same float32 operations in the same order (no FMA; quat_ops.h),
 * so all variants give bit-identical results on finite inputs.
 */
#ifndef SKS_QUAT_H
#define SKS_QUAT_H

#include "simd.h"

typedef struct sks_quat_kernels {
    /* out[i] = a[i a_step] * b[i b_step] (Hamilton product); out may equal a or b. */
    void (*multiply)(float *out, const float *a, size_t a_step, const float *b, size_t b_step,
                     size_t n);
    /* out[i] = (-x, -y, -z, w); out may equal q. */
    void (*conjugate)(float *out, const float *q, size_t n);
    /* out[i] = q / |q|; zero -> (0, 0, 0, 1); inf/NaN -> NaN. out may equal q. */
    void (*normalize)(float *out, const float *q, size_t n);
    /* out[i] (3 floats) = R(q[i q_step] / |q|) v[i v_step]. out may equal v. */
    void (*rotate)(float *out, const float *q, size_t q_step, const float *v, size_t v_step,
                   size_t n);
    /* out[i] (9 floats) = R(q[i] / |q|); zero q -> identity. */
    void (*to_matrix)(float *out, const float *q, size_t n, int scalar_first);
    /* out[i] = the unit quaternion of the rotation matrix m[i] (Shepperd's selection of the
     * largest of 4w^2, 4x^2, 4y^2, 4z^2, then normalised), canonical w >= 0. */
    void (*from_matrix)(float *out, const float *m, size_t n, int scalar_first);
    /* out[i] (12 floats) = [s R(q / |q|) | t] of QTS joint x[i]. */
    void (*qts_to_matrix)(float *out, const float *x, size_t n);
    /* out[i] (8 floats) = QTS of joint matrix m[i]: s = sign(det A) sqrt(|A|_F^2 / 3),
     * q = from_matrix(A / s), t = translation column. */
    void (*matrix_to_qts)(float *out, const float *m, size_t n);
} sks_quat_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in quat.c, once per target. */
extern const sks_quat_kernels *const sks_quat_variants[SKS_ISA_COUNT];

#endif /* SKS_QUAT_H */
