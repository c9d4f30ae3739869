/*
 * mm.c -- the motion-matching search (see mm.h), written once against the vector vocabulary.
 *
 * Costs in float32, one row (or one box) per lane: for every dimension d in order,
 *     acc = acc + (f_d - q_d)^2             (rows; f the row's value)
 *     acc = acc + max(lo_d - q_d, q_d - hi_d, 0)^2     (boxes)
 * so each lane adds its terms in the same order on every target (no horizontal sums, no FMA):
 * the float32 costs are bit-identical across targets, and so is the answer.
 *
 * Exactness. The answer is the float64 argmin (mm.h). A row is evaluated in float64 only when
 * its float32 cost c32 <= T, with T = best64 (1 + (D + 4) 2^-23) + (D + 1) 2^-140 (best64 the
 * least float64 cost so far; +inf before the first): c32 is within (1 + 2^-24)^(D + 2) of the
 * exact cost (each term: two roundings of a positive quantity and the subtraction's; the sum:
 * D - 1 roundings of positive terms) plus D 2^-149 where squares underflow, and the float64
 * cost within (1 + 2^-53)^(D + 1) of it, so no row whose float64 cost is <= best64 is ever
 * skipped. A box is skipped when its float32 distance > T: for every row in the box each term
 * is >= the box's term (rounding is monotonic and |f - q| >= the distance to the interval), and
 * both sums add in the same order from +0, so the box's float32 distance is <= the float32 cost
 * of each of its rows: a box holding a row with float32 cost <= T is never skipped. Rows are
 * visited in increasing order and replace the best only when strictly cheaper, so the least
 * index wins ties. Queries and features are bounded (|x| <= 1e15, checked by the callers) so
 * no float32 cost overflows.
 */
#include "target.h"
#include "mm.h"

#include <math.h>

#define BLOCK 16   /* rows per small box and per block of the row layout */
#define SMALL 4    /* small boxes per large box */
#define GROUP 16   /* large boxes per group of the large-box layout */
#define VPB (BLOCK / SKS_W)   /* vectors per 16 lanes */

/* The float32 distances of 16 boxes (bounds lo, hi: [D][16]). */
static SKS_ALWAYS_INLINE void costs16(const float *p, const float *hi, const float *q, size_t dim,
                                      int boxes, float *out)
{
    vf acc[VPB];
    size_t d;
    int k;
    for (k = 0; k < VPB; k++) acc[k] = vf_zero();
    for (d = 0; d < dim; d++) {
        const vf qd = vf_set1(q[d]);
        for (k = 0; k < VPB; k++) {
            vf t;
            if (boxes) {
                const vf a = vf_sub(vf_load(p + d * BLOCK + k * SKS_W), qd);
                const vf b = vf_sub(qd, vf_load(hi + d * BLOCK + k * SKS_W));
                t = vf_max(vf_max(a, b), vf_zero());
            } else {
                t = vf_sub(vf_load(p + d * BLOCK + k * SKS_W), qd);
            }
            acc[k] = vf_add(acc[k], vf_mul(t, t));
        }
    }
    for (k = 0; k < VPB; k++) vf_store(out + k * SKS_W, acc[k]);
}

/* The float32 distances of the 4 small boxes of one large box ([D][4] bounds). */
static SKS_ALWAYS_INLINE void costs4(const float *lo, const float *hi, const float *q, size_t dim,
                                     float *out)
{
    vf acc = vf_zero();
    size_t d;
    for (d = 0; d < dim; d++) {
        const vf qd = vf_set1(q[d]);
        const vf a = vf_sub(vf_load_n(lo + d * SMALL, SMALL), qd);
        const vf b = vf_sub(qd, vf_load_n(hi + d * SMALL, SMALL));
        const vf t = vf_max(vf_max(a, b), vf_zero());
        acc = vf_add(acc, vf_mul(t, t));
    }
    vf_store(out, acc);
}

typedef struct search_state {
    const float *q;
    size_t dim;
    const int64_t *ranges;
    size_t nranges;
    double best, k;
    int64_t index;
    float tf;   /* the float32 threshold: the least float >= T */
} search_state;

static void set_threshold(search_state *s)
{
    const double t = s->best * s->k + (double)(s->dim + 1) * 0x1p-140;
    float tf = (float)t;
    if ((double)tf < t) tf = nextafterf(tf, INFINITY);
    s->tf = tf;
}

static int excluded(const search_state *s, int64_t row)
{
    size_t i;
    for (i = 0; i < s->nranges; i++)
        if (row >= s->ranges[2 * i] && row < s->ranges[2 * i + 1]) return 1;
    return 0;
}

/* The float32 costs of the 16 rows of a block (rows at p, [D][16]), as a bit mask of the
 * rows whose cost is <= tf (bit i = row i of the block). */
static SKS_ALWAYS_INLINE unsigned rows_within(const float *p, const float *q, size_t dim, float tf)
{
    vf acc[VPB];
    size_t d;
    int k;
    unsigned bits = 0;
    for (k = 0; k < VPB; k++) acc[k] = vf_zero();
    for (d = 0; d < dim; d++) {
        const vf qd = vf_set1(q[d]);
        for (k = 0; k < VPB; k++) {
            const vf t = vf_sub(vf_load(p + d * BLOCK + k * SKS_W), qd);
            acc[k] = vf_add(acc[k], vf_mul(t, t));
        }
    }
    for (k = 0; k < VPB; k++)
        bits |= (unsigned)vm_bits(vf_le(acc[k], vf_set1(tf))) << (k * SKS_W);
    return bits;
}

/* Block b (rows at p): its float32 costs, then the float64 cost of every row within T. */
static SKS_ALWAYS_INLINE void visit_block(search_state *s, const float *p, size_t b, size_t n)
{
    unsigned bits = rows_within(p, s->q, s->dim, s->tf);
    int lane;
    for (lane = 0; bits && lane < BLOCK; lane++, bits >>= 1) {
        const int64_t row = (int64_t)(b * BLOCK) + lane;
        double sum = 0.0;
        size_t d;
        if (!(bits & 1u) || (size_t)row >= n) continue;
        if (s->nranges && excluded(s, row)) continue;
        for (d = 0; d < s->dim; d++) {
            const double t = (double)s->q[d] - (double)p[d * BLOCK + lane];
            sum += t * t;
        }
        if (sum < s->best) {
            s->best = sum;
            s->index = row;
            set_threshold(s);
        }
    }
}

static void search_one(const sks_mm_db *db, const float *q, const int64_t *ranges,
                       size_t nranges, int prune, int64_t *index, double *cost)
{
    const size_t dim = db->dim, nlarge = db->nlarge, block_floats = dim * BLOCK;
    search_state s;
    SKS_ALIGNED(64) float ld[GROUP], sd[SKS_W > SMALL ? SKS_W : SMALL];
    size_t g, l, b;
    s.q = q;
    s.dim = dim;
    s.ranges = ranges;
    s.nranges = nranges;
    s.best = INFINITY;
    s.k = 1.0 + (double)(dim + 4) * 0x1p-23;
    s.index = -1;
    s.tf = INFINITY;
    if (!prune) {
        for (b = 0; b < SMALL * nlarge; b++) visit_block(&s, db->rows + b * block_floats, b, db->n);
    } else {
        for (g = 0; g * GROUP < nlarge; g++) {
            costs16(db->large_lo + g * block_floats, db->large_hi + g * block_floats, q, dim, 1,
                    ld);
            for (l = g * GROUP; l < nlarge && l < (g + 1) * GROUP; l++) {
                int k;
                if (!(ld[l - g * GROUP] <= s.tf)) continue;
                costs4(db->small_lo + l * dim * SMALL, db->small_hi + l * dim * SMALL, q, dim, sd);
                for (k = 0; k < SMALL; k++) {
                    b = l * SMALL + (size_t)k;
                    if (!(sd[k] <= s.tf)) continue;
                    visit_block(&s, db->rows + b * block_floats, b, db->n);
                }
            }
        }
    }
    *index = s.index;
    *cost = s.best;
}

static void search(const sks_mm_db *db, const float *queries, size_t nq, const int64_t *ranges,
                   const int64_t *offsets, int prune, int64_t *index, double *cost)
{
    size_t k;
    for (k = 0; k < nq; k++) {
        const int64_t *r = offsets ? ranges + 2 * offsets[k] : NULL;
        const size_t nr = offsets ? (size_t)(offsets[k + 1] - offsets[k]) : 0;
        search_one(db, queries + k * db->dim, r, nr, prune, index + k, cost + k);
    }
}

SKS_ROW(mm) = {search};
