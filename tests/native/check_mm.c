/*
 * check_mm.c -- the motion-matching search (src/kernels/mm.c) of a target against the scalar
 * target: the same rows and costs, bit for bit, pruned and brute force, on random databases
 * (n = 1..300 and larger, D = 1..40, normal, grid values with many ties, tiny and large
 * magnitudes) with excluded ranges; and the pruned search equal to the brute-force scan.
 */
#include "check.h"
#include "cpu.h"
#include "mm.h"

typedef struct mm_buf {
    float *rows, *slo, *shi, *llo, *lhi;
    sks_mm_db db;
} mm_buf;

/* The layout of mm.h from n row-major rows (what skelsimd/motion_matching.py builds). */
static void build(mm_buf *b, const float *f, size_t n, size_t dim)
{
    const size_t nl = (n + 63) / 64, ng = (nl + 15) / 16;
    size_t i, d, s, l;
    b->rows = malloc(nl * 64 * dim * sizeof(float));
    b->slo = malloc(nl * 4 * dim * sizeof(float));
    b->shi = malloc(nl * 4 * dim * sizeof(float));
    b->llo = malloc(ng * 16 * dim * sizeof(float));
    b->lhi = malloc(ng * 16 * dim * sizeof(float));
    for (i = 0; i < nl * 64; i++)
        for (d = 0; d < dim; d++)
            b->rows[(i / 16 * dim + d) * 16 + i % 16] = i < n ? f[i * dim + d] : NAN;
    for (l = 0; l < ng * 16; l++)
        for (d = 0; d < dim; d++) {
            b->llo[(l / 16 * dim + d) * 16 + l % 16] = INFINITY;
            b->lhi[(l / 16 * dim + d) * 16 + l % 16] = -INFINITY;
        }
    for (s = 0; s < nl * 4; s++) {
        for (d = 0; d < dim; d++) {
            float lo = INFINITY, hi = -INFINITY;
            for (i = s * 16; i < s * 16 + 16 && i < n; i++) {
                if (f[i * dim + d] < lo) lo = f[i * dim + d];
                if (f[i * dim + d] > hi) hi = f[i * dim + d];
            }
            b->slo[(s / 4 * dim + d) * 4 + s % 4] = lo;
            b->shi[(s / 4 * dim + d) * 4 + s % 4] = hi;
            l = s / 4;
            if (lo < b->llo[(l / 16 * dim + d) * 16 + l % 16]) b->llo[(l / 16 * dim + d) * 16 + l % 16] = lo;
            if (hi > b->lhi[(l / 16 * dim + d) * 16 + l % 16]) b->lhi[(l / 16 * dim + d) * 16 + l % 16] = hi;
        }
    }
    b->db.rows = b->rows;
    b->db.small_lo = b->slo;
    b->db.small_hi = b->shi;
    b->db.large_lo = b->llo;
    b->db.large_hi = b->lhi;
    b->db.n = n;
    b->db.dim = dim;
    b->db.nlarge = nl;
}

static void release(mm_buf *b)
{
    free(b->rows);
    free(b->slo);
    free(b->shi);
    free(b->llo);
    free(b->lhi);
}

int check_mm(enum sks_isa isa, uint64_t seed)
{
    static const size_t sizes[] = {1, 2, 15, 16, 17, 63, 64, 65, 130, 300, 1100, 2500};
    const sks_mm_kernels *k = sks_mm_variants[isa], *s = sks_mm_variants[SKS_ISA_SCALAR];
    check_rng r = {seed ^ 0x6d6dull};
    const char *name = sks_isa_name(isa);
    int bad = 0;
    size_t si, trial;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        for (trial = 0; trial < 6 && !bad; trial++) {
            const size_t n = sizes[si], dim = 1 + rng_below(&r, 40), nq = 8;
            const int kind = (int)rng_below(&r, 4);
            const float scale = kind == 2 ? 1e-20f : kind == 3 ? 1e12f : 1.0f;
            float *f = malloc(n * dim * sizeof(float)), *q = malloc(nq * dim * sizeof(float));
            int64_t ranges[2 * nq], offsets[nq + 1], i1[nq], i2[nq], i3[nq];
            double c1[nq], c2[nq], c3[nq];
            mm_buf b;
            size_t i;
            for (i = 0; i < n * dim; i++)
                f[i] = kind == 1 ? 0.5f * (float)((int)rng_below(&r, 5) - 2)
                                 : scale * rng_uniform(&r, -1.0f, 1.0f);
            for (i = 0; i < nq * dim; i++)
                q[i] = kind == 1 ? 0.5f * (float)((int)rng_below(&r, 5) - 2)
                                 : scale * rng_uniform(&r, -1.2f, 1.2f);
            memcpy(q, f + rng_below(&r, n) * dim, dim * sizeof(float));   /* an exact row */
            for (i = 0; i < nq; i++) {
                const int64_t a = (int64_t)rng_below(&r, n);
                ranges[2 * i] = a;
                ranges[2 * i + 1] = a + (int64_t)rng_below(&r, n - (size_t)a + 1);
            }
            for (i = 0; i <= nq; i++) offsets[i] = (int64_t)i;   /* one range per query */
            build(&b, f, n, dim);
            k->search(&b.db, q, nq, ranges, offsets, 1, i1, c1);
            s->search(&b.db, q, nq, ranges, offsets, 1, i2, c2);
            k->search(&b.db, q, nq, ranges, offsets, 0, i3, c3);
            for (i = 0; i < nq; i++) {
                if (i1[i] != i2[i] || i1[i] != i3[i] || memcmp(&c1[i], &c2[i], sizeof(double)) ||
                    memcmp(&c1[i], &c3[i], sizeof(double))) {
                    printf("MISMATCH mm.search [%s] n=%zu D=%zu query %zu: %lld %.17g, scalar %lld "
                           "%.17g, brute force %lld %.17g\n", name, n, dim, i, (long long)i1[i],
                           c1[i], (long long)i2[i], c2[i], (long long)i3[i], c3[i]);
                    bad = 1;
                    break;
                }
            }
            k->search(&b.db, q, nq, NULL, NULL, 1, i1, c1);
            s->search(&b.db, q, nq, NULL, NULL, 0, i2, c2);
            for (i = 0; i < nq && !bad; i++) {
                if (i1[i] != i2[i] || memcmp(&c1[i], &c2[i], sizeof(double))) {
                    printf("MISMATCH mm.search (no ranges) [%s] n=%zu D=%zu\n", name, n, dim);
                    bad = 1;
                }
            }
            release(&b);
            free(f);
            free(q);
        }
    }
    return bad;
}
