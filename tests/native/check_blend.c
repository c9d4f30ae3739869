/*
 * check_blend.c -- the blend family (src/kernels/blend.c) of a target against the scalar target,
 * bit for bit: slerp ("fast" and "exact"), nlerp, blend_joints and blend_layers on every size
 * n = 0..40 (every tail length of every vector width and of the lockstep groups) and larger,
 * broadcast steps, in place, with identical, antipodal, near-parallel, orthogonal, zero, tiny,
 * huge and non-finite quaternions, t inside and outside [0, 1] (0, 1, NaN, inf), index subsets
 * and per-pose t for blend_joints, per-layer and per-joint weights (zeros included) for
 * blend_layers.
 */
#include "check.h"
#include "cpu.h"
#include "blend.h"

/* n quaternion pairs: unit, or (specials) with one of the special relations mixed in. */
static void random_pairs(float *a, float *b, size_t n, check_rng *r, int specials)
{
    size_t i;
    int c;
    for (i = 0; i < n; i++) {
        float *p = a + 4 * i, *q = b + 4 * i;
        random_quat(p, r);
        random_quat(q, r);
        if (!specials) continue;
        switch (rng_below(r, 12)) {
        case 0: memcpy(q, p, 4 * sizeof(float)); break;                  /* identical */
        case 1: for (c = 0; c < 4; c++) q[c] = -p[c]; break;              /* antipodal */
        case 2: {                                                         /* near-parallel */
            const double eps = pow(10.0, -7.0 + 4.0 * rng_unit(r));
            double v[4], n2 = 0.0;
            for (c = 0; c < 4; c++) {
                v[c] = p[c] + eps * (2.0 * rng_unit(r) - 1.0);
                n2 += v[c] * v[c];
            }
            for (c = 0; c < 4; c++) q[c] = (float)(v[c] / sqrt(n2));
            break;
        }
        case 3: {                                                         /* orthogonal */
            const float o[4] = {-p[1], p[0], -p[3], p[2]};
            memcpy(q, o, sizeof o);
            break;
        }
        case 4: memset(p, 0, 4 * sizeof(float)); break;                   /* zero */
        case 5: memset(p, 0, 4 * sizeof(float)); memset(q, 0, 4 * sizeof(float)); break;
        case 6: for (c = 0; c < 4; c++) { p[c] *= 1e-20f; q[c] *= 1e-22f; } break;
        case 7: for (c = 0; c < 4; c++) { p[c] *= 1e20f; q[c] *= 1e19f; } break;
        case 8: sprinkle_specials(p, 4, 0.5, r); break;                   /* NaN, inf, ... */
        case 9: for (c = 0; c < 4; c++) q[c] = -p[c] * (1.0f - 1e-7f); break;
        default: break;
        }
    }
}

/* t values: in [0, 1], or (specials) also 0, 1, outside [0, 1], huge, NaN, inf. */
static void random_ts(float *t, size_t n, check_rng *r, int specials)
{
    static const float odd[] = {0.0f, 1.0f, -0.0f, -0.5f, 1.5f, 3.7f, -2.2f, 1e10f, -1e30f,
                                INFINITY, -INFINITY, NAN, 1e-7f, 0.99999994f};
    size_t i;
    for (i = 0; i < n; i++) {
        t[i] = rng_uniform(r, 0.0f, 1.0f);
        if (specials && rng_below(r, 4) == 0) t[i] = odd[rng_below(r, sizeof odd / sizeof odd[0])];
    }
}

/* QTS joints from quaternions q: translation in [-2, 2], scale in [0.5, 2]. */
static void make_joints(float *x, const float *q, size_t n, check_rng *r, int specials)
{
    size_t i;
    for (i = 0; i < n; i++) {
        memcpy(x + 8 * i, q + 4 * i, 4 * sizeof(float));
        fill_uniform(x + 8 * i + 4, 3, -2.0f, 2.0f, r);
        x[8 * i + 7] = rng_uniform(r, 0.5f, 2.0f);
        if (specials) sprinkle_specials(x + 8 * i + 4, 4, 0.03, r);
    }
}

static int check_interp(const sks_blend_kernels *k, const sks_blend_kernels *ref, const char *name,
                        check_rng *r, size_t n, int specials)
{
    const size_t bytes = 4 * n * sizeof(float) + 64;
    float *a = check_alloc(bytes), *b = check_alloc(bytes), *t = check_alloc(bytes);
    float *got = check_alloc(bytes), *want = check_alloc(bytes);
    char what[96];
    int failures = 0, m, side;
    size_t as, bs, ts;
    random_pairs(a, b, n, r, specials);
    random_ts(t, n, r, specials);
    for (m = 0; m < 3; m++) {
        const sks_interp_fn f = m == 0 ? k->slerp_fast : m == 1 ? k->slerp_exact : k->nlerp;
        const sks_interp_fn g = m == 0 ? ref->slerp_fast : m == 1 ? ref->slerp_exact : ref->nlerp;
        const char *kn = m == 0 ? "slerp_fast" : m == 1 ? "slerp_exact" : "nlerp";
        for (as = 0; as < 2; as++)
            for (bs = 0; bs < 2; bs++)
                for (ts = 0; ts < 2; ts++) {
                    snprintf(what, sizeof what, "%s n=%zu steps %zu %zu %zu specials %d", kn, n, as, bs, ts, specials);
                    f(got, a, as, b, bs, t, ts, n);
                    g(want, a, as, b, bs, t, ts, n);
                    failures += check_same(what, name, got, want, 4 * n);
                }
        for (side = 0; side < 2; side++) {   /* in place: out = q0 (t per pair), out = q1 (one t) */
            snprintf(what, sizeof what, "%s in place (out = q%d) n=%zu", kn, side, n);
            memcpy(got, side ? b : a, 4 * n * sizeof(float));
            memcpy(want, side ? b : a, 4 * n * sizeof(float));
            f(got, side ? a : got, 1, side ? got : b, 1, t, (size_t)!side, n);
            g(want, side ? a : want, 1, side ? want : b, 1, t, (size_t)!side, n);
            failures += check_same(what, name, got, want, 4 * n);
        }
    }
    free(a); free(b); free(t); free(got); free(want);
    return failures;
}

static int check_blend_joints(const sks_blend_kernels *k, const sks_blend_kernels *ref,
                              const char *name, check_rng *r, size_t njoints, int specials)
{
    enum { NPOSE = 4 };
    const size_t floats = 8 * njoints * NPOSE;
    float *qa = check_alloc(4 * njoints * NPOSE * sizeof(float) + 64);
    float *qb = check_alloc(4 * njoints * NPOSE * sizeof(float) + 64);
    float *ja = check_alloc(floats * sizeof(float)), *jb = check_alloc(floats * sizeof(float));
    float *got = check_alloc(floats * sizeof(float)), *want = check_alloc(floats * sizeof(float));
    int32_t *index = check_alloc(njoints * sizeof(int32_t));
    float t[NPOSE];
    char what[120];
    int failures = 0, method, form;
    size_t i, nindex;
    random_pairs(qa, qb, njoints * NPOSE, r, specials);
    make_joints(ja, qa, njoints * NPOSE, r, specials);
    make_joints(jb, qb, njoints * NPOSE, r, specials);
    /* a random subset in random order (distinct joints) */
    for (i = 0; i < njoints; i++) index[i] = (int32_t)i;
    for (i = njoints; i > 1; i--) {
        const size_t j = rng_below(r, i);
        const int32_t tmp = index[i - 1];
        index[i - 1] = index[j];
        index[j] = tmp;
    }
    nindex = 1 + rng_below(r, njoints);
    random_ts(t, NPOSE, r, 0);
    if (specials) {   /* the shortcuts and NaN */
        t[0] = 0.0f;
        t[1] = 1.0f;
        t[2] = NAN;
        t[3] = rng_below(r, 2) ? -0.5f : 1.5f;
    }
    for (method = 0; method < 3; method++) {
        for (form = 0; form < 8; form++) {
            const int use_index = form & 1, t_step = (form >> 1) & 1, bcast = form >> 2;
            const size_t js = bcast ? 0 : 1, npose = NPOSE;
            const int32_t *idx = use_index ? index : NULL;
            snprintf(what, sizeof what, "blend_joints method %d J=%zu index %d (%zu) t_step %d joints_step %zu specials %d",
                     method, njoints, use_index, nindex, t_step, js, specials);
            memset(got, 0xA5, floats * sizeof(float));
            memset(want, 0xA5, floats * sizeof(float));
            k->blend_joints(got, ja, js, jb, 1, t, (size_t)t_step, npose, njoints, idx, nindex, method);
            ref->blend_joints(want, ja, js, jb, 1, t, (size_t)t_step, npose, njoints, idx, nindex, method);
            failures += check_same(what, name, got, want, floats);
        }
        for (form = 0; form < 2; form++) {
            const int32_t *idx = form ? index : NULL;
            snprintf(what, sizeof what, "blend_joints in place method %d J=%zu index %d", method, njoints, form);
            memcpy(got, ja, floats * sizeof(float));
            memcpy(want, ja, floats * sizeof(float));
            k->blend_joints(got, got, 1, jb, 1, t, 1, NPOSE, njoints, idx, nindex, method);
            ref->blend_joints(want, want, 1, jb, 1, t, 1, NPOSE, njoints, idx, nindex, method);
            failures += check_same(what, name, got, want, floats);
        }
        /* one flat run of every joint of all poses (the glue's fast path), blend broadcast */
        snprintf(what, sizeof what, "blend_joints flat method %d J=%zu", method, njoints * NPOSE);
        k->blend_joints(got, ja, 1, jb, 1, t + 2 * !specials, 0, 1, njoints * NPOSE, NULL, 0, method);
        ref->blend_joints(want, ja, 1, jb, 1, t + 2 * !specials, 0, 1, njoints * NPOSE, NULL, 0, method);
        failures += check_same(what, name, got, want, floats);
        snprintf(what, sizeof what, "blend_joints blend broadcast method %d J=%zu", method, njoints);
        k->blend_joints(got, ja, 1, jb, 0, t, 1, NPOSE, njoints, NULL, 0, method);
        ref->blend_joints(want, ja, 1, jb, 0, t, 1, NPOSE, njoints, NULL, 0, method);
        failures += check_same(what, name, got, want, floats);
    }
    free(qa); free(qb); free(ja); free(jb); free(got); free(want); free(index);
    return failures;
}

static int check_blend_layers(const sks_blend_kernels *k, const sks_blend_kernels *ref,
                              const char *name, check_rng *r, size_t njoints, int specials)
{
    enum { NPOSE = 2, MAXL = 4 };
    const size_t nlayers = 1 + rng_below(r, MAXL);
    const size_t n = NPOSE * nlayers * njoints;
    float *qa = check_alloc(4 * n * sizeof(float) + 64), *qb = check_alloc(4 * n * sizeof(float) + 64);
    float *x = check_alloc(8 * n * sizeof(float)), *w = check_alloc(nlayers * njoints * sizeof(float));
    float *got = check_alloc(8 * NPOSE * njoints * sizeof(float));
    float *want = check_alloc(8 * NPOSE * njoints * sizeof(float));
    char what[120];
    int failures = 0, per_joint;
    size_t l, j;
    random_pairs(qa, qb, n, r, specials);
    if (specials) {   /* some layers opposite or equal to the first (cancelling sums) */
        for (j = 0; j < n; j++)
            if (rng_below(r, 3) == 0 && j >= njoints) {
                int c;
                for (c = 0; c < 4; c++) qa[4 * j + c] = -qa[4 * (j - njoints) + c];
            }
    }
    make_joints(x, qa, n, r, specials);
    for (per_joint = 0; per_joint < 2; per_joint++) {
        const size_t cols = per_joint ? njoints : 1;
        for (l = 0; l < nlayers; l++)
            for (j = 0; j < cols; j++) {
                w[l * cols + j] = rng_uniform(r, 0.05f, 1.0f);
                if (specials && l > 0 && rng_below(r, 3) == 0) w[l * cols + j] = 0.0f;
                if (specials && rng_below(r, 5) == 0) w[l * cols + j] = 1.0f;
            }
        snprintf(what, sizeof what, "blend_layers L=%zu J=%zu per_joint %d specials %d", nlayers, njoints,
                 per_joint, specials);
        k->blend_layers(got, x, NPOSE, nlayers, njoints, w, cols, (size_t)per_joint);
        ref->blend_layers(want, x, NPOSE, nlayers, njoints, w, cols, (size_t)per_joint);
        failures += check_same(what, name, got, want, 8 * NPOSE * njoints);
        {   /* with one or two additive layers (one delta pose or one per pose, +-weights,
             * masks): the fused pass, bit for bit the scalar row */
            sks_additive_layer add[2];
            float *dq = check_alloc(4 * NPOSE * njoints * sizeof(float) + 64);
            float *dq2 = check_alloc(4 * NPOSE * njoints * sizeof(float) + 64);
            float *delta = check_alloc(8 * NPOSE * njoints * sizeof(float));
            float *mask = check_alloc(njoints * sizeof(float));
            const size_t nadd = 1 + rng_below(r, 2);
            size_t a;
            random_pairs(dq, dq2, NPOSE * njoints, r, specials);
            make_joints(delta, dq, NPOSE * njoints, r, specials);
            for (j = 0; j < njoints; j++) mask[j] = rng_uniform(r, 0.0f, 1.0f);
            for (a = 0; a < nadd; a++) {
                add[a].delta = delta + a * 8 * njoints * (NPOSE - 1);
                add[a].delta_step = rng_below(r, 2);
                add[a].weight = rng_uniform(r, -1.0f, 1.0f);
                if (specials && rng_below(r, 3) == 0) add[a].weight = rng_below(r, 2) ? -1.0f : 1.0f;
                add[a].mask = rng_below(r, 2) ? mask : NULL;
                if (add[a].delta_step) add[a].delta = delta;
            }
            snprintf(what, sizeof what, "blend_layers_additive L=%zu J=%zu A=%zu per_joint %d specials %d",
                     nlayers, njoints, nadd, per_joint, specials);
            k->blend_layers_additive(got, x, NPOSE, nlayers, njoints, w, cols, (size_t)per_joint, add, nadd);
            ref->blend_layers_additive(want, x, NPOSE, nlayers, njoints, w, cols, (size_t)per_joint, add,
                                       nadd);
            failures += check_same(what, name, got, want, 8 * NPOSE * njoints);
            free(dq); free(dq2); free(delta); free(mask);
        }
    }
    free(qa); free(qb); free(x); free(w); free(got); free(want);
    return failures;
}

int check_blend(enum sks_isa isa, uint64_t seed)
{
    const sks_blend_kernels *k = sks_blend_variants[isa], *ref = sks_blend_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 6364136223846793005ull + 11u};
    int failures = 0;
    size_t round;
    /* sizes 0..80 with and without specials (every tail of 8-lane blocks and of the lockstep
     * groups of up to 8 blocks), then larger random sizes */
    for (round = 0; round < 182; round++) {
        const int specials = (int)(round % 2);
        const size_t size = round < 162 ? round / 2 : 81 + rng_below(&r, 600);
        failures += check_interp(k, ref, name, &r, size, specials);
        failures += check_blend_joints(k, ref, name, &r, 1 + size % 97, specials);
        failures += check_blend_layers(k, ref, name, &r, 1 + size % 41, specials);
    }
    return failures;
}
