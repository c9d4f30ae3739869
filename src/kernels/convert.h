/*
 * convert.h -- the rotation conversion family: Euler angles in SciPy's sequence
 * conventions, rotation vectors (exponential and logarithm maps) and the 6D representation of
 * neural-network pipelines, to and from (x, y, z, w) quaternions.
 *
 * Layouts: a quaternion is 4 floats (x, y, z, w), or (w, x, y, z) with SKS_CONVERT_SCALAR_FIRST;
 * Euler angles and rotation vectors are 3 floats; a rotation matrix is 9 floats row-major; a 6D
 * vector is 6 floats: the first two columns of the matrix one after the other, (m00, m10, m20,
 * m01, m11, m21), or with SKS_CONVERT_ROWS its first two rows, (m00, m01, m02, m10, m11, m12).
 * Counts `n` are in elements.
 *
 * An Euler sequence is SKS_EULER_SEQ(a0, a1, a2, extrinsic): axes 0 = x, 1 = y, 2 = z as written
 * in SciPy's `seq` (a0 first), extrinsic 1 for lowercase (rotations about the fixed axes), 0 for
 * uppercase (intrinsic: about the rotating axes); consecutive axes differ.
 *
 * Every target evaluates the same float32 operations in the same order (no FMA; vec_math.h for
 * the trigonometry), so all variants give bit-identical results on finite inputs.
 */
#ifndef SKS_CONVERT_H
#define SKS_CONVERT_H

#include "simd.h"

#define SKS_CONVERT_DEGREES 1        /* angles (Euler, rotation vector) in degrees */
#define SKS_CONVERT_SCALAR_FIRST 2   /* quaternions as (w, x, y, z) */
#define SKS_CONVERT_ROWS 4           /* 6D vectors of rows instead of columns */

#define SKS_EULER_SEQ(a0, a1, a2, extrinsic) ((a0) | ((a1) << 2) | ((a2) << 4) | ((extrinsic) << 6))
#define SKS_EULER_AXIS(seq, i) (((seq) >> (2 * (i))) & 3)
#define SKS_EULER_EXTRINSIC(seq) (((seq) >> 6) & 1)

typedef struct sks_convert_kernels {
    /* out[i] (4) = the quaternion of Euler angles angles[i] (3) in sequence `seq`: the product of
     * the three elementary rotations (intrinsic e0 e1 e2, extrinsic e2 e1 e0), as SciPy's
     * Rotation.from_euler(seq, angles).as_quat() (same sign). flags: DEGREES, SCALAR_FIRST. */
    void (*euler_to_quat)(float *out, const float *angles, size_t n, int seq, int flags);
    /* out[i] (3) = the Euler angles of q[i] (any non-zero scale) in sequence `seq`, as SciPy's
     * Rotation.as_euler; returns how many were in gimbal lock (third angle set to 0). A zero
     * quaternion gives (0, 0, 0); a non-finite one NaN. flags: DEGREES, SCALAR_FIRST. */
    size_t (*quat_to_euler)(float *out, const float *q, size_t n, int seq, int flags);
    /* out[i] (4) = exp of the rotation vector v[i] (3): (sin(|v|/2) v/|v|, cos(|v|/2)).
     * flags: DEGREES, SCALAR_FIRST. */
    void (*rotvec_to_quat)(float *out, const float *v, size_t n, int flags);
    /* out[i] (3) = log of q[i]: angle * axis with the angle in [0, pi] (SciPy's canonical
     * hemisphere: w > 0, or the first non-zero of x, y, z positive when w = 0). A zero
     * quaternion gives 0; a non-finite one NaN. flags: DEGREES, SCALAR_FIRST. */
    void (*quat_to_rotvec)(float *out, const float *q, size_t n, int flags);
    /* out[i] (6) = two columns (rows) of the matrix m[i] (9), copied. flags: ROWS. */
    void (*matrix_to_sixd)(float *out, const float *m, size_t n, int flags);
    /* out[i] (9) = the rotation of the 6D vector d[i] by Gram-Schmidt: b1 = a / |a|,
     * b2 = (b - (b1.b) b1) / |...|, b3 = b1 x b2, as columns (rows). flags: ROWS. */
    void (*sixd_to_matrix)(float *out, const float *d, size_t n, int flags);
    /* out[i] (6) = matrix_to_sixd(quat_to_matrix(q[i])), bit for bit. flags: ROWS, SCALAR_FIRST. */
    void (*quat_to_sixd)(float *out, const float *q, size_t n, int flags);
    /* out[i] (4) = matrix_to_quat(sixd_to_matrix(d[i])), bit for bit (w >= 0).
     * flags: ROWS, SCALAR_FIRST. */
    void (*sixd_to_quat)(float *out, const float *d, size_t n, int flags);
} sks_convert_kernels;

/* One row per enum sks_isa (dispatch.c); the rows are defined in convert.c, once per target. */
extern const sks_convert_kernels *const sks_convert_variants[SKS_ISA_COUNT];

#endif /* SKS_CONVERT_H */
