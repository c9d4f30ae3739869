/*
 * quat_scalar.h -- per-element quaternion helpers in plain C: the branchy conversions and the
 * rare-lane paths that the vector kernels hand single elements to (normalisation of zero, tiny,
 * huge or non-finite quaternions; Shepperd's method; matrix to QTS). They follow the operation
 * order of quat_ops.h (dot pairwise, ...), so a lane computed here equals what a vector lane
 * would give. No vector types: usable from any translation unit.
 */
#ifndef SKS_QUAT_SCALAR_H
#define SKS_QUAT_SCALAR_H

#include <math.h>
#include <string.h>

#define SKS_QUAT_FLOATS 4
#define SKS_QTS_FLOATS 8

/* Range of dot(q, q) the fast normalisation handles; outside it (zero, tiny, huge, inf, NaN)
 * sks_quat_normalize_scalar rescales first. */
#define SKS_NORM2_MIN 1e-30f
#define SKS_NORM2_MAX 1e30f

static inline float sks_quat_dot_scalar(const float *a, const float *b)
{
    return (a[0] * b[0] + a[2] * b[2]) + (a[1] * b[1] + a[3] * b[3]);
}

/* o = a * b (Hamilton product, (x, y, z, w) order); o may alias a or b. */
static inline void sks_quat_mul_scalar(float *o, const float *a, const float *b)
{
    const float ax = a[0], ay = a[1], az = a[2], aw = a[3];
    const float bx = b[0], by = b[1], bz = b[2], bw = b[3];
    const float x = (aw * bx + ax * bw) + (ay * bz - az * by);
    const float y = (aw * by + ay * bw) + (az * bx - ax * bz);
    const float z = (aw * bz + az * bw) + (ax * by - ay * bx);
    const float w = (aw * bw - ax * bx) - (ay * by + az * bz);
    o[0] = x;
    o[1] = y;
    o[2] = z;
    o[3] = w;
}

/* r (row-major 3x3) = scale * R(q / |q|); a zero q gives scale * I. With h = scale / |q|^2:
 * diagonal h ((w^2 + x^2) - (y^2 + z^2)) and cyclic (the form scale - 2h (y^2 + z^2) rounds an
 * intermediate up to 2: 3.1e-7 max error against 2.1e-7 over 4M quaternions, and the QTS walk's
 * worst case over 12,000 random 96-joint trees fell from 1.85e-6 to 1.56e-6), off-diagonal
 * 2h (xy - zw) etc. */
static inline void sks_quat_scaled_rotation_scalar(float r[9], const float *q, float scale)
{
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    const float xx = x * x, yy = y * y, zz = z * z, ww = w * w;
    const float n2 = (xx + zz) + (yy + ww);
    const float h = n2 > 0.0f ? scale / n2 : 0.0f, k = h + h;
    const float id = n2 > 0.0f ? 0.0f : scale;   /* a zero q: scale * I */
    const float xy = x * y, xz = x * z, yz = y * z, xw = x * w, yw = y * w, zw = z * w;
    r[0] = h * ((ww + xx) - (yy + zz)) + id;
    r[1] = k * (xy - zw);
    r[2] = k * (xz + yw);
    r[3] = k * (xy + zw);
    r[4] = h * ((ww + yy) - (xx + zz)) + id;
    r[5] = k * (yz - xw);
    r[6] = k * (xz - yw);
    r[7] = k * (yz + xw);
    r[8] = h * ((ww + zz) - (xx + yy)) + id;
}

/* ((r0 v0 + r1 v1) + r2 v2) + tau: one row of a matrix-vector product, translation added last. */
static inline float sks_row_dot3_scalar(const float *r, const float *v, float tau)
{
    return ((r[0] * v[0] + r[1] * v[1]) + r[2] * v[2]) + tau;
}

/* o = q / |q| for any q: the common case divides each component by sqrt(dot(q, q)); a zero q
 * gives the identity (0, 0, 0, 1); tiny or huge q are rescaled by their largest component first
 * (no underflow or overflow); a q with an inf or NaN component gives all-NaN. o may alias q. */
static inline void sks_quat_normalize_scalar(float *o, const float *q)
{
    float v[4], n2, n;
    int i;
    memcpy(v, q, sizeof v);
    n2 = sks_quat_dot_scalar(v, v);
    if (!(n2 >= SKS_NORM2_MIN && n2 <= SKS_NORM2_MAX)) {
        float m = 0.0f;
        for (i = 0; i < 4; i++) {
            const float a = fabsf(v[i]);
            m = a > m ? a : m;
        }
        if (!(m <= 3.4e38f) || v[0] != v[0] || v[1] != v[1] || v[2] != v[2] || v[3] != v[3]) {
            o[0] = o[1] = o[2] = o[3] = NAN;
            return;
        }
        if (m == 0.0f) {
            o[0] = o[1] = o[2] = 0.0f;
            o[3] = 1.0f;
            return;
        }
        for (i = 0; i < 4; i++) v[i] = v[i] / m;
        n2 = sks_quat_dot_scalar(v, v);
    }
    n = sqrtf(n2);
    for (i = 0; i < 4; i++) o[i] = v[i] / n;
}

/* q (x, y, z, w) of the rotation matrix a (rows `rs` floats apart), Shepperd's method, see quat.c. */
static inline void sks_quat_from_rotation_scalar(float q[4], const float *a, size_t rs)
{
    const float m00 = a[0], m01 = a[1], m02 = a[2];
    const float m10 = a[rs], m11 = a[rs + 1], m12 = a[rs + 2];
    const float m20 = a[2 * rs], m21 = a[2 * rs + 1], m22 = a[2 * rs + 2];
    const float p = 1.0f + m00, s = m11 + m22, u = 1.0f - m00, d = m11 - m22;
    const float dw = p + s, dx = p - s, dy = u + d, dz = u - d;
    float v[4], best = dw;
    int k = 3;
    if (dx > best) { best = dx; k = 0; }
    if (dy > best) { best = dy; k = 1; }
    if (dz > best) { k = 2; }
    switch (k) {
    case 0: v[0] = dx; v[1] = m01 + m10; v[2] = m02 + m20; v[3] = m21 - m12; break;
    case 1: v[0] = m01 + m10; v[1] = dy; v[2] = m12 + m21; v[3] = m02 - m20; break;
    case 2: v[0] = m02 + m20; v[1] = m12 + m21; v[2] = dz; v[3] = m10 - m01; break;
    default: v[0] = m21 - m12; v[1] = m02 - m20; v[2] = m10 - m01; v[3] = dw; break;
    }
    sks_quat_normalize_scalar(q, v);
    if (q[3] < 0.0f) {
        q[0] = -q[0];
        q[1] = -q[1];
        q[2] = -q[2];
        q[3] = -q[3];
    }
}

/* o (8 floats) = QTS of the joint matrix m (12 floats), see matrix_to_qts in quat.c. */
static inline void sks_matrix_to_qts_scalar(float *o, const float *m)
{
    const float a00 = m[0], a01 = m[1], a02 = m[2], a10 = m[4], a11 = m[5], a12 = m[6];
    const float a20 = m[8], a21 = m[9], a22 = m[10];
    const float f2 = ((a00 * a00 + a01 * a01) + a02 * a02) + ((a10 * a10 + a11 * a11) + a12 * a12) +
                     ((a20 * a20 + a21 * a21) + a22 * a22);
    const float det = (a00 * (a11 * a22 - a12 * a21) - a01 * (a10 * a22 - a12 * a20)) +
                      a02 * (a10 * a21 - a11 * a20);
    const float t0 = m[3], t1 = m[7], t2 = m[11];
    float s = sqrtf(f2 / 3.0f);
    float q[4];
    if (det < 0.0f) s = -s;
    if (s == 0.0f) {
        q[0] = q[1] = q[2] = 0.0f;
        q[3] = 1.0f;
    } else {
        float r[9];
        r[0] = a00 / s; r[1] = a01 / s; r[2] = a02 / s;
        r[3] = a10 / s; r[4] = a11 / s; r[5] = a12 / s;
        r[6] = a20 / s; r[7] = a21 / s; r[8] = a22 / s;
        sks_quat_from_rotation_scalar(q, r, 3);
    }
    memcpy(o, q, sizeof q);
    o[4] = t0;
    o[5] = t1;
    o[6] = t2;
    o[7] = s;
}

#endif /* SKS_QUAT_SCALAR_H */
