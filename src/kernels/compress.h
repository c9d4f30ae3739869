/*
 * compress.h -- animation-clip compression: the compressed format, its decoder kernels, the
 * float64 object-space error (clip_error) and the encoder (compress_search.c).
 *
 * The compressed data ("the blob": everything needed to sample a local pose except joint names
 * and hierarchy; CompressedClip.nbytes is its size). All integers little-endian, floats IEEE
 * binary32/binary64 little-endian, no alignment assumed (every read is a byte-wise load):
 *
 *   offset 0   u32  magic "SKCD" (0x44434b53)
 *          4   u32  F, frames (>= 1)
 *          8   u32  J, joints (1 ..= 65535)
 *         12   u32  L, segment length in frames (1 ..= 1024; or F when C = 0: one segment)
 *         16   u32  G, segments = max(1, F / L) (integer division): segment g covers frames
 *                   [g L, g L + L) except the last, which runs to F - 1 (L ..= 2L - 1 frames, or
 *                   F when F < L)
 *         20   u32  C, animated components per key (see below)
 *         24   f64  sample rate (Hz, finite, > 0)
 *         32   J bytes, one per joint: bits 0-1 rotation kind, 2-3 translation kind, 4-5 scale
 *                   kind (0 default, 1 constant, 2 animated); bits 6-7 zero
 *              zero padding to a multiple of 4
 *              constants, float32, joint by joint: a constant rotation's 4 floats (x, y, z, w),
 *                   translation's 3, scale's 1
 *              clip ranges, float32 (min, extent) pairs, joint by joint: an animated rotation has
 *                   4 (x, y, z, w), a translation 3, a scale 1
 *              segment table, G entries of (u32 byte offset of the segment from the blob's start,
 *                   u32 key bits K_g)
 *              G segments, each: C component headers of 3 bytes (the rate byte, then the u16
 *                   range code), then n_g keys of K_g bits each (bit-packed, least significant
 *                   bit first, key-major: key i starts at bit i K_g), padded to a whole byte;
 *                   segments follow each other without gaps
 *              8 zero bytes (the decoder reads 4 bytes at a time)
 *
 * Animated components, in joint order and within a joint rotation (3 stored components),
 * translation (3), scale (1). A rotation stores 3 of its 4 quaternion components per segment:
 * the dropped one, d = bits 5-6 of the rotation's first rate byte, is rebuilt as
 * sqrt(max(0, 1 - ((a^2 + b^2) + c^2))) from the others (a, b, c: the kept components in order,
 * each using the clip range of its own quaternion component); the encoder picks, per segment,
 * the component farthest from zero and flips the sign of each key to make it positive.
 *
 * A component with rate byte r (bits 0-4, 0 ..= 24 bits; bits 5-7 zero except the rotation's
 * drop index) and range code c, clip range (m, e):
 *     r == 0: lo = m + e * (c * (1/65535)),             sc = 0
 *     r  > 0: lo = m + e * ((c & 255) * (1/255)),       sc = (e * ((c >> 8) * (1/255))) * (1/(2^r - 1))
 *     value  = lo + sc * q,   q the key's r-bit unsigned integer (0 when r == 0)
 * every operation in float32 in this order (the constants are float32 roundings of the
 * fractions). A pose between two keys (frame position f + alpha, 0 <= alpha < 1):
 *     rotation  alpha == 0: normalize(q_f); otherwise normalize(q_f + alpha (+-q_{f+1} - q_f)),
 *               the sign of q_{f+1} making the dot product >= 0 (nlerp on the shortest arc);
 *               normalize(x) = x * (1 / sqrt(((x0^2 + x1^2) + x2^2) + x3^2))
 *     translation, scale: alpha == 0: the key; otherwise a + alpha (b - a)
 *     constant tracks: the stored value as it is; default tracks: (0, 0, 0, 1), (0, 0, 0), 1.
 *
 * The error (clip_error, float64): for every frame and joint, the global transform of the raw
 * and of the decoded pose by the QTS walk, M = M_P (s R(q / |q|)), t = t_P + M_P t_L (roots:
 * M = s R, t = t_L), and the three virtual vertices t + d M e_k at shell distance d; the error is
 * the largest distance between a raw and the matching decoded vertex.
 */
#ifndef SKS_COMPRESS_H
#define SKS_COMPRESS_H

#include <math.h>

#include "simd.h"

#define SKS_CC_MAGIC 0x44434b53u
#define SKS_CC_HEADER_BYTES 32u
#define SKS_CC_MAX_BITS 24u
#define SKS_CC_MAX_JOINTS 65535u
#define SKS_CC_MAX_SEGMENT 1024u
#define SKS_CC_TAIL_PAD 8u

enum sks_cc_kind { SKS_CC_DEFAULT = 0, SKS_CC_CONSTANT = 1, SKS_CC_ANIMATED = 2 };

/* ---- byte-wise little-endian loads and stores -------------------------------------------- */

static inline uint32_t sks_cc_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint32_t sks_cc_u16(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

static inline float sks_cc_f32(const uint8_t *p)
{
    const uint32_t u = sks_cc_u32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double sks_cc_f64(const uint8_t *p)
{
    const uint64_t u = (uint64_t)sks_cc_u32(p) | ((uint64_t)sks_cc_u32(p + 4) << 32);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* The r-bit unsigned integer at bit `pos` of `keys` (r <= 24; reads 4 bytes). */
static inline uint32_t sks_cc_bits(const uint8_t *keys, uint64_t pos, unsigned r)
{
    const uint32_t word = sks_cc_u32(keys + (pos >> 3));
    return (uint32_t)((word >> (unsigned)(pos & 7u)) & ((1u << r) - 1u));
}

/* ---- the canonical float32 decode (every decoder variant and the encoder use these) ------- */

#define SKS_CC_INV255 ((float)(1.0 / 255.0))
#define SKS_CC_INV65535 ((float)(1.0 / 65535.0))

/* 1 / (2^r - 1) rounded to float32, r = 0 ..= 24 (0 for r = 0). */
extern const float sks_cc_inv_levels[SKS_CC_MAX_BITS + 1];

/* 2^r - 1, r = 0 ..= 31 (a rate byte's low 5 bits; only 0 ..= 24 occur in valid data). */
extern const uint32_t sks_cc_masks[32];

/* lo and sc of a component (see the format): value = lo + sc * q. */
static inline void sks_cc_component(float m, float e, unsigned r, uint32_t code, float *lo,
                                    float *sc)
{
    if (r == 0) {
        *lo = m + e * ((float)code * SKS_CC_INV65535);
        *sc = 0.0f;
    } else {
        *lo = m + e * ((float)(code & 255u) * SKS_CC_INV255);
        *sc = (e * ((float)(code >> 8) * SKS_CC_INV255)) * sks_cc_inv_levels[r];
    }
}

/* The quaternion of 3 stored components v (in order, skipping `drop`). */
static inline void sks_cc_rebuild(float q[4], const float v[3], unsigned drop)
{
    const float s = (v[0] * v[0] + v[1] * v[1]) + v[2] * v[2];
    const float d = 1.0f - s;
    const float m = sqrtf(d > 0.0f ? d : 0.0f);
    unsigned i, k = 0;
    for (i = 0; i < 4; i++) q[i] = i == drop ? m : v[k++];
}

/* o = x / |x| as the format defines it. */
static inline void sks_cc_normalize(float o[4], const float x[4])
{
    const float n2 = ((x[0] * x[0] + x[1] * x[1]) + x[2] * x[2]) + x[3] * x[3];
    const float inv = 1.0f / sqrtf(n2);
    o[0] = x[0] * inv;
    o[1] = x[1] * inv;
    o[2] = x[2] * inv;
    o[3] = x[3] * inv;
}

/* nlerp on the shortest arc; alpha == 0 gives normalize(a). */
static inline void sks_cc_nlerp(float o[4], const float a[4], const float b[4], float alpha)
{
    float x[4];
    if (alpha == 0.0f) {
        sks_cc_normalize(o, a);
        return;
    }
    {
        const float dot = ((a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]) + a[3] * b[3];
        const float sign = dot < 0.0f ? -1.0f : 1.0f;
        int i;
        for (i = 0; i < 4; i++) x[i] = a[i] + alpha * (sign * b[i] - a[i]);
    }
    sks_cc_normalize(o, x);
}

static inline float sks_cc_lerp(float a, float b, float alpha)
{
    return alpha == 0.0f ? a : a + alpha * (b - a);
}

/* ---- the canonical float64 object-space error ---------------------------------------------- */

/* A QTS joint as a float64 affine map: m = s R(q / |q|) (row-major 3x3), t. R is the rotation
 * matrix of q with its products scaled by 1 / |q|^2 (the same as normalising q first, without
 * a square root); a zero q is the identity. */
static inline void sks_cc_local_affine(double m[9], double t[3], const double *qts)
{
    const double x = qts[0], y = qts[1], z = qts[2], w = qts[3];
    const double n2 = ((x * x + y * y) + z * z) + w * w;
    const double s = qts[7];
    if (n2 != 0.0) {   /* (NaN propagates) */
        const double inv = 1.0 / n2;
        const double xx = (x * x) * inv, yy = (y * y) * inv, zz = (z * z) * inv;
        const double xy = (x * y) * inv, xz = (x * z) * inv, yz = (y * z) * inv;
        const double wx = (w * x) * inv, wy = (w * y) * inv, wz = (w * z) * inv;
        m[0] = s * (1.0 - 2.0 * (yy + zz));
        m[1] = s * (2.0 * (xy - wz));
        m[2] = s * (2.0 * (xz + wy));
        m[3] = s * (2.0 * (xy + wz));
        m[4] = s * (1.0 - 2.0 * (xx + zz));
        m[5] = s * (2.0 * (yz - wx));
        m[6] = s * (2.0 * (xz - wy));
        m[7] = s * (2.0 * (yz + wx));
        m[8] = s * (1.0 - 2.0 * (xx + yy));
    } else {
        m[0] = m[4] = m[8] = s;
        m[1] = m[2] = m[3] = m[5] = m[6] = m[7] = 0.0;
    }
    t[0] = qts[4];
    t[1] = qts[5];
    t[2] = qts[6];
}

/* Global (gm, gt) = parent (pm, pt) composed with local (lm, lt). */
static inline void sks_cc_compose(double gm[9], double gt[3], const double pm[9],
                                  const double pt[3], const double lm[9], const double lt[3])
{
    int r, c;
    for (r = 0; r < 3; r++) {
        const double a0 = pm[3 * r], a1 = pm[3 * r + 1], a2 = pm[3 * r + 2];
        for (c = 0; c < 3; c++) gm[3 * r + c] = (a0 * lm[c] + a1 * lm[3 + c]) + a2 * lm[6 + c];
        gt[r] = pt[r] + ((a0 * lt[0] + a1 * lt[1]) + a2 * lt[2]);
    }
}

/* Squared error of one joint: max over k of |(t - rt) + d (m - rm) e_k|^2. */
static inline double sks_cc_error2(const double m[9], const double t[3], const double rm[9],
                                   const double rt[3], double d)
{
    const double dt0 = t[0] - rt[0], dt1 = t[1] - rt[1], dt2 = t[2] - rt[2];
    double best = 0.0;
    int k;
    for (k = 0; k < 3; k++) {
        const double e0 = dt0 + d * (m[k] - rm[k]);
        const double e1 = dt1 + d * (m[3 + k] - rm[3 + k]);
        const double e2 = dt2 + d * (m[6 + k] - rm[6 + k]);
        const double e = (e0 * e0 + e1 * e1) + e2 * e2;
        best = e > best || e != e ? e : best;
    }
    return best;
}

/* Squared error of every joint of one pose (raw and decoded QTS, float64): err2[J]. `scratch`
 * holds 24 J doubles. The encoder's search and its final verification use exactly this. */
void sks_cc_pose_error2(const double *raw, const double *decoded, const int32_t *parents,
                        size_t joints, double shell, double *err2, double *scratch);

/* clip_error over `poses` poses of J joints (QTS, float64, C-contiguous): writes the largest
 * error of each joint into per_joint[J] (NaN when a NaN took part) and returns the overall
 * maximum (NaN likewise). `scratch` holds 25 J doubles. It is sks_cc_max_error2 over every pose
 * from zeroed maxima, then sks_cc_finish_clip_error. */
double sks_cc_clip_error(const double *raw, const double *decoded, const int32_t *parents,
                         size_t poses, size_t joints, double shell, double *per_joint,
                         double *scratch);

/* The running maxima of clip_error: max2[J] (squared errors) updated by `poses` more poses, in
 * order; a NaN replaces the maximum and a later NaN replaces that one. A range of poses divided
 * into pieces gives the same max2 when each piece's maxima (from zero) are folded in piece order
 * by sks_cc_fold_max_error2 (the rule is associative). `scratch` holds 25 J doubles. */
void sks_cc_max_error2(const double *raw, const double *decoded, const int32_t *parents,
                       size_t poses, size_t joints, double shell, double *max2, double *scratch);
/* max2[j] updated by a later piece's maxima `later`[j], by the rule of sks_cc_max_error2. */
void sks_cc_fold_max_error2(double *max2, const double *later, size_t joints);
/* per_joint[j] = sqrt(max2[j]) in place (max2 == per_joint); returns their maximum (NaN when one
 * is NaN). */
double sks_cc_finish_clip_error(double *per_joint, size_t joints);

/* ---- the parsed view of a blob ------------------------------------------------------------- */

typedef struct sks_cc_joint {
    uint8_t kind[3];            /* rotation, translation, scale */
    uint8_t pad;
    uint32_t comp;              /* index of the joint's first animated component */
    uint32_t before[3];         /* animated rotation / translation / scale tracks of earlier joints */
    const uint8_t *constant;    /* its first constant float (or NULL) */
    const uint8_t *range;       /* its first clip range pair (or NULL) */
} sks_cc_joint;

/* Padding (zeros) after each structure-of-arrays clip range array of the view: a whole vector of
 * the widest target. */
#define SKS_CC_RANGE_PAD 8

/* The decoders take the joints in chunks of SKS_CC_CHUNK (a multiple of every target's lane
 * count); within a chunk, stored components are laid out by slot (rotation components 0-2,
 * translation components 0-2, scale) and track. The layout depends only on the track kinds, so
 * the view keeps it. */
#define SKS_CC_CHUNK 32
#define SKS_CC_SLOTS 7

typedef struct sks_cc_chunk {
    uint32_t comp0, comp1;              /* its components [comp0, comp1) */
    uint32_t count[3];                  /* animated rotation, translation, scale tracks */
    uint32_t first[3];                  /* index of the first among the clip's tracks of the type */
    uint32_t joint[3][SKS_CC_CHUNK];    /* output joint of each track */
} sks_cc_chunk;

typedef struct sks_cc_view {
    const uint8_t *data;
    size_t size;
    uint32_t frames, joints, segment_length, segments, components;
    uint32_t tracks[3];         /* animated rotation, translation and scale tracks */
    double sample_rate;
    const uint8_t *table;       /* segment table */
    sks_cc_joint *joint;        /* J entries (owned: sks_cc_view_free) */
    float *pose_template;       /* J x 8: default and constant values (owned); the decoders
                                 * copy it, then write the animated tracks */
    float *ranges;              /* the clip ranges as structure of arrays (owned), by track of
                                 * each type: */
    const float *rot_min[4], *rot_ext[4];      /* quaternion components x, y, z, w */
    const float *trans_min[3], *trans_ext[3];
    const float *scale_min, *scale_ext;
    sks_cc_chunk *chunks;       /* ceil(J / SKS_CC_CHUNK) (owned) */
    uint16_t *slot_of;          /* C (owned): component c's place in its chunk's slot arrays,
                                 * slot * SKS_CC_CHUNK + track */
} sks_cc_view;

enum sks_cc_status {
    SKS_CC_OK = 0,
    SKS_CC_NO_MEMORY,
    SKS_CC_CORRUPT,             /* parse: the message says what */
    SKS_CC_UNREACHABLE,         /* encode: precision below what float32 can reproduce */
    SKS_CC_TOO_LARGE            /* encode: the blob would not fit 32-bit offsets */
};

/* Validates a blob completely (every offset, size, rate and code) and builds the view; on
 * failure writes a message into err (errlen bytes) and returns SKS_CC_CORRUPT (or NO_MEMORY).
 * The data must outlive the view. A validated view never makes a decoder read out of bounds. */
int sks_cc_parse(const uint8_t *data, size_t size, sks_cc_view *view, char *err, size_t errlen);
void sks_cc_view_free(sks_cc_view *view);

/* ---- decoder kernels (compress.c, one source compiled per target) ------------------------- */

typedef struct sks_compress_kernels {
    /* out[n] (J x 8 floats each) = the pose at frame position frame[n] + alpha[n], with
     * 0 <= frame[n] < F, 0 <= alpha[n] < 1, alpha[n] == 0 when frame[n] == F - 1. */
    void (*sample)(const sks_cc_view *v, const uint32_t *frame, const float *alpha, size_t n,
                   float *out);
    /* out = frames [first, first + count) at alpha 0 (count * J * 8 floats). */
    void (*decompress)(const sks_cc_view *v, size_t first, size_t count, float *out);
    /* The encoder's evaluation (float64; the same values on every target). Frames are held in
     * structure-of-arrays blocks of SKS_CC_SB: quantity q (the 9 entries of M, then t) of frame
     * f of a joint at (f / SB) 12 SB + q SB + f % SB; np is a multiple of SKS_CC_SB.
     * affine: the affine maps (sks_cc_local_affine) of decoded locals dl (QTS lane k of frame f
     * at dl[k * stride + f]; quaternions never zero) into lx.
     * walk: globals g = pg composed with l (pg NULL: g = l) frame by frame (sks_cc_compose),
     * returns 0 when some frame's squared error against the raw globals r (sks_cc_error2 with
     * shell distance d) exceeds thr2, else 1 (a block may be left unwritten after a failure). */
    void (*affine)(double *lx, const float *dl, size_t stride, size_t np);
    int (*walk)(size_t np, const double *l, const double *pg, double *g, const double *r,
                double d, double thr2);
} sks_compress_kernels;

#define SKS_CC_SB 16

/* One row per enum sks_isa (dispatch.c); the rows are defined in compress.c, once per target. */
extern const sks_compress_kernels *const sks_compress_variants[SKS_ISA_COUNT];

/* frame position of time t (seconds): clamped to [0, F - 1]; positions within 2^-20 of a frame
 * snap to it (alpha 0). t must not be NaN. */
void sks_cc_position(const sks_cc_view *v, double t, uint32_t *frame, float *alpha);

/* ---- the encoder (compress_search.c) ------------------------------------------------------- */

typedef struct sks_cc_encode_params {
    const sks_compress_kernels *kernels;   /* the active variant's evaluation (any variant gives
                                            * the same bytes) */
    const float *local;         /* F x J x 8, finite */
    const int32_t *parents;     /* validated */
    uint32_t frames, joints;
    double sample_rate, precision, shell;
    uint32_t segment_length;
    /* Estimated single-thread nanoseconds per frame and joint (0: never divided): of the rate
     * search, and of one pass over the clip (ranges, packing, verification). A phase whose
     * estimate exceeds the pool's threshold (pool.h) is divided over the thread pool; the bytes
     * do not depend on it. */
    double ns_search, ns_pass;
} sks_cc_encode_params;

typedef struct sks_cc_encode_result {
    uint8_t *data;              /* malloc'ed blob (free with free()) */
    size_t size;
    double max_error;           /* measured on the final blob by the canonical decoder */
    double best_possible;       /* SKS_CC_UNREACHABLE: the error at the highest rates */
    uint32_t repaired_segments; /* segments whose rates the final verification had to raise */
} sks_cc_encode_result;

int sks_cc_encode(const sks_cc_encode_params *p, sks_cc_encode_result *r);

#endif /* SKS_COMPRESS_H */
