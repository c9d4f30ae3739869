/*
 * check_pool.c -- the thread pool (src/kernels/pool.c) from C: a walk, skinning and a rotation
 * conversion of one variant run through sks_pool_run at 1, 2, 3 and 7 threads, at odd sizes,
 * must give exactly the bytes of one plain call of the same variant; so must the spring-grid
 * step divided by bands of rows (surface_bands.c), its whole state buffer, on plane and cylinder
 * grids of both spring models with per-vertex rest and mass, pins and external forces. Also: a call under the
 * threshold is one chunk on the caller, and a plan never cuts inside an 8-unit block.
 */
#include "check.h"
#include "convert.h"
#include "cpu.h"
#include "joints.h"
#include "pool.h"
#include "skinning.h"
#include "surface_bands.h"

typedef struct walk_ctx {
    const sks_joints_kernels *k;
    float *out;
    const float *in;
    const int32_t *parents;
    size_t joints, batch;
} walk_ctx;

static void walk_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const walk_ctx *w = (const walk_ctx *)ctx;
    const size_t skel = w->joints * SKS_JOINT_FLOATS;
    (void)slot;
    w->k->local_to_global(w->out + begin * skel, w->in + begin * skel, w->parents, end - begin,
                          w->joints, 0, w->joints, w->batch);
}

typedef struct skin_ctx {
    const sks_skinning_kernels *k;
    float *out_p, *out_n, *scratch;
    const float *p, *n, *w, *palette;
    const int32_t *idx;
    size_t influences, joints, slot_floats;
} skin_ctx;

static void skin_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const skin_ctx *s = (const skin_ctx *)ctx;
    s->k->skin(s->out_p + 3 * begin, s->out_n + 3 * begin, s->p + 3 * begin, s->n + 3 * begin,
               s->idx + s->influences * begin, s->w + s->influences * begin, end - begin,
               s->influences, s->palette, s->joints, s->scratch + slot * s->slot_floats, 1);
}

typedef struct euler_ctx {
    const sks_convert_kernels *k;
    float *out;
    const float *in;
} euler_ctx;

static void euler_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const euler_ctx *e = (const euler_ctx *)ctx;
    (void)slot;
    e->k->euler_to_quat(e->out + 4 * begin, e->in + 3 * begin, end - begin,
                        SKS_EULER_SEQ(2, 0, 1, 0), 0);
}

static int same_bytes(const char *what, const char *isa, int threads, const float *got,
                      const float *want, size_t n)
{
    if (memcmp(got, want, n * sizeof(float)) == 0) return 0;
    printf("MISMATCH pool %s [%s] at %d threads\n", what, isa, threads);
    return 1;
}

static int check_plans(void)
{
    static const size_t units[] = {9, 100, 1001, 77777, 1000003};
    int bad = 0;
    size_t u;
    sks_pool_set_threads(7);
    {
        const sks_pool_plan small = sks_pool_plan_for(1000, 8, 1.0);   /* 1 us: stays */
        if (small.chunks != 1 || small.slots != 1 || small.chunk_units != 1000) {
            printf("MISMATCH pool: a call under the threshold was divided\n");
            bad++;
        }
    }
    for (u = 0; u < sizeof units / sizeof units[0]; u++) {
        const sks_pool_plan p = sks_pool_plan_for(units[u], 8, 1000.0);
        if (p.chunks > 1 && (p.chunk_units % 8 != 0 || p.slots > 7 || p.slots < 2 ||
                             (p.chunks - 1) * p.chunk_units >= units[u] ||
                             p.chunks * p.chunk_units < units[u])) {
            printf("MISMATCH pool: plan of %zu units: %zu chunks of %zu, %zu slots\n", units[u],
                   p.chunks, p.chunk_units, p.slots);
            bad++;
        }
        if (p.chunks == 1 && (double)units[u] * 1000.0 >= 2 * SKS_POOL_MIN_NS) {
            printf("MISMATCH pool: %zu units of 1 us each were not divided\n", units[u]);
            bad++;
        }
    }
    return bad;
}

/* The state buffer of a rows x cols surface (20 planes of `plane` floats, as in the glue),
 * random around a grid of spacing 0.5, with per-vertex rest and mass, pins and forces. */
enum { S_POS = 0, S_VEL = 3, S_EXT = 6, S_REST = 9, S_INV_MASS = 18, S_PINNED = 19, S_PLANES = 20 };

static sks_surface surface_of(float *base, size_t rows, size_t cols, size_t plane, int wrap,
                              int model)
{
    sks_surface s;
    s.rows = rows;
    s.cols = cols;
    s.plane = plane;
    s.wrap = wrap;
    s.model = model;
    s.pos = base + S_POS * plane;
    s.vel = base + S_VEL * plane;
    s.ext = base + S_EXT * plane;
    s.rest = base + S_REST * plane;
    s.rest_step = 1;
    s.inv_mass = base + S_INV_MASS * plane;
    s.mass_step = 1;
    s.pinned = (const unsigned char *)(base + S_PINNED * plane);
    return s;
}

static void fill_surface(float *base, size_t rows, size_t cols, size_t plane, int model,
                         check_rng *r)
{
    const size_t n = rows * cols;
    unsigned char *pinned = (unsigned char *)(base + S_PINNED * plane);
    size_t i, k;
    fill_uniform(base, S_PLANES * plane, -0.2f, 0.2f, r);
    for (i = 0; i < n; i++) {
        base[S_POS * plane + i] += 0.5f * (float)(i % cols);
        base[(S_POS + 2) * plane + i] += 0.5f * (float)(i / cols);
        base[S_INV_MASS * plane + i] = rng_uniform(r, 0.5f, 2.0f);
        for (k = 0; k < 9; k++)
            base[(S_REST + k) * plane + i] = model == SKS_SURFACE_OFFSET
                                                 ? rng_uniform(r, -0.6f, 0.6f)
                                                 : rng_uniform(r, 0.2f, 0.8f);
    }
    memset(pinned, 0, plane * sizeof(float));
    for (i = 0; i < n; i++) pinned[i] = rng_unit(r) < 0.05;
}

static int check_surface_bands(enum sks_isa isa, check_rng *r)
{
    static const int counts[] = {1, 2, 3, 7};
    static const struct { size_t rows, cols, substeps; int wrap, model; } cases[] = {
        {203, 45, 13, 0, SKS_SURFACE_OFFSET}, {157, 101, 17, 1, SKS_SURFACE_LENGTH},
        {4001, 3, 8, 0, SKS_SURFACE_LENGTH}, {9001, 1, 9, 0, SKS_SURFACE_OFFSET}};
    const sks_surface_kernels *k = sks_surface_variants[isa];
    int bad = 0;
    size_t c, t;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const size_t rows = cases[c].rows, cols = cases[c].cols, plane = rows * cols + 16;
        const size_t floats = S_PLANES * plane + 8;
        float *input = check_alloc(floats * sizeof(float)), *want = check_alloc(floats * sizeof(float));
        float *got = check_alloc(floats * sizeof(float));
        float *scratch = check_alloc(sks_surface_scratch_floats(cols) * sizeof(float));
        sks_surface_params p = {0.9f, 0.99f, 0.01f, {0.0f, -9.81f, 0.0f}, 0, 1};
        sks_surface s;
        p.substeps = cases[c].substeps;
        fill_surface(input, rows, cols, plane, cases[c].model, r);
        memcpy(want, input, floats * sizeof(float));
        s = surface_of(want, rows, cols, plane, cases[c].wrap, cases[c].model);
        k->step(&s, &p, scratch);
        for (t = 0; t < sizeof counts / sizeof counts[0]; t++) {
            sks_pool_plan plan;
            sks_pool_set_threads(counts[t]);
            plan = sks_surface_band_plan(rows, cols, p.substeps, 1.0);
            memcpy(got, input, floats * sizeof(float));
            s = surface_of(got, rows, cols, plane, cases[c].wrap, cases[c].model);
            if (plan.chunks > 1) {
                float *mem = check_alloc(sks_surface_divided_floats(&s, p.substeps, &plan) *
                                         sizeof(float));
                sks_surface_step_divided(k, &s, &p, &plan, mem);
                free(mem);
            } else {
                k->step(&s, &p, scratch);
            }
            bad += same_bytes("surface step", sks_isa_name(isa), counts[t], got, want, floats);
            if (counts[t] > 1 && plan.chunks < 2) {
                printf("MISMATCH pool: surface step %zu x %zu not divided at %d threads\n", rows,
                       cols, counts[t]);
                bad++;
            }
        }
        free(input); free(want); free(got); free(scratch);
    }
    sks_pool_set_threads(1);
    return bad;
}

int check_pool(enum sks_isa isa, uint64_t seed)
{
    static const int counts[] = {1, 2, 3, 7};
    const char *name = sks_isa_name(isa);
    const size_t batch = 1001, joints = 37, vertices = 60001, influences = 3, rotations = 50003;
    const sks_joints_kernels *jk = sks_joints_variants[isa];
    const sks_skinning_kernels *sk = sks_skinning_variants[isa];
    const sks_convert_kernels *ck = sks_convert_variants[isa];
    check_rng r = {seed ^ 0x706f6f6cull};
    float *local = check_alloc(batch * joints * SKS_JOINT_FLOATS * sizeof(float));
    float *want = check_alloc(batch * joints * SKS_JOINT_FLOATS * sizeof(float));
    float *got = check_alloc(batch * joints * SKS_JOINT_FLOATS * sizeof(float));
    int32_t *parents = check_alloc(joints * sizeof(int32_t));
    float *pos = check_alloc(vertices * 3 * sizeof(float)), *nrm = check_alloc(vertices * 3 * sizeof(float));
    float *wp = check_alloc(vertices * 3 * sizeof(float)), *wn = check_alloc(vertices * 3 * sizeof(float));
    float *gp = check_alloc(vertices * 3 * sizeof(float)), *gn = check_alloc(vertices * 3 * sizeof(float));
    float *weights = check_alloc(vertices * influences * sizeof(float));
    int32_t *idx = check_alloc(vertices * influences * sizeof(int32_t));
    float *palette = check_alloc(joints * SKS_JOINT_FLOATS * sizeof(float));
    const size_t slot_floats = SKS_SKIN_SCRATCH_FLOATS(joints) + 16;
    float *scratch = check_alloc(SKS_POOL_MAX_THREADS * slot_floats * sizeof(float));
    float *angles = check_alloc(rotations * 3 * sizeof(float));
    float *qwant = check_alloc(rotations * 4 * sizeof(float)), *qgot = check_alloc(rotations * 4 * sizeof(float));
    int bad = 0;
    size_t i, c;

    fill_uniform(local, batch * joints * SKS_JOINT_FLOATS, -1.0f, 1.0f, &r);
    random_parents(parents, joints, &r);
    fill_uniform(pos, vertices * 3, -1.0f, 1.0f, &r);
    fill_uniform(nrm, vertices * 3, -1.0f, 1.0f, &r);
    fill_uniform(weights, vertices * influences, 0.0f, 1.0f, &r);
    for (i = 0; i < vertices * influences; i++) idx[i] = (int32_t)rng_below(&r, joints);
    fill_uniform(palette, joints * SKS_JOINT_FLOATS, -1.0f, 1.0f, &r);
    fill_uniform(angles, rotations * 3, -3.0f, 3.0f, &r);

    jk->local_to_global(want, local, parents, batch, joints, 0, joints, batch);
    sk->skin(wp, wn, pos, nrm, idx, weights, vertices, influences, palette, joints, scratch, 1);
    ck->euler_to_quat(qwant, angles, rotations, SKS_EULER_SEQ(2, 0, 1, 0), 0);
    for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        walk_ctx w = {jk, got, local, parents, joints, batch};
        skin_ctx s = {sk, gp, gn, scratch, pos, nrm, weights, palette, idx, influences, joints,
                      slot_floats};
        euler_ctx e = {ck, qgot, angles};
        sks_pool_plan p;
        sks_pool_set_threads(counts[c]);
        memset(got, 0xff, batch * joints * SKS_JOINT_FLOATS * sizeof(float));
        p = sks_pool_plan_for(batch, 8, 4.0 * (double)joints);
        sks_pool_run(&p, walk_chunk, &w);
        bad += same_bytes("local_to_global", name, counts[c], got, want,
                          batch * joints * SKS_JOINT_FLOATS);
        p = sks_pool_plan_for(vertices, 8, 1.5 * (double)influences);
        sks_pool_run(&p, skin_chunk, &s);
        bad += same_bytes("skin positions", name, counts[c], gp, wp, vertices * 3);
        bad += same_bytes("skin normals", name, counts[c], gn, wn, vertices * 3);
        p = sks_pool_plan_for(rotations, 8, 5.0);
        sks_pool_run(&p, euler_chunk, &e);
        bad += same_bytes("euler_to_quat", name, counts[c], qgot, qwant, rotations * 4);
        if (counts[c] > 1 && p.chunks < 2) {
            printf("MISMATCH pool: euler_to_quat of %zu rotations not divided at %d threads\n",
                   rotations, counts[c]);
            bad++;
        }
    }
    bad += check_plans();
    bad += check_surface_bands(isa, &r);
    sks_pool_set_threads(1);
    free(local); free(want); free(got); free(parents); free(pos); free(nrm); free(wp); free(wn);
    free(gp); free(gn); free(weights); free(idx); free(palette); free(scratch); free(angles);
    free(qwant); free(qgot);
    return bad;
}
