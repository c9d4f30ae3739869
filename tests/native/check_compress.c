/*
 * check_compress.c -- the compressed-clip decoders (src/kernels/compress.c) of a target against
 * the scalar target, bit for bit: clips encoded by the encoder (compress_search.c) from random
 * smooth motion on random hierarchies (1 to 100 joints: one chunk and several; constant, default
 * and animated rotations, translations and scales; 1 to 200 frames, segment lengths 1 to 24),
 * then sample at frame positions (alpha 0, both keys in one segment, keys in two segments, the
 * last frame; in the order given, sorted by frame and pose by pose) and decompress of every
 * frame (all at once and frame by frame). Also checks that the scalar decoder reproduces the
 * error the encoder measured (its verification uses that decoder) and that the bound holds, and
 * that the encoder divided over the thread pool at 2, 3 and 7 threads gives the same bytes.
 */
#include "check.h"
#include "compress.h"
#include "cpu.h"
#include "pool.h"

/* A random smooth clip: per joint a base pose and a few sine waves per channel, some channels
 * constant or default. */
static void random_clip(float *local, size_t frames, size_t joints, check_rng *r)
{
    size_t j, f;
    for (j = 0; j < joints; j++) {
        const int rot_kind = (int)rng_below(r, 4), trans_kind = (int)rng_below(r, 3);
        const int scale_kind = (int)rng_below(r, 5);
        float base[4], axis[3], t0[3];
        const double amp = 0.05 + 1.5 * rng_unit(r), freq = 0.2 + 3.0 * rng_unit(r);
        const double tamp = 10.0 * rng_unit(r), phase = 6.28 * rng_unit(r);
        random_quat(base, r);
        fill_uniform(axis, 3, -1.0f, 1.0f, r);
        fill_uniform(t0, 3, -20.0f, 20.0f, r);
        for (f = 0; f < frames; f++) {
            float *o = local + 8 * (f * joints + j);
            const double t = (double)f / 30.0;
            if (rot_kind == 0) {
                o[0] = o[1] = o[2] = 0.0f;
                o[3] = 1.0f;
            } else if (rot_kind == 1) {
                memcpy(o, base, sizeof base);
            } else {
                /* base * exp(angle axis) */
                const double an = amp * sin(freq * t + phase) + (rot_kind == 3 ? 2.0 * t : 0.0);
                const double n = sqrt((double)axis[0] * axis[0] + (double)axis[1] * axis[1] +
                                      (double)axis[2] * axis[2]) + 1e-9;
                const double s = sin(0.5 * an) / n, c = cos(0.5 * an);
                const double bx = axis[0] * s, by = axis[1] * s, bz = axis[2] * s;
                o[0] = (float)(base[3] * bx + base[0] * c + base[1] * bz - base[2] * by);
                o[1] = (float)(base[3] * by - base[0] * bz + base[1] * c + base[2] * bx);
                o[2] = (float)(base[3] * bz + base[0] * by - base[1] * bx + base[2] * c);
                o[3] = (float)(base[3] * c - base[0] * bx - base[1] * by - base[2] * bz);
            }
            if (trans_kind == 0) {
                o[4] = o[5] = o[6] = 0.0f;
            } else {
                unsigned m;
                for (m = 0; m < 3; m++)
                    o[4 + m] = t0[m] + (trans_kind == 2 ? (float)(tamp * sin(freq * t + m)) : 0.0f);
            }
            o[7] = scale_kind < 3 ? 1.0f
                   : scale_kind == 3 ? 1.5f : (float)(1.0 + 0.2 * sin(freq * t + phase));
        }
    }
}

int check_compress(enum sks_isa isa, uint64_t seed)
{
    const sks_compress_kernels *k = sks_compress_variants[isa];
    const sks_compress_kernels *ref = sks_compress_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 7919u + 11u};
    int failures = 0, round;
    for (round = 0; round < 24; round++) {
        const size_t joints = 1 + rng_below(&r, round < 12 ? 40 : 100);
        const size_t frames = 1 + rng_below(&r, 200);
        const double precision = round % 2 ? 0.01 : 0.001;
        int32_t *parents = check_alloc(joints * sizeof(int32_t));
        float *local = check_alloc(frames * joints * 8 * sizeof(float));
        const size_t poses = frames > 64 ? frames : 64;
        float *got = check_alloc(poses * joints * 8 * sizeof(float));
        float *want = check_alloc(poses * joints * 8 * sizeof(float));
        float *dec1 = check_alloc(poses * joints * 8 * sizeof(float));
        double *raw = check_alloc(frames * joints * 8 * sizeof(double));
        double *dec = check_alloc(frames * joints * 8 * sizeof(double));
        double *per = check_alloc(joints * sizeof(double));
        double *scratch = check_alloc(25 * joints * sizeof(double));
        uint32_t pos_frame[64];
        float pos_alpha[64];
        sks_cc_encode_params p;
        sks_cc_encode_result res;
        sks_cc_view v;
        char what[128];
        size_t i, n;
        double err;
        random_parents(parents, joints, &r);
        random_clip(local, frames, joints, &r);
        p.kernels = k;   /* the target's evaluation: the bytes must not depend on it */
        p.local = local;
        p.parents = parents;
        p.frames = (uint32_t)frames;
        p.joints = (uint32_t)joints;
        p.sample_rate = 30.0;
        p.precision = precision;
        p.shell = 3.0;
        p.segment_length = (uint32_t)(1 + rng_below(&r, 24));
        p.ns_search = p.ns_pass = 0.0;   /* one thread (divided below) */
        if (sks_cc_encode(&p, &res) != SKS_CC_OK || sks_cc_parse(res.data, res.size, &v, what, sizeof what) != SKS_CC_OK) {
            printf("ENCODE FAILED J=%zu F=%zu L=%u\n", joints, frames, p.segment_length);
            failures++;
            continue;
        }
        {   /* the scalar target's evaluation gives the same bytes */
            sks_cc_encode_result res0;
            p.kernels = ref;
            if (sks_cc_encode(&p, &res0) != SKS_CC_OK || res0.size != res.size ||
                memcmp(res0.data, res.data, res.size) != 0) {
                printf("MISMATCH encoded bytes [%s] J=%zu F=%zu L=%u\n", name, joints, frames,
                       p.segment_length);
                failures++;
            }
            free(res0.data);
        }
        {   /* divided over the pool (every phase, whatever its size) at 2, 3 and 7 threads: the
             * same bytes, error and repairs */
            static const int counts[] = {2, 3, 7};
            size_t c;
            p.kernels = k;
            p.ns_search = p.ns_pass = 1e6;
            for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                sks_cc_encode_result rt;
                int st;
                sks_pool_set_threads(counts[c]);
                st = sks_cc_encode(&p, &rt);
                if (st != SKS_CC_OK || rt.size != res.size || memcmp(rt.data, res.data, res.size) ||
                    memcmp(&rt.max_error, &res.max_error, sizeof(double)) ||
                    rt.repaired_segments != res.repaired_segments) {
                    printf("MISMATCH encoded bytes [%s] at %d threads J=%zu F=%zu L=%u\n", name,
                           counts[c], joints, frames, p.segment_length);
                    failures++;
                }
                free(rt.data);
            }
            sks_pool_set_threads(1);
            p.ns_search = p.ns_pass = 0.0;
        }
        snprintf(what, sizeof what, "decompress J=%zu F=%zu L=%u", joints, frames, p.segment_length);
        k->decompress(&v, 0, frames, got);
        ref->decompress(&v, 0, frames, want);
        failures += check_same(what, name, got, want, frames * joints * 8);
        /* a segment's frames together (its headers decoded once) and frame by frame (the
         * encoder's way) give the same bits */
        for (i = 0; i < frames; i++) k->decompress(&v, i, 1, dec1 + i * joints * 8);
        failures += check_same(what, name, dec1, want, frames * joints * 8);
        for (i = 0; i < frames * joints * 8; i++) {
            raw[i] = local[i];
            dec[i] = want[i];
        }
        err = sks_cc_clip_error(raw, dec, parents, frames, joints, 3.0, per, scratch);
        if (!(err == res.max_error && err <= precision)) {
            printf("ERROR MISMATCH %s: clip error %.17g, encoder %.17g, precision %g\n", what, err,
                   res.max_error, precision);
            failures++;
        }
        n = 0;
        for (i = 0; i < 64; i++) {
            pos_frame[n] = (uint32_t)rng_below(&r, frames);
            pos_alpha[n] = pos_frame[n] + 1 < frames && i % 4 != 0 ? (float)rng_unit(&r) : 0.0f;
            n++;
        }
        pos_frame[0] = (uint32_t)(frames - 1);   /* the last frame */
        pos_alpha[0] = 0.0f;
        if (frames > p.segment_length + 1) {     /* keys in two segments */
            pos_frame[1] = p.segment_length - 1;
            pos_alpha[1] = 0.375f;
        }
        snprintf(what, sizeof what, "sample J=%zu F=%zu L=%u", joints, frames, p.segment_length);
        k->sample(&v, pos_frame, pos_alpha, n, got);
        ref->sample(&v, pos_frame, pos_alpha, n, want);
        failures += check_same(what, name, got, want, n * joints * 8);
        for (i = 0; i < n; i++)   /* pose by pose */
            k->sample(&v, pos_frame + i, pos_alpha + i, 1, dec1 + i * joints * 8);
        failures += check_same(what, name, dec1, want, n * joints * 8);
        {   /* in frame order (runs of poses sharing a segment's headers) against pose by pose */
            size_t m2;
            for (i = 1; i < n; i++) {   /* insertion sort by frame */
                const uint32_t f = pos_frame[i];
                const float al = pos_alpha[i];
                for (m2 = i; m2 > 0 && pos_frame[m2 - 1] > f; m2--) {
                    pos_frame[m2] = pos_frame[m2 - 1];
                    pos_alpha[m2] = pos_alpha[m2 - 1];
                }
                pos_frame[m2] = f;
                pos_alpha[m2] = al;
            }
            snprintf(what, sizeof what, "sample sorted J=%zu F=%zu L=%u", joints, frames,
                     p.segment_length);
            k->sample(&v, pos_frame, pos_alpha, n, got);
            for (i = 0; i < n; i++)
                ref->sample(&v, pos_frame + i, pos_alpha + i, 1, want + i * joints * 8);
            failures += check_same(what, name, got, want, n * joints * 8);
        }
        {   /* many poses: blocks of times out of order grouped by segment, sorted stretches,
             * repeated and equal times, the last frame and keys in two segments, across block
             * boundaries; against pose by pose */
            const size_t big = 2500 + rng_below(&r, 3000);
            uint32_t *bf = check_alloc(big * sizeof(uint32_t));
            float *ba = check_alloc(big * sizeof(float));
            float *bgot = check_alloc(big * joints * 8 * sizeof(float));
            float *bwant = check_alloc(big * joints * 8 * sizeof(float));
            for (i = 0; i < big; i++) {
                const uint64_t kind = rng_below(&r, 10);
                if (i > 0 && kind == 0) {          /* the previous time again */
                    bf[i] = bf[i - 1];
                    ba[i] = ba[i - 1];
                    continue;
                }
                bf[i] = (uint32_t)rng_below(&r, frames);
                ba[i] = bf[i] + 1 < frames && kind % 3 != 0 ? (float)rng_unit(&r) : 0.0f;
                if (kind == 1) {                   /* the last frame */
                    bf[i] = (uint32_t)(frames - 1);
                    ba[i] = 0.0f;
                } else if (kind == 2 && frames > p.segment_length + 1) {   /* two segments */
                    bf[i] = p.segment_length - 1;
                    ba[i] = 0.625f;
                } else if ((i / 700) % 3 == 1) {   /* a stretch in frame order */
                    bf[i] = (uint32_t)((i % 700) * frames / 700);
                    ba[i] = 0.0f;
                }
            }
            snprintf(what, sizeof what, "sample many J=%zu F=%zu L=%u n=%zu", joints, frames,
                     p.segment_length, big);
            k->sample(&v, bf, ba, big, bgot);
            for (i = 0; i < big; i++) ref->sample(&v, bf + i, ba + i, 1, bwant + i * joints * 8);
            failures += check_same(what, name, bgot, bwant, big * joints * 8);
            ref->sample(&v, bf, ba, big, bgot);
            failures += check_same(what, "scalar", bgot, bwant, big * joints * 8);
            free(bf);
            free(ba);
            free(bgot);
            free(bwant);
        }
        sks_cc_view_free(&v);
        free(res.data);
        free(parents);
        free(local);
        free(got);
        free(want);
        free(dec1);
        free(raw);
        free(dec);
        free(per);
        free(scratch);
    }
    return failures;
}
