/*
 * check_surface.c -- the spring-grid surface family (src/kernels/surface.c) of a target against
 * the scalar target: step (offset and length models, plane and cylinder, per-vertex and uniform
 * rest and mass, pins, external forces, 0..17 substeps: every wavefront depth), normals and
 * effectors, on widths 1..40 and 92..108 (every tail length of every vector width), with the
 * state buffer moved by 0..7 floats (rows start at every offset against the 16- and 32-byte
 * grids), on random inputs and inputs with special values (NaN, inf, zeros, denormals, huge).
 *
 * Bit for bit: every float of the state buffer and of the normals (the whole buffers, so a write
 * outside the grid is caught too, and checked against the input there), and the effectors' ext.
 * The effector reactions are float64 sums in each target's own order (vnsum in vec.h): they are
 * checked against the bound |got - scalar| <= 2 n 2^-53 sum |F| (NaN and inf alike).
 */
#include "check.h"
#include "cpu.h"
#include "surface.h"

enum { P_POS = 0, P_VEL = 3, P_EXT = 6, P_REST = 9, P_INV_MASS = 18, P_PINNED = 19, PLANES = 20 };

/* A grid and its state buffer: PLANES planes of `plane` floats, 8 readable floats after the
 * last one (the kernels read past the position and rest planes), at `shift` floats into `mem`
 * (a 64-byte aligned allocation with 16 guard floats on either side). */
typedef struct grid {
    size_t rows, cols, n, plane, shift;
    int wrap, model;
    size_t rest_step, mass_step;
    float *mem;   /* floats: 16 + shift + PLANES * plane + 8 + 16 */
} grid;

static float *grid_base(const grid *g) { return g->mem + 16 + g->shift; }

static size_t grid_floats(const grid *g) { return 16 + g->shift + PLANES * g->plane + 8 + 16; }

static float *aligned_alloc_floats(size_t n)
{
    char *raw = check_alloc(n * sizeof(float) + 64 + sizeof(void *));
    uintptr_t a = ((uintptr_t)raw + sizeof(void *) + 63) & ~(uintptr_t)63;
    ((void **)a)[-1] = raw;
    return (float *)a;
}

static void aligned_free(float *p) { free(((void **)p)[-1]); }

static sks_surface grid_surface(const grid *g, float *base)
{
    sks_surface s;
    s.rows = g->rows;
    s.cols = g->cols;
    s.plane = g->plane;
    s.wrap = g->wrap;
    s.model = g->model;
    s.pos = base + P_POS * g->plane;
    s.vel = base + P_VEL * g->plane;
    s.ext = base + P_EXT * g->plane;
    s.pinned = (const unsigned char *)(base + P_PINNED * g->plane);
    s.rest = base + P_REST * g->plane;
    s.rest_step = g->rest_step;
    s.inv_mass = base + P_INV_MASS * g->plane;
    s.mass_step = g->mass_step;
    return s;
}

/* A perturbed grid (spacing 0.5 in x and z), random velocities, external forces, rest values
 * (per vertex or uniform: the first 8 floats of each plane), masses and pins (flags 1, 2 or 255
 * so that any nonzero byte pins), special values sprinkled in when `specials`. */
static void fill_state(const grid *g, check_rng *r, int specials)
{
    float *mem = g->mem, *base = grid_base(g);
    const size_t n = g->n, plane = g->plane;
    unsigned char *pinned = (unsigned char *)(base + P_PINNED * plane);
    size_t i, k;
    for (i = 0; i < grid_floats(g); i++) mem[i] = rng_uniform(r, -9.0f, 9.0f);   /* padding */
    for (i = 0; i < n; i++) {
        base[P_POS * plane + i] = 0.5f * (float)(i % g->cols) + rng_uniform(r, -0.05f, 0.05f);
        base[(P_POS + 1) * plane + i] = rng_uniform(r, -0.05f, 0.05f);
        base[(P_POS + 2) * plane + i] = 0.5f * (float)(i / g->cols) + rng_uniform(r, -0.05f, 0.05f);
        for (k = 0; k < 3; k++) {
            base[(P_VEL + k) * plane + i] = rng_uniform(r, -0.2f, 0.2f);
            base[(P_EXT + k) * plane + i] = rng_uniform(r, -0.2f, 0.2f);
        }
    }
    for (k = 0; k < 9; k++) {
        const float u = g->model == SKS_SURFACE_OFFSET ? rng_uniform(r, -0.6f, 0.6f)
                                                       : rng_uniform(r, 0.2f, 0.8f);
        for (i = 0; i < (g->rest_step ? n : 8); i++)
            base[(P_REST + k) * plane + i] =
                g->rest_step ? (g->model == SKS_SURFACE_OFFSET ? rng_uniform(r, -0.6f, 0.6f)
                                                                : rng_uniform(r, 0.2f, 0.8f))
                             : u;
    }
    {
        const float m = rng_uniform(r, 0.5f, 2.0f);
        for (i = 0; i < (g->mass_step ? n : 8); i++)
            base[P_INV_MASS * plane + i] = g->mass_step ? rng_uniform(r, 0.5f, 2.0f) : m;
    }
    memset(pinned, 0, plane * sizeof(float));
    for (i = 0; i < n; i++) {
        static const unsigned char flags[3] = {1, 2, 255};
        if (rng_unit(r) < 0.2) pinned[i] = flags[rng_below(r, 3)];
    }
    if (specials) {
        for (k = 0; k < 9; k++) sprinkle_specials(base + k * plane, n, 0.02, r);
        if (g->rest_step)
            for (k = 0; k < 9; k++) sprinkle_specials(base + (P_REST + k) * plane, n, 0.01, r);
        if (g->mass_step) sprinkle_specials(base + P_INV_MASS * plane, n, 0.01, r);
    }
}

/* 1 when a float of `got` outside the planes in [first, first + count) (n floats each)
 * differs from `input` (the kernel wrote outside the grid). */
static int wrote_outside(const char *what, const char *isa, const grid *g, const float *got,
                         const float *input, size_t first, size_t count)
{
    size_t i;
    for (i = 0; i < grid_floats(g); i++) {
        const ptrdiff_t off = (ptrdiff_t)i - 16 - (ptrdiff_t)g->shift;
        const size_t k = off >= 0 ? (size_t)off / g->plane : 0;
        const int inside = off >= 0 && k >= first && k < first + count &&
                           (size_t)off - k * g->plane < g->n;
        if (!inside && memcmp(got + i, input + i, sizeof(float)) != 0) {
            printf("MISMATCH %s [%s]: wrote float %td of the buffer, outside the grid\n", what,
                   isa, off);
            return 1;
        }
    }
    return 0;
}

/* Scratch for one call, filled with a pattern: the results must not depend on it. */
static float *scratch_for(size_t cols, float fill)
{
    const size_t n = sks_surface_scratch_floats(cols);
    float *s = check_alloc(n * sizeof(float));
    size_t i;
    for (i = 0; i < n; i++) s[i] = fill;
    return s;
}

/* The reference bound of an effector reaction: sum |F| over the vertices in range, F computed
 * as the kernels do (float32). */
static void effector_abs_sums(const float *pos, size_t plane, size_t n, const float *c,
                              float radius, float strength, double sums[3])
{
    size_t i;
    sums[0] = sums[1] = sums[2] = 0.0;
    for (i = 0; i < n; i++) {
        const float dx = c[0] - pos[i], dy = c[1] - pos[i + plane], dz = c[2] - pos[i + 2 * plane];
        const float dist = sqrtf((dx * dx + dy * dy) + dz * dz);
        float k;
        if (!(dist < radius && dist > 0.0f)) continue;
        k = strength / dist;
        sums[0] += fabs((double)(dx * k));
        sums[1] += fabs((double)(dy * k));
        sums[2] += fabs((double)(dz * k));
    }
}

static int check_reactions(const char *what, const char *isa, const double *got,
                           const double *want, const double *abs_sums, size_t n, size_t count)
{
    size_t i;
    for (i = 0; i < 3 * count; i++) {
        const double g = got[i], w = want[i];
        int ok;
        if (w != w) ok = g != g;
        else if (isinf(w)) ok = g == w;
        else ok = fabs(g - w) <= 2.0 * (double)(n + 1) * 0x1p-53 * abs_sums[i];
        if (!ok) {
            printf("MISMATCH %s [%s] reaction %zu: %.17g, scalar %.17g (bound %.3g)\n", what, isa,
                   i, g, w, 2.0 * (double)(n + 1) * 0x1p-53 * abs_sums[i]);
            return 1;
        }
    }
    return 0;
}

static int check_case(const sks_surface_kernels *k, const sks_surface_kernels *ref,
                      const char *name, const grid *g0, check_rng *r, int specials)
{
    grid g = *g0;
    const size_t floats = grid_floats(&g), n = g.n;
    float *input = aligned_alloc_floats(floats), *got = aligned_alloc_floats(floats);
    float *want = aligned_alloc_floats(floats);
    float *scratch_got = scratch_for(g.cols, NAN), *scratch_want = scratch_for(g.cols, 1e30f);
    char what[160];
    int failures = 0;
    g.mem = input;
    fill_state(&g, r, specials);
    snprintf(what, sizeof what, "%zux%zu %s %s rest_step=%zu mass_step=%zu shift=%zu%s", g.rows,
             g.cols, g.model ? "length" : "offset", g.wrap ? "cylinder" : "plane", g.rest_step,
             g.mass_step, g.shift, specials ? " specials" : "");

    {   /* step */
        sks_surface_params p;
        const size_t substeps = rng_below(r, 18);
        char sw[200];
        grid gg = g, gw = g;
        sks_surface sg, sw_;
        p.elasticity = rng_unit(r) < 0.1 ? 0.0f : rng_uniform(r, 0.05f, 0.4f);
        p.damping = rng_unit(r) < 0.3 ? 1.0f : rng_uniform(r, 0.9f, 1.0f);
        p.dt = rng_uniform(r, 0.05f, 0.3f);
        p.gravity[0] = rng_uniform(r, -0.1f, 0.1f);
        p.gravity[1] = -0.1f;
        p.gravity[2] = rng_uniform(r, -0.1f, 0.1f);
        p.substeps = substeps;
        p.has_ext = rng_unit(r) < 0.7;
        memcpy(got, input, floats * sizeof(float));
        memcpy(want, input, floats * sizeof(float));
        gg.mem = got;
        gw.mem = want;
        sg = grid_surface(&gg, grid_base(&gg));
        sw_ = grid_surface(&gw, grid_base(&gw));
        k->step(&sg, &p, scratch_got);
        ref->step(&sw_, &p, scratch_want);
        snprintf(sw, sizeof sw, "step %s substeps=%zu has_ext=%d", what, substeps, p.has_ext);
        failures += check_same(sw, name, got, want, floats);
        failures += wrote_outside(sw, name, &g, got, input, P_POS, 9);
    }

    {   /* normals of the input and of the stepped state */
        const size_t out_floats = 3 * n + 32;
        float *out_got = check_alloc(out_floats * sizeof(float));
        float *out_want = check_alloc(out_floats * sizeof(float));
        const float *states[2];
        int s;
        states[0] = input;
        states[1] = want;
        for (s = 0; s < 2; s++) {
            grid gs = g;
            char sw[200];
            size_t i;
            gs.mem = (float *)states[s];
            for (i = 0; i < out_floats; i++) out_got[i] = out_want[i] = -3.5f;
            k->normals(out_got + 16, n, grid_base(&gs) + P_POS * g.plane, g.plane, g.rows, g.cols,
                       g.wrap, scratch_got);
            ref->normals(out_want + 16, n, grid_base(&gs) + P_POS * g.plane, g.plane, g.rows,
                         g.cols, g.wrap, scratch_want);
            snprintf(sw, sizeof sw, "normals %s%s", what, s ? " (stepped)" : "");
            failures += check_same(sw, name, out_got, out_want, out_floats);
            for (i = 0; i < 16; i++)
                if (out_got[i] != -3.5f || out_got[16 + 3 * n + i] != -3.5f) {
                    printf("MISMATCH %s [%s]: wrote outside the output\n", sw, name);
                    failures++;
                    break;
                }
        }
        free(out_got);
        free(out_want);
    }

    {   /* effectors */
        const size_t count = rng_below(r, 6);
        float centers[15], radius[5], strength[5];
        double react_got[15], react_want[15], abs_sums[15];
        char sw[200];
        size_t e;
        for (e = 0; e < count; e++) {
            centers[3 * e] = rng_uniform(r, -1.0f, 0.5f * (float)g.cols + 1.0f);
            centers[3 * e + 1] = rng_uniform(r, -0.5f, 0.5f);
            centers[3 * e + 2] = rng_uniform(r, -1.0f, 0.5f * (float)g.rows + 1.0f);
            radius[e] = rng_uniform(r, 0.3f, 3.0f);
            strength[e] = rng_uniform(r, -1.0f, 1.0f);
        }
        if (specials) {
            sprinkle_specials(centers, 3 * count, 0.1, r);
            sprinkle_specials(radius, count, 0.1, r);
            sprinkle_specials(strength, count, 0.1, r);
        }
        memcpy(got, input, floats * sizeof(float));
        memcpy(want, input, floats * sizeof(float));
        {
            float *bg = got + 16 + g.shift, *bw = want + 16 + g.shift;
            const float *pos = input + 16 + g.shift + P_POS * g.plane;
            k->effectors(bg + P_EXT * g.plane, react_got, bg + P_POS * g.plane, g.plane, n,
                         centers, radius, strength, count);
            ref->effectors(bw + P_EXT * g.plane, react_want, bw + P_POS * g.plane, g.plane, n,
                           centers, radius, strength, count);
            for (e = 0; e < count; e++)
                effector_abs_sums(pos, g.plane, n, centers + 3 * e, radius[e], strength[e],
                                  abs_sums + 3 * e);
        }
        snprintf(sw, sizeof sw, "effectors %s count=%zu", what, count);
        failures += check_same(sw, name, got, want, floats);
        failures += wrote_outside(sw, name, &g, got, input, P_EXT, 3);
        failures += check_reactions(sw, name, react_got, react_want, abs_sums, n, count);
    }

    free(scratch_got);
    free(scratch_want);
    aligned_free(input);
    aligned_free(got);
    aligned_free(want);
    return failures != 0;
}

int check_surface(enum sks_isa isa, uint64_t seed)
{
    const sks_surface_kernels *k = sks_surface_variants[isa], *ref = sks_surface_variants[SKS_ISA_SCALAR];
    const char *name = sks_isa_name(isa);
    check_rng r = {seed * 2654435761u + 11u};
    int failures = 0;
    size_t cols, variant;
    for (cols = 1; cols <= 108; cols++) {
        if (cols > 40 && cols < 92) continue;
        for (variant = 0; variant < 8; variant++) {
            grid g;
            g.cols = cols;
            g.rows = cols <= 40 ? 1 + rng_below(&r, 6) : 1 + rng_below(&r, 4);
            g.n = g.rows * g.cols;
            g.plane = (g.n > 16 ? g.n : 16) + rng_below(&r, 9);
            g.shift = (cols + variant) % 8;
            g.model = (int)(variant & 1);
            g.wrap = cols >= 3 && ((variant >> 1) & 1);
            g.rest_step = rng_unit(&r) < 0.75;
            g.mass_step = rng_unit(&r) < 0.75;
            g.mem = NULL;
            failures += check_case(k, ref, name, &g, &r, variant >= 6);
        }
    }
    return failures;
}
