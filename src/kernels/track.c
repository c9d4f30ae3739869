/*
 * track.c -- track sampling and edge detection (see track.h), written once against the vector
 * vocabulary and compiled per target.
 *
 * Sampling works on blocks of SKS_W sample times. Finding each time's segment is scalar (a
 * remembered segment tried first, then its successor, then a binary search: increasing sample
 * times, the usual case, cost one or two comparisons; the segment found does not depend on the
 * way it was found, so every target finds the same). The keys' times and values are gathered
 * into one vector per quantity, and the fraction and the interpolation are computed SKS_W
 * samples at a time with the vocabulary's IEEE operations in a fixed order (no FMA): every
 * target gives the bits of the scalar one.
 *
 * Edge detection compares SKS_W consecutive segments at a time (their start and end values
 * loaded as two shifted vectors), computes the crossing times of the block in vectors and
 * writes the detected lanes in order.
 */
#include "target.h"
#include "track.h"
#include "quat_ops.h"

#include <math.h>

/* The wrapped, clamped time of one sample and its segment k (see track.h). *hint is the last
 * segment found (a valid segment index). */
static SKS_ALWAYS_INLINE size_t locate_one(const float *kt, size_t nkeys, float t, int loop,
                                           size_t *hint, float *tw)
{
    const size_t last = nkeys - 1;
    size_t k, lo, len;
    if (t != t) {
        *tw = t;
        return 0;
    }
    if (loop) {
        const double period = (double)kt[last] - (double)kt[0];
        double d = fmod((double)t - (double)kt[0], period);   /* exact; NaN for inf t */
        if (d < 0.0) d += period;
        t = (float)((double)kt[0] + d);
        if (t != t) {
            *tw = t;
            return 0;
        }
    }
    if (t <= kt[0]) {
        *tw = kt[0];
        return 0;
    }
    if (t >= kt[last]) {
        *tw = kt[last];
        return last - 1;
    }
    *tw = t;
    k = *hint;
    if (kt[k] <= t && t < kt[k + 1]) return k;
    if (k + 2 <= last && kt[k + 1] <= t && t < kt[k + 2]) {
        *hint = k + 1;
        return k + 1;
    }
    /* kt[0] <= t < kt[last]: the last lo < last with kt[lo] <= t, without branches on the
     * comparisons (random sample times would mispredict about half of them) */
    lo = 0;
    len = last;
    while (len > 1) {
        const size_t half = len / 2;
        lo = kt[lo + half] <= t ? lo + half : lo;
        len -= half;
    }
    *hint = lo;
    return lo;
}

/* One block of n <= SKS_W samples: gathered quantities, lane l = sample l (lanes >= n repeat
 * sample 0, computed and not stored). */
typedef struct sample_block {
    SKS_ALIGNED(32) float tw[SKS_W], ta[SKS_W], tb[SKS_W];
    SKS_ALIGNED(32) float v0[4][SKS_W], v1[4][SKS_W], m0[4][SKS_W], m1[4][SKS_W];
    SKS_ALIGNED(32) float res[4][SKS_W];
} sample_block;

static SKS_ALWAYS_INLINE void gather(sample_block *b, const float *kt, const float *values,
                                     const float *tangents, size_t nkeys, size_t ncomp,
                                     const float *times, size_t n, int loop, int cubic,
                                     size_t *hint)
{
    size_t l, c;
    for (l = 0; l < SKS_W; l++) {
        const float t = times[l < n ? l : 0];
        size_t k0, k1;
        float tw;
        if (nkeys == 1) {
            /* one key: a = 0 on a unit segment (NaN stays NaN) */
            k0 = k1 = 0;
            b->tw[l] = t != t ? t : 0.0f;
            b->ta[l] = 0.0f;
            b->tb[l] = 1.0f;
        } else {
            k0 = locate_one(kt, nkeys, t, loop, hint, &tw);
            k1 = k0 + 1;
            b->tw[l] = tw;
            b->ta[l] = kt[k0];
            b->tb[l] = kt[k1];
        }
        for (c = 0; c < ncomp; c++) {
            b->v0[c][l] = values[k0 * ncomp + c];
            b->v1[c][l] = values[k1 * ncomp + c];
            if (cubic) {
                b->m0[c][l] = tangents[k0 * ncomp + c];
                b->m1[c][l] = tangents[k1 * ncomp + c];
            }
        }
    }
}

static SKS_ALWAYS_INLINE void sample_block_run(float *out, const float *kt, const float *values,
                                               const float *tangents, size_t nkeys, size_t ncomp,
                                               const float *times, size_t n, int interp, int loop,
                                               int normalize, size_t *hint)
{
    sample_block b;
    size_t l, c;
    vf tw, ta, tb, h, a, one, two, three, a2, a3, h00, h01, h10, h11;
    vm nan, end;
    gather(&b, kt, values, tangents, nkeys, ncomp, times, n, loop, interp == SKS_TRACK_CUBIC, hint);
    tw = vf_load(b.tw);
    ta = vf_load(b.ta);
    tb = vf_load(b.tb);
    h = vf_sub(tb, ta);
    a = vf_div(vf_sub(tw, ta), h);
    nan = vf_unordered(a, a);
    end = vf_ge(a, vf_set1(1.0f));
    one = vf_set1(1.0f);
    two = vf_set1(2.0f);
    three = vf_set1(3.0f);
    a2 = vf_mul(a, a);
    a3 = vf_mul(a2, a);
    h00 = vf_add(vf_sub(vf_mul(two, a3), vf_mul(three, a2)), one);
    h01 = vf_sub(vf_mul(three, a2), vf_mul(two, a3));
    h10 = vf_add(vf_sub(a3, vf_mul(two, a2)), a);
    h11 = vf_sub(a3, a2);
    for (c = 0; c < ncomp; c++) {
        const vf v0 = vf_load(b.v0[c]), v1 = vf_load(b.v1[c]);
        vf r;
        if (interp == SKS_TRACK_STEP) {
            r = vf_select(end, v1, v0);
        } else if (interp == SKS_TRACK_LINEAR) {
            r = vf_select(end, v1, vf_add(v0, vf_mul(a, vf_sub(v1, v0))));
        } else {
            const vf m0 = vf_load(b.m0[c]), m1 = vf_load(b.m1[c]);
            r = vf_add(vf_add(vf_mul(h00, v0), vf_mul(h01, v1)),
                       vf_mul(h, vf_add(vf_mul(h10, m0), vf_mul(h11, m1))));
        }
        vf_store(b.res[c], vf_select(nan, a, r));
    }
    if (normalize) {
        const vf x = vf_load(b.res[0]), y = vf_load(b.res[1]), z = vf_load(b.res[2]),
                 w = vf_load(b.res[3]);
        const vf n2 = vf_add(vf_add(vf_mul(x, x), vf_mul(z, z)), vf_add(vf_mul(y, y), vf_mul(w, w)));
        const vm zero = vf_eq(n2, vf_zero());
        const vf inv = vf_div(one, vf_sqrt(vf_select(zero, one, n2)));
        vf_store(b.res[0], vf_ifnot(zero, vf_mul(x, inv)));
        vf_store(b.res[1], vf_ifnot(zero, vf_mul(y, inv)));
        vf_store(b.res[2], vf_ifnot(zero, vf_mul(z, inv)));
        vf_store(b.res[3], vf_select(zero, one, vf_mul(w, inv)));
    }
    for (l = 0; l < n; l++)
        for (c = 0; c < ncomp; c++) out[l * ncomp + c] = b.res[c][l];
}

static SKS_ALWAYS_INLINE void sample_run(float *out, const float *kt, const float *values,
                                         const float *tangents, size_t nkeys, size_t ncomp,
                                         const float *times, size_t ntimes, int interp, int loop,
                                         int normalize)
{
    size_t i, hint = 0;
    for (i = 0; i < ntimes; i += SKS_W) {
        const size_t n = ntimes - i < SKS_W ? ntimes - i : SKS_W;
        sample_block_run(out + i * ncomp, kt, values, tangents, nkeys, ncomp, times + i, n, interp,
                         loop, normalize, &hint);
    }
}

/* The interpolation and the component count as constants (one specialised loop each). */
#define SKS_TRACK_CASE(I, C)                                                                     \
    sample_run(out, kt, values, tangents, nkeys, C, times, ntimes, I, loop, normalize)

static void sample(float *out, const float *kt, const float *values, const float *tangents,
                   size_t nkeys, size_t ncomp, const float *times, size_t ntimes, int interp,
                   int loop, int normalize)
{
    loop = loop && nkeys > 1;
    normalize = normalize && ncomp == 4;
    if (interp != SKS_TRACK_CUBIC) tangents = NULL;
#define SKS_TRACK_COMPS(I)                                                                       \
    switch (ncomp) {                                                                             \
    case 1: SKS_TRACK_CASE(I, 1); break;                                                         \
    case 2: SKS_TRACK_CASE(I, 2); break;                                                         \
    case 3: SKS_TRACK_CASE(I, 3); break;                                                         \
    default: SKS_TRACK_CASE(I, 4); break;                                                        \
    }
    if (interp == SKS_TRACK_STEP) {
        SKS_TRACK_COMPS(SKS_TRACK_STEP)
    } else if (interp == SKS_TRACK_LINEAR) {
        SKS_TRACK_COMPS(SKS_TRACK_LINEAR)
    } else {
        SKS_TRACK_COMPS(SKS_TRACK_CUBIC)
    }
#undef SKS_TRACK_COMPS
}

static SKS_ALWAYS_INLINE void segments_run(float *v0, float *v1, float *alpha, const float *kt,
                                           const float *values, size_t nkeys, size_t ncomp,
                                           const float *times, size_t ntimes, int loop)
{
    size_t i, l, c, hint = 0;
    for (i = 0; i < ntimes; i += SKS_W) {
        const size_t n = ntimes - i < SKS_W ? ntimes - i : SKS_W;
        sample_block b;
        gather(&b, kt, values, NULL, nkeys, ncomp, times + i, n, loop, 0, &hint);
        {
            const vf ta = vf_load(b.ta);
            vf_store(b.res[0], vf_div(vf_sub(vf_load(b.tw), ta), vf_sub(vf_load(b.tb), ta)));
        }
        for (l = 0; l < n; l++) {
            alpha[i + l] = b.res[0][l];
            for (c = 0; c < ncomp; c++) {
                v0[(i + l) * ncomp + c] = b.v0[c][l];
                v1[(i + l) * ncomp + c] = b.v1[c][l];
            }
        }
    }
}

static void segments(float *v0, float *v1, float *alpha, const float *kt, const float *values,
                     size_t nkeys, size_t ncomp, const float *times, size_t ntimes, int loop)
{
    loop = loop && nkeys > 1;
    switch (ncomp) {
    case 1: segments_run(v0, v1, alpha, kt, values, nkeys, 1, times, ntimes, loop); break;
    case 2: segments_run(v0, v1, alpha, kt, values, nkeys, 2, times, ntimes, loop); break;
    case 3: segments_run(v0, v1, alpha, kt, values, nkeys, 3, times, ntimes, loop); break;
    default: segments_run(v0, v1, alpha, kt, values, nkeys, 4, times, ntimes, loop); break;
    }
}

/* Segments i0 .. i0 + SKS_W - 1 (segment i from key i - 1 to key i; n of them valid), their
 * start and end values and times at v0/v1, t0/t1 (pointers to the first segment's). */
static SKS_ALWAYS_INLINE size_t edge_block(float *et, int8_t *dir, const float *t0p,
                                           const float *t1p, const float *v0p, const float *v1p,
                                           size_t n, float threshold, int step)
{
    const vf v0 = vf_load_n(v0p, n), v1 = vf_load_n(v1p, n);
    const vf t0 = vf_load_n(t0p, n), t1 = vf_load_n(t1p, n);
    const vf thr = vf_set1(threshold);
    const vm rising = vm_and(vf_le(v0, thr), vf_gt(v1, thr));
    const vm falling = vm_and(vf_gt(v0, thr), vf_le(v1, thr));
    unsigned bits = vm_bits(vm_and(vm_or(rising, falling), vm_first_n(n)));
    const unsigned up = vm_bits(rising);
    SKS_ALIGNED(32) float times[SKS_W];
    size_t count = 0, l;
    if (!bits) return 0;
    if (step) {
        vf_store(times, t1);
    } else {
        /* the crossing, clamped to the segment; lanes without an edge are not stored */
        const vf alpha = vf_div(vf_sub(thr, v0), vf_sub(v1, v0));
        const vf e = vf_add(t0, vf_mul(vf_sub(t1, t0), alpha));
        vf_store(times, vf_min(vf_max(e, t0), t1));
    }
    for (l = 0; l < SKS_W; l++) {
        if (!(bits >> l & 1u)) continue;
        et[count] = times[l];
        dir[count] = (up >> l & 1u) ? (int8_t)1 : (int8_t)-1;
        count++;
    }
    return count;
}

static size_t edges(float *edge_times, int8_t *direction, const float *kt, const float *values,
                    size_t nkeys, float threshold, int step, int wrap)
{
    size_t count = 0, i;
    if (nkeys == 0) return 0;
    if (wrap && nkeys > 1) {
        /* from the last key to the first: a jump at the first key's time */
        const float v0 = values[nkeys - 1], v1 = values[0];
        if ((v0 <= threshold && v1 > threshold) || (v0 > threshold && v1 <= threshold)) {
            edge_times[count] = kt[0];
            direction[count] = v1 > threshold ? (int8_t)1 : (int8_t)-1;
            count++;
        }
    }
    for (i = 1; i < nkeys; i += SKS_W) {
        const size_t n = nkeys - i < SKS_W ? nkeys - i : SKS_W;
        count += edge_block(edge_times + count, direction + count, kt + i - 1, kt + i,
                            values + i - 1, values + i, n, threshold, step);
    }
    return count;
}

/* Motion blending, SKS_W outputs side by side (structure of arrays in the vocabulary's item
 * order: rotations and translations loaded as quaternion blocks, weights gathered per block). */
static SKS_ALWAYS_INLINE void motion_block(float *out, const float *deltas, const float *weights,
                                           size_t n, size_t nlayers, size_t weight_stride)
{
    const ptrdiff_t step = (ptrdiff_t)(8 * nlayers);
    const vf zero = vf_zero(), one = vf_set1(1.0f);
    vf acc = zero, dl = zero;
    quat_soa dt, dr, res, tr;
    size_t layer, l;
    dt.x = dt.y = dt.z = dt.w = zero;
    dr = dt;
    for (layer = 0; layer < nlayers; layer++) {
        SKS_ALIGNED(32) float wb[SKS_W];
        const float *p = deltas + 8 * layer;
        const quat_soa q = n == SKS_W ? quat_soa_load(p, step) : quat_soa_load_n(p, step, n);
        const quat_soa t = n == SKS_W ? quat_soa_load(p + 4, step) : quat_soa_load_n(p + 4, step, n);
        vf w, len, denom, signed_w;
        for (l = 0; l < SKS_W; l++) wb[l] = l < n ? weights[l * weight_stride + layer] : 0.0f;
        w = vf_load_items(wb);
        w = vf_if(vf_gt(w, zero), w);                       /* <= 0 and NaN: ignored */
        acc = vf_add(acc, w);
        len = vf_sqrt(vf_add(vf_add(vf_mul(t.x, t.x), vf_mul(t.y, t.y)), vf_mul(t.z, t.z)));
        dl = vf_add(dl, vf_mul(len, w));
        denom = vf_ifnot(vf_eq(len, zero), vf_div(w, vf_select(vf_eq(len, zero), one, len)));
        dt.x = vf_add(dt.x, vf_mul(t.x, denom));
        dt.y = vf_add(dt.y, vf_mul(t.y, denom));
        dt.z = vf_add(dt.z, vf_mul(t.z, denom));
        signed_w = vf_select(vf_lt(quat_soa_dot(dr, q), zero), vf_neg(w), w);
        dr.x = vf_add(dr.x, vf_mul(q.x, signed_w));
        dr.y = vf_add(dr.y, vf_mul(q.y, signed_w));
        dr.z = vf_add(dr.z, vf_mul(q.z, signed_w));
        dr.w = vf_add(dr.w, vf_mul(q.w, signed_w));
    }
    {
        const vf ulen = vf_sqrt(vf_add(vf_add(vf_mul(dt.x, dt.x), vf_mul(dt.y, dt.y)),
                                       vf_mul(dt.z, dt.z)));
        const vf den = vf_mul(ulen, acc);
        const vm pos = vf_gt(den, zero);
        const vf norm = vf_if(pos, vf_div(dl, vf_select(pos, den, one)));
        const vf n2 = quat_soa_dot(dr, dr);
        const vm rot = vf_gt(n2, zero);
        const vf inv = vf_div(one, vf_sqrt(vf_select(rot, n2, one)));
        tr.x = vf_mul(dt.x, norm);
        tr.y = vf_mul(dt.y, norm);
        tr.z = vf_mul(dt.z, norm);
        tr.w = one;
        res.x = vf_if(rot, vf_mul(dr.x, inv));
        res.y = vf_if(rot, vf_mul(dr.y, inv));
        res.z = vf_if(rot, vf_mul(dr.z, inv));
        res.w = vf_select(rot, vf_mul(dr.w, inv), one);
    }
    if (n == SKS_W) {
        quat_soa_store(out, 8, res);
        quat_soa_store(out + 4, 8, tr);
    } else {
        quat_soa_store_n(out, 8, res, n);
        quat_soa_store_n(out + 4, 8, tr, n);
    }
}

static void motion_blend(float *out, const float *deltas, const float *weights, size_t nout,
                         size_t nlayers, size_t weight_stride)
{
    size_t i;
    for (i = 0; i < nout; i += SKS_W) {
        const size_t n = nout - i < SKS_W ? nout - i : SKS_W;
        motion_block(out + 8 * i, deltas + 8 * nlayers * i, weights + weight_stride * i, n, nlayers,
                     weight_stride);
    }
}

SKS_ROW(track) = {sample, segments, edges, motion_blend};
