/*
 * compress_format.c -- the compressed clip format (see compress.h), compiled once: validation
 * of a blob into the decoder's view, the mapping of times to frame positions, and the float64
 * object-space error (clip_error). The decoder kernels are in compress.c (one source compiled
 * per target), the encoder in compress_search.c.
 *
 * clip_error: the QTS walk in float64 (sks_cc_local_affine, sks_cc_compose) on the raw and the
 * decoded poses, and the three virtual vertices of every joint (sks_cc_error2); the encoder's
 * final verification uses the same functions, so the error it reports is the one clip_error
 * measures on the decompressed clip, to the last bit.
 */
#include "compress.h"

#include <stdio.h>
#include <stdlib.h>

#define INV_LEVELS(r) ((float)(1.0 / (double)((1u << (r)) - 1u)))

const float sks_cc_inv_levels[SKS_CC_MAX_BITS + 1] = {
    0.0f,            INV_LEVELS(1),  INV_LEVELS(2),  INV_LEVELS(3),  INV_LEVELS(4),
    INV_LEVELS(5),   INV_LEVELS(6),  INV_LEVELS(7),  INV_LEVELS(8),  INV_LEVELS(9),
    INV_LEVELS(10),  INV_LEVELS(11), INV_LEVELS(12), INV_LEVELS(13), INV_LEVELS(14),
    INV_LEVELS(15),  INV_LEVELS(16), INV_LEVELS(17), INV_LEVELS(18), INV_LEVELS(19),
    INV_LEVELS(20),  INV_LEVELS(21), INV_LEVELS(22), INV_LEVELS(23), INV_LEVELS(24)};

#define MASK(r) ((1u << (r)) - 1u)
const uint32_t sks_cc_masks[32] = {
    0,         MASK(1),  MASK(2),  MASK(3),  MASK(4),  MASK(5),  MASK(6),  MASK(7),
    MASK(8),   MASK(9),  MASK(10), MASK(11), MASK(12), MASK(13), MASK(14), MASK(15),
    MASK(16),  MASK(17), MASK(18), MASK(19), MASK(20), MASK(21), MASK(22), MASK(23),
    MASK(24),  MASK(25), MASK(26), MASK(27), MASK(28), MASK(29), MASK(30), MASK(31)};

/* ------------------------------------------------------------------------------------------
 * Validation
 * ------------------------------------------------------------------------------------------ */

static int corrupt(char *err, size_t errlen, const char *msg, unsigned long long a,
                   unsigned long long b)
{
    if (err != NULL && errlen > 0) snprintf(err, errlen, msg, a, b);
    return SKS_CC_CORRUPT;
}

static const unsigned track_floats[3][3] = {
    /* kind:      default, constant, animated: constant floats */
    {0, 4, 0}, {0, 3, 0}, {0, 1, 0}};
static const unsigned track_ranges[3] = {4, 3, 1};   /* clip range pairs of an animated track */
static const unsigned track_stored[3] = {3, 3, 1};   /* components per key */

int sks_cc_parse(const uint8_t *data, size_t size, sks_cc_view *v, char *err, size_t errlen)
{
    uint64_t pos, consts = 0, pairs = 0, comps = 0, expected;
    uint32_t F, J, L, G, C, j, g, i;
    double rate;
    memset(v, 0, sizeof *v);
    if (size < SKS_CC_HEADER_BYTES)
        return corrupt(err, errlen, "truncated: %llu bytes, the header alone needs %llu",
                       (unsigned long long)size, SKS_CC_HEADER_BYTES);
    if (sks_cc_u32(data) != SKS_CC_MAGIC)
        return corrupt(err, errlen, "not compressed clip data (magic 0x%08llx, expected 0x%08llx)",
                       sks_cc_u32(data), SKS_CC_MAGIC);
    F = sks_cc_u32(data + 4);
    J = sks_cc_u32(data + 8);
    L = sks_cc_u32(data + 12);
    G = sks_cc_u32(data + 16);
    C = sks_cc_u32(data + 20);
    rate = sks_cc_f64(data + 24);
    if (F < 1) return corrupt(err, errlen, "frame count %llu (expected >= 1)%llu", F, 0);
    if (J < 1 || J > SKS_CC_MAX_JOINTS)
        return corrupt(err, errlen, "joint count %llu (expected 1 to %llu)", J, SKS_CC_MAX_JOINTS);
    if (L < 1 || (L > SKS_CC_MAX_SEGMENT && !(C == 0 && L == F)))
        return corrupt(err, errlen, "segment length %llu (expected 1 to %llu, or the frame count "
                       "without animated components)", L, SKS_CC_MAX_SEGMENT);
    if (G != (F / L > 0 ? F / L : 1))
        return corrupt(err, errlen, "segment count %llu does not match the frames (%llu)", G, F);
    if (!(rate > 0.0) || !isfinite(rate))
        return corrupt(err, errlen, "sample rate is not a positive number%.0llu%.0llu", 0, 0);
    if (!isfinite(1.0 / rate) || !isfinite((double)(F - 1) / rate))   /* 5e-324 Hz */
        return corrupt(err, errlen, "sample rate makes an infinite frame time or duration"
                       "%.0llu%.0llu", 0, 0);
    pos = SKS_CC_HEADER_BYTES;
    if (pos + J > size) return corrupt(err, errlen, "truncated in the track kinds (%llu of %llu bytes)",
                                       (unsigned long long)size, pos + J);
    for (j = 0; j < J; j++) {
        const unsigned b = data[pos + j];
        unsigned k;
        if (b >> 6) return corrupt(err, errlen, "joint %llu: bad track kinds byte 0x%02llx", j, b);
        for (k = 0; k < 3; k++) {
            const unsigned kind = (b >> (2 * k)) & 3u;
            if (kind > SKS_CC_ANIMATED)
                return corrupt(err, errlen, "joint %llu: bad track kinds byte 0x%02llx", j, b);
            consts += track_floats[k][kind];
            if (kind == SKS_CC_ANIMATED) {
                pairs += track_ranges[k];
                comps += track_stored[k];
            }
        }
    }
    if (comps != C)
        return corrupt(err, errlen, "component count %llu does not match the track kinds (%llu)", C,
                       comps);
    pos = (pos + J + 3u) & ~(uint64_t)3u;
    expected = pos + 4 * consts + 8 * pairs + 8 * (uint64_t)G;
    if (expected > size)
        return corrupt(err, errlen, "truncated before the segments (%llu of %llu bytes)",
                       (unsigned long long)size, expected);
    for (i = 0; i < consts; i++) {
        if (!isfinite(sks_cc_f32(data + pos + 4 * i)))
            return corrupt(err, errlen, "constant value %llu is not finite%llu", i, 0);
    }
    for (i = 0; i < pairs; i++) {
        const float m = sks_cc_f32(data + pos + 4 * consts + 8 * i);
        const float e = sks_cc_f32(data + pos + 4 * consts + 8 * i + 4);
        if (!isfinite(m) || !isfinite(e) || !(e >= 0.0f))
            return corrupt(err, errlen, "clip range %llu is not finite and non-negative%llu", i, 0);
    }
    v->table = data + pos + 4 * consts + 8 * pairs;
    for (g = 0; g < G; g++) {
        const uint64_t off = sks_cc_u32(v->table + 8 * g);
        const uint64_t K = sks_cc_u32(v->table + 8 * g + 4);
        const uint64_t first = (uint64_t)g * L;
        const uint64_t n = g + 1 == G ? F - first : L;
        uint64_t sum = 0, c = 0;
        if (off != expected)
            return corrupt(err, errlen, "segment %llu starts at byte %llu", g, off);
        if (K > (uint64_t)SKS_CC_MAX_BITS * C)
            return corrupt(err, errlen, "segment %llu: %llu key bits", g, K);
        if (expected + 3 * (uint64_t)C > size)
            return corrupt(err, errlen, "truncated in segment %llu (%llu bytes)", g,
                           (unsigned long long)size);
        for (j = 0; j < J; j++) {
            const unsigned b = data[SKS_CC_HEADER_BYTES + j];
            unsigned k;
            for (k = 0; k < 3; k++) {
                unsigned m;
                if (((b >> (2 * k)) & 3u) != SKS_CC_ANIMATED) continue;
                for (m = 0; m < track_stored[k]; m++, c++) {
                    const unsigned r = data[off + 3 * c];
                    const unsigned extra = k == 0 && m == 0 ? 0x80u : 0xe0u;
                    if ((r & 31u) > SKS_CC_MAX_BITS || (r & extra))
                        return corrupt(err, errlen, "segment %llu: bad rate byte 0x%02llx", g, r);
                    sum += r & 31u;
                }
            }
        }
        if (sum != K)
            return corrupt(err, errlen, "segment %llu: key bits %llu do not match its rates", g, K);
        expected += 3 * (uint64_t)C + (n * K + 7) / 8;
        if (expected > size)
            return corrupt(err, errlen, "truncated in segment %llu (%llu bytes)", g,
                           (unsigned long long)size);
    }
    if (expected + SKS_CC_TAIL_PAD != size)
        return corrupt(err, errlen, "%llu bytes, expected %llu", (unsigned long long)size,
                       expected + SKS_CC_TAIL_PAD);
    for (i = 0; i < SKS_CC_TAIL_PAD; i++) {
        if (data[expected + i] != 0) return corrupt(err, errlen, "bad padding%llu%llu", 0, 0);
    }
    {
        uint32_t nt[3] = {0, 0, 0};
        size_t k2, n2 = 0;
        for (j = 0; j < J; j++) {
            const unsigned b = data[SKS_CC_HEADER_BYTES + j];
            unsigned k;
            for (k = 0; k < 3; k++) nt[k] += ((b >> (2 * k)) & 3u) == SKS_CC_ANIMATED;
        }
        memcpy(v->tracks, nt, sizeof nt);
        for (k2 = 0; k2 < 3; k2++) n2 += 2 * (size_t)track_ranges[k2] * (nt[k2] + SKS_CC_RANGE_PAD);
        v->joint = (sks_cc_joint *)malloc(sizeof(sks_cc_joint) * J);
        v->pose_template = (float *)malloc(sizeof(float) * 8 * (size_t)J);
        v->ranges = (float *)calloc(n2, sizeof(float));
        if (v->joint == NULL || v->pose_template == NULL || v->ranges == NULL) {
            sks_cc_view_free(v);
            return SKS_CC_NO_MEMORY;
        }
        {
            float *r = v->ranges;
            unsigned m;
            for (m = 0; m < 4; m++, r += 2 * (nt[0] + SKS_CC_RANGE_PAD)) {
                v->rot_min[m] = r;
                v->rot_ext[m] = r + nt[0] + SKS_CC_RANGE_PAD;
            }
            for (m = 0; m < 3; m++, r += 2 * (nt[1] + SKS_CC_RANGE_PAD)) {
                v->trans_min[m] = r;
                v->trans_ext[m] = r + nt[1] + SKS_CC_RANGE_PAD;
            }
            v->scale_min = r;
            v->scale_ext = r + nt[2] + SKS_CC_RANGE_PAD;
        }
    }
    {
        const uint8_t *cst = data + pos, *rg = data + pos + 4 * consts;
        uint32_t c = 0, nt[3] = {0, 0, 0};
        for (j = 0; j < J; j++) {
            const unsigned b = data[SKS_CC_HEADER_BYTES + j];
            unsigned k;
            sks_cc_joint *jt = &v->joint[j];
            jt->comp = c;
            jt->constant = cst;
            jt->range = rg;
            jt->pad = 0;
            memcpy(jt->before, nt, sizeof nt);
            for (k = 0; k < 3; k++) {
                static const unsigned first[3] = {0, 4, 7};
                const unsigned kind = (b >> (2 * k)) & 3u;
                float *o = v->pose_template + 8 * (size_t)j + first[k];
                unsigned m;
                jt->kind[k] = (uint8_t)kind;
                for (m = 0; m < track_stored[k] + (k == 0); m++) o[m] = 0.0f;
                if (k != 1) o[k == 0 ? 3 : 0] = 1.0f;   /* identity rotation, unit scale */
                if (kind == SKS_CC_CONSTANT) {
                    for (m = 0; m < track_floats[k][kind]; m++) o[m] = sks_cc_f32(cst + 4 * m);
                }
                cst += 4 * track_floats[k][kind];
                if (kind == SKS_CC_ANIMATED) {
                    float *const *mins = k == 0 ? (float *const *)v->rot_min
                                         : k == 1 ? (float *const *)v->trans_min
                                                  : (float *const *)&v->scale_min;
                    float *const *exts = k == 0 ? (float *const *)v->rot_ext
                                         : k == 1 ? (float *const *)v->trans_ext
                                                  : (float *const *)&v->scale_ext;
                    for (m = 0; m < track_ranges[k]; m++) {
                        mins[m][nt[k]] = sks_cc_f32(rg + 8 * m);
                        exts[m][nt[k]] = sks_cc_f32(rg + 8 * m + 4);
                    }
                    nt[k]++;
                    rg += 8 * track_ranges[k];
                    c += track_stored[k];
                }
            }
        }
    }
    {
        const size_t nchunks = (J + SKS_CC_CHUNK - 1) / SKS_CC_CHUNK;
        size_t ci;
        v->chunks = (sks_cc_chunk *)calloc(nchunks, sizeof(sks_cc_chunk));
        v->slot_of = (uint16_t *)malloc(sizeof(uint16_t) * ((size_t)C + 1));
        if (v->chunks == NULL || v->slot_of == NULL) {
            sks_cc_view_free(v);
            return SKS_CC_NO_MEMORY;
        }
        for (ci = 0; ci < nchunks; ci++) {
            sks_cc_chunk *ch = &v->chunks[ci];
            const size_t j0 = ci * SKS_CC_CHUNK, j1 = j0 + SKS_CC_CHUNK < J ? j0 + SKS_CC_CHUNK : J;
            uint32_t c = v->joint[j0].comp;
            unsigned k;
            ch->comp0 = c;
            for (k = 0; k < 3; k++) ch->first[k] = v->joint[j0].before[k];
            for (j = (uint32_t)j0; j < j1; j++) {
                for (k = 0; k < 3; k++) {
                    unsigned m;
                    if (v->joint[j].kind[k] != SKS_CC_ANIMATED) continue;
                    for (m = 0; m < track_stored[k]; m++)
                        v->slot_of[c++] = (uint16_t)((3 * k + m) * SKS_CC_CHUNK + ch->count[k]);
                    ch->joint[k][ch->count[k]++] = j;
                }
            }
            ch->comp1 = c;
        }
    }
    v->data = data;
    v->size = size;
    v->frames = F;
    v->joints = J;
    v->segment_length = L;
    v->segments = G;
    v->components = C;
    v->sample_rate = rate;
    return SKS_CC_OK;
}

void sks_cc_view_free(sks_cc_view *v)
{
    free(v->joint);
    free(v->pose_template);
    free(v->ranges);
    free(v->chunks);
    free(v->slot_of);
    v->joint = NULL;
    v->pose_template = NULL;
    v->ranges = NULL;
    v->chunks = NULL;
    v->slot_of = NULL;
}

void sks_cc_position(const sks_cc_view *v, double t, uint32_t *frame, float *alpha)
{
    const double last = (double)(v->frames - 1);
    const double p = t * v->sample_rate;
    double f, a;
    if (!(p > 0.0)) {
        *frame = 0;
        *alpha = 0.0f;
        return;
    }
    if (p >= last) {
        *frame = v->frames - 1;
        *alpha = 0.0f;
        return;
    }
    f = floor(p);
    a = p - f;
    if (a < 0x1p-20) {
        a = 0.0;
    } else if (a > 1.0 - 0x1p-20) {
        f += 1.0;
        a = 0.0;
    }
    *frame = (uint32_t)f;
    *alpha = (float)a;
}

/* ------------------------------------------------------------------------------------------
 * clip_error
 * ------------------------------------------------------------------------------------------ */

void sks_cc_pose_error2(const double *raw, const double *decoded, const int32_t *parents,
                        size_t joints, double shell, double *err2, double *scratch)
{
    double *rg = scratch, *dg = scratch + 12 * joints;
    size_t j;
    for (j = 0; j < joints; j++) {
        double lm[9], lt[3];
        double *rj = rg + 12 * j, *dj = dg + 12 * j;
        const int32_t par = parents[j];
        if (par < 0) {
            sks_cc_local_affine(rj, rj + 9, raw + 8 * j);
            sks_cc_local_affine(dj, dj + 9, decoded + 8 * j);
        } else {
            const double *rp = rg + 12 * (size_t)par, *dp = dg + 12 * (size_t)par;
            sks_cc_local_affine(lm, lt, raw + 8 * j);
            sks_cc_compose(rj, rj + 9, rp, rp + 9, lm, lt);
            sks_cc_local_affine(lm, lt, decoded + 8 * j);
            sks_cc_compose(dj, dj + 9, dp, dp + 9, lm, lt);
        }
        err2[j] = sks_cc_error2(dj, dj + 9, rj, rj + 9, shell);
    }
}

void sks_cc_fold_max_error2(double *max2, const double *later, size_t joints)
{
    size_t j;
    for (j = 0; j < joints; j++) {
        const double e = later[j];
        if (e != e || max2[j] != max2[j]) {
            max2[j] = e != e ? e : max2[j];
        } else if (e > max2[j]) {
            max2[j] = e;
        }
    }
}

void sks_cc_max_error2(const double *raw, const double *decoded, const int32_t *parents,
                       size_t poses, size_t joints, double shell, double *max2, double *scratch)
{
    double *e = scratch + 24 * joints;
    size_t p;
    for (p = 0; p < poses; p++) {
        sks_cc_pose_error2(raw + p * joints * 8, decoded + p * joints * 8, parents, joints, shell,
                           e, scratch);
        sks_cc_fold_max_error2(max2, e, joints);
    }
}

double sks_cc_clip_error(const double *raw, const double *decoded, const int32_t *parents,
                         size_t poses, size_t joints, double shell, double *per_joint,
                         double *scratch)
{
    size_t j;
    for (j = 0; j < joints; j++) per_joint[j] = 0.0;
    sks_cc_max_error2(raw, decoded, parents, poses, joints, shell, per_joint, scratch);
    return sks_cc_finish_clip_error(per_joint, joints);
}

double sks_cc_finish_clip_error(double *per_joint, size_t joints)
{
    double overall = 0.0;
    size_t j;
    int nan = 0;
    for (j = 0; j < joints; j++) {
        per_joint[j] = sqrt(per_joint[j]);
        if (per_joint[j] != per_joint[j]) {
            nan = 1;
        } else if (per_joint[j] > overall) {
            overall = per_joint[j];
        }
    }
    return nan ? NAN : overall;
}
