/*
 * check_skinning.c -- the skinning family (src/kernels/skinning.c) of a target against the
 * scalar target, bit for bit: skinning_palette float32 and float64 (skeleton counts 0..9: every
 * remainder of the side-by-side walks; shared or per-skeleton local poses and inverse binds;
 * float64 in place), skin (vertex counts across the 64-vertex index blocks and every tail,
 * 1..12 influences, with and without normals, zero-length normals, repeated indices, in place,
 * indices outside the palette: joint 0 on every target) and normalize_weights, on random inputs
 * and inputs with special values.
 */
#include "check.h"
#include "cpu.h"
#include "skinning.h"

#define JF 12

static void random_joints(float *m, size_t n, float tscale, check_rng *r)
{
    size_t i;
    fill_uniform(m, n * JF, -1.0f, 1.0f, r);
    for (i = 0; i < n; i++) {
        m[JF * i + 3] *= tscale;
        m[JF * i + 7] *= tscale;
        m[JF * i + 11] *= tscale;
    }
}

static int check_palettes(const sks_skinning_kernels *k, const sks_skinning_kernels *ref,
                          const char *name, check_rng *r, int round)
{
    const size_t joints = 1 + rng_below(r, round < 20 ? 10 : 100);
    const size_t n = rng_below(r, 10);
    const size_t l_step = round % 4 != 1, ib_step = round % 4 == 2 || round % 4 == 3;
    const size_t per = joints * JF, cnt = n ? n : 1, total = n * per;
    int32_t *parents = check_alloc(joints * sizeof(int32_t));
    float *local = check_alloc(cnt * per * sizeof(float)), *ib = check_alloc(cnt * per * sizeof(float));
    float *got = check_alloc(cnt * per * sizeof(float)), *want = check_alloc(cnt * per * sizeof(float));
    float *scratch = check_alloc(SKS_PALETTE_SCRATCH_FLOATS(joints) * sizeof(float));
    double *scratch64 = check_alloc(SKS_PALETTE_F64_SCRATCH_DOUBLES(joints) * sizeof(double));
    char what[112];
    int failures = 0;
    random_parents(parents, joints, r);
    random_joints(local, cnt * joints, round % 3 == 1 ? 50.0f : 1.0f, r);
    random_joints(ib, cnt * joints, 1.0f, r);
    if (round % 3 == 2) {
        sprinkle_specials(local, cnt * per, 0.02, r);
        sprinkle_specials(ib, cnt * per, 0.02, r);
    }
    snprintf(what, sizeof what, "skinning_palette J=%zu n=%zu steps %zu %zu", joints, n, l_step, ib_step);
    k->skinning_palette(got, local, l_step, ib, ib_step, parents, n, joints, scratch, n);
    ref->skinning_palette(want, local, l_step, ib, ib_step, parents, n, joints, scratch, n);
    failures += check_same(what, name, got, want, total);
    snprintf(what, sizeof what, "skinning_palette chunk of a large call J=%zu n=%zu", joints, n);
    k->skinning_palette(got, local, l_step, ib, ib_step, parents, n, joints, scratch,
                        (size_t)1 << 30);
    failures += check_same(what, name, got, want, total);

    snprintf(what, sizeof what, "skinning_palette_f64 J=%zu n=%zu steps %zu %zu", joints, n, l_step, ib_step);
    k->skinning_palette_f64(got, local, l_step, ib, ib_step, parents, n, joints, scratch64);
    ref->skinning_palette_f64(want, local, l_step, ib, ib_step, parents, n, joints, scratch64);
    failures += check_same(what, name, got, want, total);

    if (l_step && ib_step) {   /* float64 in place: out = local, then out = inverse_bind */
        float *g2 = check_alloc(cnt * per * sizeof(float)), *w2 = check_alloc(cnt * per * sizeof(float));
        snprintf(what, sizeof what, "skinning_palette_f64 in place J=%zu n=%zu", joints, n);
        memcpy(got, local, total * sizeof(float));
        memcpy(want, local, total * sizeof(float));
        k->skinning_palette_f64(got, got, 1, ib, 1, parents, n, joints, scratch64);
        ref->skinning_palette_f64(want, want, 1, ib, 1, parents, n, joints, scratch64);
        memcpy(g2, ib, total * sizeof(float));
        memcpy(w2, ib, total * sizeof(float));
        k->skinning_palette_f64(g2, local, 1, g2, 1, parents, n, joints, scratch64);
        ref->skinning_palette_f64(w2, local, 1, w2, 1, parents, n, joints, scratch64);
        failures += check_same(what, name, got, want, total) + check_same(what, name, g2, w2, total);
        free(g2); free(w2);
    }
    free(parents); free(local); free(ib); free(got); free(want); free(scratch); free(scratch64);
    return failures;
}

static int check_skin(const sks_skinning_kernels *k, const sks_skinning_kernels *ref,
                      const char *name, check_rng *r, int round)
{
    const size_t vertices = round < 70 ? (size_t)round : rng_below(r, 400);
    const size_t influences = 1 + (size_t)round % SKS_SKIN_MAX_INFLUENCES;
    const size_t joints = 1 + rng_below(r, 60);
    const size_t nv = vertices ? vertices : 1, ni = nv * influences;
    float *palette = check_alloc(joints * JF * sizeof(float));
    float *pos = check_alloc(nv * 3 * sizeof(float)), *nrm = check_alloc(nv * 3 * sizeof(float));
    float *w = check_alloc(ni * sizeof(float));
    int32_t *idx = check_alloc(ni * sizeof(int32_t));
    float *gp = check_alloc(nv * 3 * sizeof(float)), *gn = check_alloc(nv * 3 * sizeof(float));
    float *wp = check_alloc(nv * 3 * sizeof(float)), *wn = check_alloc(nv * 3 * sizeof(float));
    float *scratch = check_alloc(SKS_SKIN_SCRATCH_FLOATS(joints) * sizeof(float));
    char what[112];
    int failures = 0;
    size_t i;
    random_joints(palette, joints, round % 3 == 1 ? 30.0f : 1.0f, r);
    fill_uniform(pos, nv * 3, -2.0f, 2.0f, r);
    fill_uniform(nrm, nv * 3, -1.0f, 1.0f, r);
    fill_uniform(w, ni, 0.0f, 1.0f, r);
    for (i = 0; i < ni; i++) {
        idx[i] = (int32_t)rng_below(r, joints);
        if (i % influences && rng_unit(r) < 0.2) idx[i] = idx[i - i % influences];   /* repeated */
        if (rng_unit(r) < 0.1) w[i] = 0.0f;
    }
    for (i = 0; i < nv; i += 5) nrm[3 * i] = nrm[3 * i + 1] = nrm[3 * i + 2] = 0.0f;
    if (round % 3 == 2) {
        sprinkle_specials(palette, joints * JF, 0.02, r);
        sprinkle_specials(pos, nv * 3, 0.03, r);
        sprinkle_specials(nrm, nv * 3, 0.03, r);
        sprinkle_specials(w, ni, 0.03, r);
    }
    if (round % 7 == 6 && vertices > 0) {   /* indices changed under the kernel: joint 0 */
        idx[rng_below(r, ni)] = -1;
        idx[rng_below(r, ni)] = (int32_t)joints;
        idx[rng_below(r, ni)] = INT32_MIN;
    }

    {   /* largest_index: every prefix length (the vectorised loop's tails) */
        size_t m;
        for (m = 0; m <= (vertices ? ni : 0) && m <= 40; m++) {
            const uint32_t got = k->largest_index(idx, m), want = ref->largest_index(idx, m);
            if (got != want) {
                fprintf(stderr, "%s: largest_index n=%zu (round %d): got %u, want %u\n", name, m,
                        round, (unsigned)got, (unsigned)want);
                failures++;
            }
        }
    }
    snprintf(what, sizeof what, "skin positions V=%zu K=%zu J=%zu", vertices, influences, joints);
    k->skin(gp, NULL, pos, NULL, idx, w, vertices, influences, palette, joints, scratch, 1);
    ref->skin(wp, NULL, pos, NULL, idx, w, vertices, influences, palette, joints, scratch, 1);
    failures += check_same(what, name, gp, wp, vertices * 3);

    snprintf(what, sizeof what, "skin with normals V=%zu K=%zu J=%zu", vertices, influences, joints);
    k->skin(gp, gn, pos, nrm, idx, w, vertices, influences, palette, joints, scratch, 1);
    ref->skin(wp, wn, pos, nrm, idx, w, vertices, influences, palette, joints, scratch, 1);
    failures += check_same(what, name, gp, wp, vertices * 3) + check_same(what, name, gn, wn, vertices * 3);

    snprintf(what, sizeof what, "skin raw normals V=%zu K=%zu J=%zu", vertices, influences, joints);
    k->skin(gp, gn, pos, nrm, idx, w, vertices, influences, palette, joints, scratch, 0);
    ref->skin(wp, wn, pos, nrm, idx, w, vertices, influences, palette, joints, scratch, 0);
    failures += check_same(what, name, gp, wp, vertices * 3) + check_same(what, name, gn, wn, vertices * 3);

    snprintf(what, sizeof what, "skin in place V=%zu K=%zu J=%zu", vertices, influences, joints);
    memcpy(gp, pos, nv * 3 * sizeof(float));
    memcpy(wp, pos, nv * 3 * sizeof(float));
    memcpy(gn, nrm, nv * 3 * sizeof(float));
    memcpy(wn, nrm, nv * 3 * sizeof(float));
    k->skin(gp, gn, gp, gn, idx, w, vertices, influences, palette, joints, scratch, 1);
    ref->skin(wp, wn, wp, wn, idx, w, vertices, influences, palette, joints, scratch, 1);
    failures += check_same(what, name, gp, wp, vertices * 3) + check_same(what, name, gn, wn, vertices * 3);

    snprintf(what, sizeof what, "normalize_weights V=%zu K=%zu", vertices, influences);
    for (i = 0; i < nv; i += 4)
        memset(w + influences * i, 0, influences * sizeof(float));   /* rows summing to zero */
    {
        float *gw = check_alloc(ni * sizeof(float)), *ww = check_alloc(ni * sizeof(float));
        k->normalize_weights(gw, w, vertices, influences);
        ref->normalize_weights(ww, w, vertices, influences);
        failures += check_same(what, name, gw, ww, vertices * influences);
        memcpy(gw, w, ni * sizeof(float));   /* in place */
        memcpy(ww, w, ni * sizeof(float));
        k->normalize_weights(gw, gw, vertices, influences);
        ref->normalize_weights(ww, ww, vertices, influences);
        failures += check_same(what, name, gw, ww, vertices * influences);
        free(gw); free(ww);
    }

    free(palette); free(pos); free(nrm); free(w); free(idx);
    free(gp); free(gn); free(wp); free(wn); free(scratch);
    return failures;
}

int check_skinning(enum sks_isa isa, uint64_t seed)
{
    const sks_skinning_kernels *k = sks_skinning_variants[isa];
    const sks_skinning_kernels *ref = sks_skinning_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 40503u + 29u};
    int failures = 0, round;
    for (round = 0; round < 60; round++) failures += check_palettes(k, ref, name, &r, round);
    for (round = 0; round < 100; round++) failures += check_skin(k, ref, name, &r, round);
    return failures;
}
