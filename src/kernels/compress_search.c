/*
 * compress_search.c -- the encoder of the compressed clip format (compress.h): track kinds,
 * range reduction per clip and per segment, the variable bit rate search per component per
 * segment, packing, and the final verification of the whole clip by the canonical decoder.
 *
 * Search (per segment; segments are independent because every raw frame is a key):
 *   - the object-space error of the raw clip is cached per segment (raw globals, float64), and
 *     so are the decoded locals and globals of the current rates; a trial that changes the rates
 *     of one track re-decodes that track, then walks only the track's subtree (every other joint
 *     keeps its cached global) and stops at the first joint and frame over the threshold;
 *   - a "level" of a track gives its largest-extent component `level` bits and each other
 *     component the fewest bits whose step is no coarser (equal steps across the components of a
 *     track minimise the bits for a given rotation or translation error);
 *   - phase 1: every non-root track at one level, the lowest that holds (bisection; roots at 24
 *     bits), as ACL does; phase 2: each track alone, leaves first, lowered level by level while
 *     the error holds; phase 3: each component alone, lowered bit by bit.
 * Every trial evaluates exactly what the decoder will output (the canonical float32 decode of
 * compress.h) with the canonical float64 error; the threshold is precision * (1 - 2^-20). The
 * packed clip is then decoded by the scalar decoder and measured frame by frame with the same
 * error; a segment over the threshold (none is expected) gets one more bit on every component
 * until it holds. The encoder runs the same code whatever the active variant: its bytes are the
 * same on every variant.
 *
 * Division over the thread pool (pool.h), when the caller's cost estimates (the parameters'
 * ns_search and ns_pass) put a phase above the pool's threshold; the bytes, max_error and
 * repaired_segments are those of one thread at every thread count:
 *   - the search is divided over segments. The unit is the segment, not the track: within a
 *     segment the tracks are searched in turn on one shared state (each trial walks on the
 *     globals that the tracks accepted before it left, phase 2 and 3 go leaves first), so the
 *     tracks of a segment are not independent; across segments nothing is shared once the clip
 *     ranges and drop indices are set (every raw frame is a key: a segment's keys, range codes
 *     and rates depend on its own frames only). Each thread searches with its own workspace (slot
 *     0 the encoder's, the others copies made for the threads the plan uses) and writes only its
 *     segments' rows of bits, code and code0; a segment whose highest rates fail is marked in its
 *     own byte and its chunk stops (the encoder then sets every segment to 24 bits and measures
 *     what they reach, as on one thread, where the first failure stops the loop);
 *   - the preparation over frames (normalised rotations) and joints (track kinds); the
 *     near-constant candidates over tracks, and each of their rounds over segments in windows
 *     (near_constants: a segment's check depends on the candidates dropped before it, so a
 *     window's segments are taken in order up to the first that drops one, the rest checked
 *     again); the clip ranges over tracks (each range belongs to one track and sees its
 *     values segment by segment in the same order), the packing over segments (each writes its
 *     own bytes at offsets computed first, in order), the verification over segments (each
 *     segment's largest squared error into its own slot);
 *   - every reduction is made after the join, in segment order: the largest error, which
 *     segments fail and need repair (and their count), whether the precision is unreachable.
 * A failure never crosses a chunk: chunks do not allocate (workspaces and scratch come first; a
 * thread whose workspace cannot be allocated is left out, fewer threads giving the same bytes).
 */
#include "compress.h"

#include "pool.h"

#include <stdlib.h>


/* Frames per structure-of-arrays block of the evaluation state: quantity q of frame f of a joint
 * is at (f / SB) * 12 * SB + q * SB + f % SB (constant strides, so the loops vectorise). */
#define SB SKS_CC_SB
#define SOA(q, f) (((f) / SB) * 12 * SB + (size_t)(q) * SB + (f) % SB)

#define NLEVELS 24   /* levels 0, 2, 3, ..., 24 bits (1 bit is never better than 0 in range) */

static unsigned level_bits(unsigned level) { return level == 0 ? 0 : level + 1; }

typedef struct track {
    uint32_t joint;
    uint8_t type;       /* 0 rotation, 1 translation, 2 scale */
    uint8_t ncomp;      /* stored components per key */
    uint8_t root;
    uint32_t comp;      /* first stored component */
    uint32_t range;     /* first clip range pair */
} track;

/* The per-segment workspace of the search (n <= nmax frames): one per thread that searches. */
typedef struct workspace {
    float *vals;            /* C x nmax: stored component values (padded frames repeat the last) */
    uint16_t *rcode;        /* C: min8 | ext8 << 8 */
    double *ext;            /* C: decoded extent of each component */
    float *decl;            /* (J + 1) x 8 x nmax: decoded locals (memory behind dlp, tl) */
    float **dlp;            /* J: joint j's decoded locals of the current rates, QTS lane k of
                             * frame f at k * nmax + f */
    double *rg;             /* J x 12 nmax: raw globals (SOA blocks) */
    double *blocks;         /* (3 J + 1) x 12 nmax: memory behind lxp, gcp, gtp, tlx */
    double **lxp, **gcp, **gtp;  /* J each: local maps, current and trial globals per joint
                                  * (a trial that holds swaps pointers instead of copying) */
    float *tl;              /* 8 x nmax */
    double *tlx;            /* 12 nmax (SOA blocks) */
    uint8_t *dirty;         /* J */
    uint8_t *level;         /* T: each track's level */
    uint8_t *done;          /* C: a track (phase 2) or component (phase 3) that cannot go lower */
    double *reach;          /* J: shell distance plus the farthest descendant, in the segment */
    double *offset;         /* T: log2 of a track's extent times its lever arm */
} workspace;

typedef struct encoder {
    const sks_cc_encode_params *p;
    uint32_t F, J, L, G, C, T, pairs, consts;
    double thr2;
    uint8_t *kind;          /* J x 3 */
    float *cval;            /* J x 8: the values of constant tracks (QTS slots) */
    float *qn;              /* F x J x 4: the input rotations normalised (float32) */
    track *tracks;          /* T */
    uint32_t *track_of;     /* J x 3: track index or UINT32_MAX */
    float *cmin, *cext;     /* pairs */
    uint8_t *drop;          /* G x T */
    uint8_t *bits;          /* G x C */
    uint16_t *code;         /* G x C: range code for the chosen rate */
    uint16_t *code0;        /* G x C: the 16-bit constant code (rate 0) */
    uint32_t *last;         /* J: largest index in the subtree */
    /* per-segment workspace (n <= 2L - 1 frames): the encoder's own, or a slot's (see
     * "Division over the thread pool") */
    uint32_t nmax;
    workspace w;
} encoder;

/* The plan of a phase over `units` independent units (segments or tracks) of `ns` estimated
 * nanoseconds each, or one chunk on the caller when the parameters give no cost. Units are not
 * SIMD blocks here: chunks of any whole number of them (grain 1). */
static sks_pool_plan phase_plan(size_t units, double ns)
{
    return sks_pool_plan_for(units, 1, ns > 0.0 ? ns : 0.0);
}

/* ------------------------------------------------------------------------------------------
 * Preparation
 * ------------------------------------------------------------------------------------------ */

static void normalize_input(float o[4], const float *q)
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    const double n2 = ((x * x + y * y) + z * z) + w * w;
    if (!(n2 > 0.0)) {
        o[0] = o[1] = o[2] = 0.0f;
        o[3] = 1.0f;
        return;
    }
    {
        const double inv = 1.0 / sqrt(n2);
        o[0] = (float)(x * inv);
        o[1] = (float)(y * inv);
        o[2] = (float)(z * inv);
        o[3] = (float)(w * inv);
    }
}

/* Track kinds of joints [j0, j1): default when every frame is the identity / zero / one, constant when every frame
 * equals the first (rotations up to sign), animated otherwise. */
static void classify(encoder *e, size_t j0, size_t j1)
{
    const float *x = e->p->local;
    const size_t J = e->J, F = e->F;
    size_t j, f;
    for (j = j0; j < j1; j++) {
        const float *q0 = e->qn + 4 * j, *l0 = x + 8 * j;
        int rdef = 1, rcon = 1, tdef = 1, tcon = 1, sdef = 1, scon = 1;
        for (f = 0; f < F; f++) {
            const float *q = e->qn + 4 * (f * J + j), *l = x + 8 * (f * J + j);
            if (!(q[0] == 0.0f && q[1] == 0.0f && q[2] == 0.0f && (q[3] == 1.0f || q[3] == -1.0f)))
                rdef = 0;
            if (!((q[0] == q0[0] && q[1] == q0[1] && q[2] == q0[2] && q[3] == q0[3]) ||
                  (q[0] == -q0[0] && q[1] == -q0[1] && q[2] == -q0[2] && q[3] == -q0[3])))
                rcon = 0;
            if (!(l[4] == 0.0f && l[5] == 0.0f && l[6] == 0.0f)) tdef = 0;
            if (!(l[4] == l0[4] && l[5] == l0[5] && l[6] == l0[6])) tcon = 0;
            if (l[7] != 1.0f) sdef = 0;
            if (l[7] != l0[7]) scon = 0;
        }
        memcpy(e->cval + 8 * j, q0, 4 * sizeof(float));
        memcpy(e->cval + 8 * j + 4, l0 + 4, 4 * sizeof(float));
        e->kind[3 * j] = (uint8_t)(rdef ? SKS_CC_DEFAULT : rcon ? SKS_CC_CONSTANT : SKS_CC_ANIMATED);
        e->kind[3 * j + 1] = (uint8_t)(tdef ? SKS_CC_DEFAULT : tcon ? SKS_CC_CONSTANT : SKS_CC_ANIMATED);
        e->kind[3 * j + 2] = (uint8_t)(sdef ? SKS_CC_DEFAULT : scon ? SKS_CC_CONSTANT : SKS_CC_ANIMATED);
    }
}

static uint32_t segment_first(const encoder *e, uint32_t g) { return g * e->L; }

static uint32_t segment_frames(const encoder *e, uint32_t g)
{
    return g + 1 == e->G ? e->F - g * e->L : e->L;
}

/* The value of stored component m of track t at frame f (segment g): rotations sign-adjusted
 * so the dropped component is >= 0. */
static float stored_value(const encoder *e, const track *t, uint32_t g, size_t f, unsigned m)
{
    if (t->type == 0) {
        const float *q = e->qn + 4 * (f * e->J + t->joint);
        const unsigned drop = e->drop[(size_t)g * e->T + (size_t)(t - e->tracks)];
        const unsigned qc = m + (m >= drop);
        return q[drop] < 0.0f ? -q[qc] : q[qc];
    }
    if (t->type == 1) return e->p->local[8 * (f * e->J + t->joint) + 4 + m];
    return e->p->local[8 * (f * e->J + t->joint) + 7];
}

/* The quaternion component of stored component m of a rotation with drop index d. */
static unsigned rotation_component(unsigned m, unsigned drop) { return m + (m >= drop); }

/* Clip ranges, in three steps: clip_ranges_start empties them, track_ranges chooses the drop
 * index of each segment of rotations [t0, t1) and widens their ranges over the stored values
 * (each track's ranges are its own: tracks may be divided between threads, and each range sees
 * its values in the same order, segment by segment, whatever the division), and
 * clip_ranges_finish turns every (min, max) into (min, extent). */
static void clip_ranges_start(encoder *e)
{
    uint32_t i;
    for (i = 0; i < e->pairs; i++) {
        e->cmin[i] = INFINITY;
        e->cext[i] = -INFINITY;
    }
}

static void track_ranges(encoder *e, uint32_t t0, uint32_t t1)
{
    uint32_t g, t;
    float *lo = e->cmin, *hi = e->cext;
    for (g = 0; g < e->G; g++) {
        const size_t f0 = segment_first(e, g), n = segment_frames(e, g);
        for (t = t0; t < t1; t++) {
            const track *tr = &e->tracks[t];
            size_t f;
            unsigned m;
            if (tr->type == 0) {
                /* the component farthest from zero over the segment (w on ties) */
                static const unsigned order[4] = {3, 0, 1, 2};
                float best = -1.0f;
                unsigned k, drop = 3;
                for (k = 0; k < 4; k++) {
                    const unsigned c = order[k];
                    float mn = INFINITY;
                    for (f = f0; f < f0 + n; f++) {
                        const float a = fabsf(e->qn[4 * (f * e->J + tr->joint) + c]);
                        mn = a < mn ? a : mn;
                    }
                    if (mn > best) {
                        best = mn;
                        drop = c;
                    }
                }
                e->drop[(size_t)g * e->T + t] = (uint8_t)drop;
            }
            for (m = 0; m < tr->ncomp; m++) {
                const unsigned pc = tr->type == 0
                                        ? rotation_component(m, e->drop[(size_t)g * e->T + t])
                                        : m;
                float *mn = lo + tr->range + pc, *mx = hi + tr->range + pc;
                for (f = f0; f < f0 + n; f++) {
                    const float v = stored_value(e, tr, g, f, m);
                    *mn = v < *mn ? v : *mn;
                    *mx = v > *mx ? v : *mx;
                }
            }
        }
    }
}

static void clip_ranges_finish(encoder *e)
{
    uint32_t i;
    float *lo = e->cmin, *hi = e->cext;
    for (i = 0; i < e->pairs; i++) {
        if (!(lo[i] <= hi[i])) {   /* a rotation component dropped in every segment */
            lo[i] = 0.0f;
            hi[i] = 0.0f;
            continue;
        }
        {
            const float mn = lo[i], mx = hi[i];
            float ext = (float)((double)mx - (double)mn);
            while (mn + ext < mx) ext = nextafterf(ext, INFINITY);
            e->cmin[i] = mn;
            e->cext[i] = ext;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Per-segment ranges and quantisation
 * ------------------------------------------------------------------------------------------ */

static uint32_t range_of(const track *t, unsigned m, unsigned drop)
{
    return t->range + (t->type == 0 ? rotation_component(m, drop) : m);
}

/* Segment range codes of every stored component: rcode (min8 | ext8 << 8), code0 (the 16-bit
 * constant nearest the middle of the segment's values) and the decoded extent. */
static void segment_ranges(encoder *e, uint32_t g, size_t n)
{
    uint32_t t;
    for (t = 0; t < e->T; t++) {
        const track *tr = &e->tracks[t];
        const unsigned drop = e->drop[(size_t)g * e->T + t];
        unsigned m;
        for (m = 0; m < tr->ncomp; m++) {
            const size_t c = tr->comp + m;
            const uint32_t r = range_of(tr, m, drop);
            const float cm = e->cmin[r], ce = e->cext[r];
            const float *v = e->w.vals + c * e->nmax;
            float smin = v[0], smax = v[0], lo, sc;
            unsigned min8, ext8, best_code;
            double best = INFINITY;
            long code;
            size_t f;
            int k;
            for (f = 1; f < n; f++) {
                smin = v[f] < smin ? v[f] : smin;
                smax = v[f] > smax ? v[f] : smax;
            }
            if (!(ce > 0.0f)) {
                e->w.rcode[c] = 0;
                e->code0[(size_t)g * e->C + c] = 0;
                e->w.ext[c] = 0.0;
                continue;
            }
            {
                double u = floor(((double)smin - cm) / ce * 255.0);
                min8 = u < 0 ? 0u : u > 255 ? 255u : (unsigned)u;
            }
            for (;;) {
                sks_cc_component(cm, ce, 1, min8, &lo, &sc);
                if (lo <= smin || min8 == 0) break;
                min8--;
            }
            {
                double u = ceil(((double)smax - lo) / ce * 255.0);
                ext8 = u < 0 ? 0u : u > 255 ? 255u : (unsigned)u;
            }
            for (;;) {
                sks_cc_component(cm, ce, 1, min8 | (ext8 << 8), &lo, &sc);
                if (lo + sc >= smax || ext8 == 255) break;
                ext8++;
            }
            e->w.rcode[c] = (uint16_t)(min8 | (ext8 << 8));
            e->w.ext[c] = (double)ce * ext8 / 255.0;
            code = lround((0.5 * ((double)smin + smax) - cm) / ce * 65535.0);
            code = code < 0 ? 0 : code > 65535 ? 65535 : code;
            best_code = (unsigned)code;
            for (k = -1; k <= 1; k++) {
                const long cc = code + k;
                double err;
                if (cc < 0 || cc > 65535) continue;
                sks_cc_component(cm, ce, 0, (uint32_t)cc, &lo, &sc);
                err = fmax(fabs((double)lo - smin), fabs((double)lo - smax));
                if (err < best) {
                    best = err;
                    best_code = (unsigned)cc;
                }
            }
            e->code0[(size_t)g * e->C + c] = (uint16_t)best_code;
        }
    }
}

/* The r-bit integer whose decoded value lo + sc * q (float32) is nearest x; inv = 1 / sc. */
static inline uint32_t quantize(float x, float lo, float sc, double inv, unsigned r)
{
    uint32_t top, q, best_q;
    float best;
    double u;
    if (r == 0 || !(sc > 0.0f)) return 0;
    top = (1u << r) - 1u;
    u = ((double)x - (double)lo) * inv;
    q = u <= 0.0 ? 0u : u >= (double)top ? top : (uint32_t)(u + 0.5);
    best_q = q;
    best = fabsf((lo + sc * (float)q) - x);
    if (q > 0) {
        const float d = fabsf((lo + sc * (float)(q - 1u)) - x);
        if (d < best) {
            best = d;
            best_q = q - 1u;
        }
    }
    if (q < top) {
        const float d = fabsf((lo + sc * (float)(q + 1u)) - x);
        if (d < best) best_q = q + 1u;
    }
    return best_q;
}

static inline void component_code(const encoder *e, uint32_t g, size_t c, unsigned r,
                                  uint32_t *code)
{
    *code = r == 0 ? e->code0[(size_t)g * e->C + c] : e->w.rcode[c];
}

/* The decoded values v[0..n) of one component at rate r (quantize's choice of integer, then
 * lo + sc * q in float32), written branch-free so that it vectorises across frames: the same
 * decisions as quantize() (round half up, clamped; then the nearer of the neighbours, ties
 * keeping the first), which the packer uses. */
static void decode_component(const float *SKS_RESTRICT x, float *SKS_RESTRICT v, size_t n,
                             float lo, float sc, double inv, unsigned r)
{
    size_t f;
    if (r == 0 || !(sc > 0.0f)) {
        for (f = 0; f < n; f++) v[f] = lo + sc * 0.0f;
        return;
    }
    {
        const double top = (double)((1u << r) - 1u);
        const float topf = (float)top;
        for (f = 0; f < n; f++) {   /* the rounded integer, clamped (float: exact below 2^24) */
            const double u = ((double)x[f] - (double)lo) * inv;
            const double uc = u <= 0.0 ? 0.0 : u >= top ? top : u;
            v[f] = (float)(int32_t)(uc + 0.5);
        }
        for (f = 0; f < n; f++) {   /* then the nearer neighbour */
            const float q = v[f];
            const float v0 = lo + sc * q, vm = lo + sc * (q - 1.0f), vp = lo + sc * (q + 1.0f);
            const float d0 = fabsf(v0 - x[f]), dm = fabsf(vm - x[f]), dp = fabsf(vp - x[f]);
            const int take_m = (q > 0.0f) & (dm < d0);
            const float b1 = take_m ? vm : v0, bd = take_m ? dm : d0;
            v[f] = ((q < topf) & (dp < bd)) ? vp : b1;
        }
    }
}

/* Decoded values of track t at rates r[] into the rows of dl (QTS lanes by frame, stride
 * nmax; the track's rows only), frames [0, n). */
static void decode_track(const encoder *e, uint32_t g, size_t n, const track *t,
                         const uint8_t *r, float *dl)
{
    const size_t s = e->nmax;
    const unsigned drop = t->type == 0 ? e->drop[(size_t)g * e->T + (size_t)(t - e->tracks)] : 0;
    unsigned m;
    size_t f;
    if (t->type != 0) {
        float *rows = dl + (t->type == 1 ? 4 : 7) * s;
        for (m = 0; m < t->ncomp; m++) {
            const uint32_t rr = range_of(t, m, drop);
            uint32_t code;
            float lo, sc;
            component_code(e, g, t->comp + m, r[m], &code);
            sks_cc_component(e->cmin[rr], e->cext[rr], r[m], code, &lo, &sc);
            decode_component(e->w.vals + (t->comp + m) * s, rows + m * s, n, lo, sc,
                             sc > 0.0f ? 1.0 / (double)sc : 0.0, r[m]);
        }
        return;
    }
    {
        /* the stored components into the rows they hold, the dropped one rebuilt (sks_cc_rebuild),
         * then normalised (sks_cc_normalize) */
        float *q[4];
        float *SKS_RESTRICT q0, *SKS_RESTRICT q1, *SKS_RESTRICT q2, *SKS_RESTRICT q3;
        const float *SKS_RESTRICT a, *SKS_RESTRICT b, *SKS_RESTRICT c;
        float *SKS_RESTRICT md;
        for (m = 0; m < 4; m++) q[m] = dl + m * s;
        for (m = 0; m < 3; m++) {
            const uint32_t rr = range_of(t, m, drop);
            uint32_t code;
            float lo, sc;
            component_code(e, g, t->comp + m, r[m], &code);
            sks_cc_component(e->cmin[rr], e->cext[rr], r[m], code, &lo, &sc);
            decode_component(e->w.vals + (t->comp + m) * s, q[rotation_component(m, drop)], n, lo,
                             sc, sc > 0.0f ? 1.0 / (double)sc : 0.0, r[m]);
        }
        a = q[rotation_component(0, drop)];
        b = q[rotation_component(1, drop)];
        c = q[rotation_component(2, drop)];
        md = q[drop];
        for (f = 0; f < n; f++) {
            const float sum = (a[f] * a[f] + b[f] * b[f]) + c[f] * c[f];
            const float d = 1.0f - sum;
            md[f] = sqrtf(d > 0.0f ? d : 0.0f);
        }
        q0 = q[0];
        q1 = q[1];
        q2 = q[2];
        q3 = q[3];
        for (f = 0; f < n; f++) {
            const float n2 = ((q0[f] * q0[f] + q1[f] * q1[f]) + q2[f] * q2[f]) + q3[f] * q3[f];
            const float inv = 1.0f / sqrtf(n2);
            q0[f] *= inv;
            q1[f] *= inv;
            q2[f] *= inv;
            q3[f] *= inv;
        }
    }
}

/* Rates of track t at a level: the largest-extent component gets level_bits(level), the others
 * the fewest bits whose step is no coarser. */
static void level_rates(const encoder *e, const track *t, unsigned level, uint8_t *r)
{
    const unsigned b = level_bits(level);
    double emax = 0.0, step;
    unsigned m;
    for (m = 0; m < t->ncomp; m++) emax = e->w.ext[t->comp + m] > emax ? e->w.ext[t->comp + m] : emax;
    if (b == 0 || emax == 0.0) {
        for (m = 0; m < t->ncomp; m++) r[m] = 0;
        return;
    }
    step = emax / (double)((1u << b) - 1u) * (1.0 + 1e-12);
    for (m = 0; m < t->ncomp; m++) {
        const double x = e->w.ext[t->comp + m];
        unsigned k;
        if (x <= step) {
            r[m] = 0;
            continue;
        }
        for (k = 2; k < SKS_CC_MAX_BITS && x > step * (double)((1u << k) - 1u); k++) {
        }
        r[m] = (uint8_t)k;
    }
}

/* ------------------------------------------------------------------------------------------
 * Evaluation
 * ------------------------------------------------------------------------------------------ */

/* The affine map of a QTS joint into frame f of a joint's structure-of-arrays block. */
static inline void affine_of(double *blk, size_t f, const float *qts)
{
    double x[8], m[12];
    int i;
    for (i = 0; i < 8; i++) x[i] = qts[i];
    sks_cc_local_affine(m, m + 9, x);
    for (i = 0; i < 12; i++) blk[SOA(i, f)] = m[i];
}

/* Decoded locals (constants, defaults and animated tracks at `rates` of the segment) of every
 * joint, their affine maps and globals; returns 0 as soon as a joint exceeds the threshold (the
 * state is then incomplete). */
static int full_eval(encoder *e, uint32_t g, size_t n, const uint8_t *rates)
{
    const size_t J = e->J, f0 = segment_first(e, g), nreal = segment_frames(e, g);
    size_t j, f;
    for (j = 0; j < J; j++) {
        float *dl = e->w.dlp[j];
        const float *x = e->p->local, *cv = e->cval + 8 * j;
        const size_t s = e->nmax;
        unsigned k;
        for (f = 0; f < n; f++) {
            const size_t src = f0 + (f < nreal ? f : nreal - 1);
            const float *in = x + 8 * (src * J + j), *qn = e->qn + 4 * (src * J + j);
            float o[8] = {0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
            if (e->kind[3 * j] == SKS_CC_CONSTANT) memcpy(o, cv, 4 * sizeof(float));
            if (e->kind[3 * j + 1] == SKS_CC_CONSTANT) memcpy(o + 4, cv + 4, 3 * sizeof(float));
            if (e->kind[3 * j + 2] == SKS_CC_CONSTANT) o[7] = cv[7];
            if (rates == NULL) {   /* the input's values */
                if (e->kind[3 * j] == SKS_CC_ANIMATED) memcpy(o, qn, 4 * sizeof(float));
                if (e->kind[3 * j + 1] == SKS_CC_ANIMATED) memcpy(o + 4, in + 4, 3 * sizeof(float));
                if (e->kind[3 * j + 2] == SKS_CC_ANIMATED) o[7] = in[7];
            }
            for (k = 0; k < 8; k++) dl[k * s + f] = o[k];
        }
        for (k = 0; rates != NULL && k < 3; k++) {
            const uint32_t t = e->track_of[3 * j + k];
            if (t != UINT32_MAX)
                decode_track(e, g, n, &e->tracks[t], rates + e->tracks[t].comp, dl);
        }
        e->p->kernels->affine(e->w.lxp[j], dl, s, n);
        {
            const int32_t p = e->p->parents[j];
            if (!e->p->kernels->walk(n, e->w.lxp[j], p < 0 ? NULL : e->w.gcp[p], e->w.gcp[j],
                                     e->w.rg + j * e->nmax * 12, e->p->shell, e->thr2))
                return 0;
        }
    }
    return 1;
}

/* Trial: track t at rates r (its components only), or, r NULL, the constant value cv (QTS
 * slots). On success the state is updated. */
static int try_track(encoder *e, uint32_t g, size_t n, const track *t, const uint8_t *r,
                     const float *cv)
{
    const size_t stride = e->nmax, j = t->joint;
    const int32_t p = e->p->parents[j];
    size_t f, i;
    int ok;
    memcpy(e->w.tl, e->w.dlp[j], 8 * stride * sizeof(float));
    if (r != NULL) {
        decode_track(e, g, n, t, r, e->w.tl);
    } else {
        static const unsigned first[3] = {0, 4, 7};
        const unsigned rows = t->type == 0 ? 4 : t->ncomp;
        unsigned k;
        for (k = first[t->type]; k < first[t->type] + rows; k++)
            for (f = 0; f < n; f++) e->w.tl[k * stride + f] = cv[k];
    }
    e->p->kernels->affine(e->w.tlx, e->w.tl, stride, n);
    ok = e->p->kernels->walk(n, e->w.tlx, p < 0 ? NULL : e->w.gcp[p], e->w.gtp[j],
                             e->w.rg + j * stride * 12, e->p->shell, e->thr2);
    e->w.dirty[j] = 1;
    for (i = j + 1; ok && i <= e->last[j]; i++) {
        const int32_t q = e->p->parents[i];
        if (q < 0 || !e->w.dirty[q]) continue;
        e->w.dirty[i] = 1;
        ok = e->p->kernels->walk(n, e->w.lxp[i], e->w.gtp[q], e->w.gtp[i], e->w.rg + i * stride * 12,
                                 e->p->shell, e->thr2);
    }
    if (ok) {
        float *tf = e->w.dlp[j];
        double *td = e->w.lxp[j];
        e->w.dlp[j] = e->w.tl;
        e->w.tl = tf;
        e->w.lxp[j] = e->w.tlx;
        e->w.tlx = td;
        for (i = j; i <= e->last[j]; i++) {
            if (e->w.dirty[i]) {
                double *x = e->w.gcp[i];
                e->w.gcp[i] = e->w.gtp[i];
                e->w.gtp[i] = x;
            }
        }
    }
    for (i = j; i <= e->last[j]; i++) e->w.dirty[i] = 0;
    return ok;
}

/* ------------------------------------------------------------------------------------------
 * The search of one segment
 * ------------------------------------------------------------------------------------------ */

/* Raw globals of segment g over the padded frames (copies of the last). */
static void raw_globals(encoder *e, uint32_t g, size_t n, size_t np)
{
    const size_t J = e->J, f0 = segment_first(e, g), stride = e->nmax;
    size_t j, f;
    for (j = 0; j < J; j++) {
        const int32_t p = e->p->parents[j];
        double *gj = e->w.rg + j * stride * 12;
        for (f = 0; f < np; f++) {
            const size_t src = f0 + (f < n ? f : n - 1);
            double l[12];
            affine_of(gj, f, e->p->local + 8 * (src * J + j));
            if (p < 0) continue;
            {
                const double *pg = e->w.rg + (size_t)p * stride * 12;
                double pm[12], m[12];
                int q;
                for (q = 0; q < 12; q++) {
                    pm[q] = pg[SOA(q, f)];
                    l[q] = gj[SOA(q, f)];
                }
                sks_cc_compose(m, m + 9, pm, pm + 9, l, l + 9);
                for (q = 0; q < 12; q++) gj[SOA(q, f)] = m[q];
            }
        }
    }
}

/* Lever arm of every joint in the segment: the shell distance plus the largest distance
 * (over frames) to a descendant's vertex, accumulated from the leaves up (an upper bound). */
static void segment_reach(encoder *e, size_t n)
{
    const size_t stride = e->nmax;
    const double shell = e->p->shell > 0.0 ? e->p->shell : 1e-9;
    size_t j, f;
    for (j = 0; j < e->J; j++) e->w.reach[j] = shell;
    for (j = e->J; j-- > 0;) {
        const int32_t p = e->p->parents[j];
        const double *gj = e->w.rg + j * stride * 12, *gp;
        double d2 = 0.0;
        if (p < 0) continue;
        gp = e->w.rg + (size_t)p * stride * 12;
        for (f = 0; f < n; f++) {
            const double dx = gj[SOA(9, f)] - gp[SOA(9, f)], dy = gj[SOA(10, f)] - gp[SOA(10, f)];
            const double dz = gj[SOA(11, f)] - gp[SOA(11, f)];
            const double x = (dx * dx + dy * dy) + dz * dz;
            d2 = x > d2 ? x : d2;
        }
        d2 = sqrt(d2) + e->w.reach[j];
        if (d2 > e->w.reach[p]) e->w.reach[p] = d2;
    }
}

/* Every track at the level whose step, times its lever arm, matches error level k: bits
 * round(k + offset) (offset = log2(extent x lever): 2 reach for a rotation, whose components
 * move it by twice their error, reach for a scale, 1 for a translation). */
static void set_error_levels(encoder *e, uint8_t *rates, int k)
{
    uint32_t t;
    for (t = 0; t < e->T; t++) {
        const double b = floor((double)k + e->w.offset[t] + 0.5);
        const int level = b - 1.0 < 0.0 ? 0 : b - 1.0 > NLEVELS - 1 ? NLEVELS - 1 : (int)b - 1;
        e->w.level[t] = (uint8_t)level;
        level_rates(e, &e->tracks[t], (unsigned)level, rates + e->tracks[t].comp);
    }
}

/* Returns 0, or -1 when even the highest rates exceed the threshold. */
static int search_segment(encoder *e, uint32_t g, size_t n, uint8_t *rates)
{
    const size_t f0 = segment_first(e, g), stride = e->nmax;
    const size_t np = (n + SB - 1) / SB * SB;
    size_t f, c;
    int lo, hi, progress;
    uint32_t ti;
    if (e->T == 0) return 0;   /* nothing animated (the segment may then be the whole clip) */
    raw_globals(e, g, n, np);
    for (ti = 0; ti < e->T; ti++) {
        const track *tr = &e->tracks[ti];
        unsigned m;
        for (m = 0; m < tr->ncomp; m++) {
            for (f = 0; f < np; f++)
                e->w.vals[(tr->comp + m) * stride + f] =
                    stored_value(e, tr, g, f0 + (f < n ? f : n - 1), m);
        }
    }
    segment_ranges(e, g, n);
    /* phase 0: the highest rates, 24 bits on every component */
    for (ti = 0; ti < e->T; ti++) e->w.level[ti] = NLEVELS - 1;
    memset(rates, SKS_CC_MAX_BITS, e->C);
    if (!full_eval(e, g, np, rates)) return -1;
    /* phase 1: every track at one error level (bisection over k); at the highest k every track
     * is at its highest level (the largest component at 24 bits, the others no coarser) */
    segment_reach(e, n);
    for (ti = 0; ti < e->T; ti++) {
        const track *tr = &e->tracks[ti];
        double emax = 1e-30;
        unsigned m;
        for (m = 0; m < tr->ncomp; m++) emax = e->w.ext[tr->comp + m] > emax ? e->w.ext[tr->comp + m] : emax;
        e->w.offset[ti] = log2(emax * (tr->type == 1 ? 1.0 : (tr->type == 0 ? 2.0 : 1.0) * e->w.reach[tr->joint]));
    }
    lo = -128;
    hi = 128;
    set_error_levels(e, rates, hi);
    if (full_eval(e, g, np, rates)) {
        while (hi - lo > 1) {
            const int mid = (lo + hi) / 2;
            set_error_levels(e, rates, mid);
            if (full_eval(e, g, np, rates)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        set_error_levels(e, rates, hi);
    } else {
        /* even the highest levels fail (a precision near float32's resolution for this clip,
         * or offsets below -128): every component back at 24 bits, phases 2 and 3 from there */
        for (ti = 0; ti < e->T; ti++) e->w.level[ti] = NLEVELS - 1;
        memset(rates, SKS_CC_MAX_BITS, e->C);
    }
    if (!full_eval(e, g, np, rates)) return -1;   /* cannot happen: it held */
    /* phase 2: each track one level lower in turn, leaves first, rounds until none can go */
    memset(e->w.done, 0, e->T);
    for (progress = 1; progress;) {
        progress = 0;
        for (ti = e->T; ti-- > 0;) {
            const track *tr = &e->tracks[ti];
            uint8_t r[3];
            if (e->w.done[ti] || e->w.level[ti] == 0) continue;
            level_rates(e, tr, e->w.level[ti] - 1u, r);
            if (!try_track(e, g, np, tr, r, NULL)) {
                e->w.done[ti] = 1;
                continue;
            }
            e->w.level[ti]--;
            memcpy(rates + tr->comp, r, tr->ncomp);
            progress = 1;
        }
    }
    /* phase 3: each component one bit lower in turn (1 bit failing: 0 tried), the same way */
    memset(e->w.done, 0, e->C);
    for (progress = 1; progress;) {
        progress = 0;
        for (ti = e->T; ti-- > 0;) {
            const track *tr = &e->tracks[ti];
            unsigned m;
            for (m = 0; m < tr->ncomp; m++) {
                uint8_t r[3];
                c = tr->comp + m;
                if (e->w.done[c] || rates[c] == 0) continue;
                memcpy(r, rates + tr->comp, tr->ncomp);
                r[m] = (uint8_t)(r[m] - 1u);
                if (!try_track(e, g, np, tr, r, NULL)) {
                    r[m] = 0;
                    if (rates[c] != 2 || !try_track(e, g, np, tr, r, NULL)) {
                        e->w.done[c] = 1;
                        continue;
                    }
                }
                memcpy(rates + tr->comp, r, tr->ncomp);
                progress = 1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Packing and verification
 * ------------------------------------------------------------------------------------------ */

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put_f32(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

static size_t key_bits(const encoder *e, uint32_t g)
{
    size_t c, k = 0;
    for (c = 0; c < e->C; c++) k += e->bits[(size_t)g * e->C + c];
    return k;
}

static size_t header_bytes(const encoder *e)
{
    return ((SKS_CC_HEADER_BYTES + e->J + 3u) & ~(size_t)3u) + 4 * (size_t)e->consts +
           8 * (size_t)e->pairs + 8 * (size_t)e->G;
}

static size_t segment_bytes(const encoder *e, uint32_t g)
{
    return 3 * (size_t)e->C + (segment_frames(e, g) * key_bits(e, g) + 7) / 8;
}

/* Writes segment g's component headers (rate byte, range code) and keys at dst (zeroed). */
static void pack_segment(const encoder *e, uint32_t g, uint8_t *dst)
{
    const size_t n = segment_frames(e, g), f0 = segment_first(e, g), C = e->C;
    const uint8_t *r = e->bits + (size_t)g * C;
    uint8_t *keys = dst + 3 * C;
    uint32_t ti;
    for (ti = 0; ti < e->T; ti++) {
        const track *tr = &e->tracks[ti];
        const unsigned drop = tr->type == 0 ? e->drop[(size_t)g * e->T + ti] : 0;
        unsigned m;
        for (m = 0; m < tr->ncomp; m++) {
            const size_t c = tr->comp + m;
            const uint32_t code = r[c] == 0 ? e->code0[(size_t)g * C + c] : e->code[(size_t)g * C + c];
            dst[3 * c] = (uint8_t)(r[c] | (tr->type == 0 && m == 0 ? drop << 5 : 0u));
            dst[3 * c + 1] = (uint8_t)code;
            dst[3 * c + 2] = (uint8_t)(code >> 8);
        }
    }
    {
        const uint64_t kbytes = ((uint64_t)n * key_bits(e, g) + 7) / 8;   /* the keys' bytes */
        uint64_t pos = 0;
        size_t f;
        for (f = 0; f < n; f++) {
            for (ti = 0; ti < e->T; ti++) {
                const track *tr = &e->tracks[ti];
                const unsigned drop = tr->type == 0 ? e->drop[(size_t)g * e->T + ti] : 0;
                unsigned m;
                for (m = 0; m < tr->ncomp; m++) {
                    const size_t c = tr->comp + m;
                    const unsigned rb = r[c];
                    const uint32_t rr = range_of(tr, m, drop);
                    uint32_t code, q;
                    float lo, sc;
                    if (rb == 0) continue;
                    code = e->code[(size_t)g * C + c];
                    sks_cc_component(e->cmin[rr], e->cext[rr], rb, code, &lo, &sc);
                    q = quantize(stored_value(e, tr, g, f0 + f, m), lo, sc,
                                 sc > 0.0f ? 1.0 / (double)sc : 0.0, rb);
                    {
                        /* up to 24 bits at any bit offset: up to 4 bytes, only those the key
                         * occupies (never a byte of the next segment, which another thread
                         * may be writing) */
                        uint8_t *k = keys + (pos >> 3);
                        const uint32_t v = q << (pos & 7u);
                        k[0] |= (uint8_t)v;
                        if ((pos >> 3) + 4 <= kbytes) {
                            k[1] |= (uint8_t)(v >> 8);
                            k[2] |= (uint8_t)(v >> 16);
                            k[3] |= (uint8_t)(v >> 24);
                        } else {   /* the last bytes of the segment */
                            const unsigned nb = ((unsigned)(pos & 7u) + rb + 7u) / 8u;
                            if (nb > 1) k[1] |= (uint8_t)(v >> 8);
                            if (nb > 2) k[2] |= (uint8_t)(v >> 16);
                        }
                        pos += rb;
                    }
                }
            }
        }
    }
}

/* Packing divided over segments: segment g at d + off[g]. */
typedef struct pack_job {
    const encoder *e;
    uint8_t *d;
    size_t *off;            /* G */
} pack_job;

static void pack_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const pack_job *job = (const pack_job *)ctx;
    size_t g;
    (void)slot;
    for (g = begin; g < end; g++) pack_segment(job->e, (uint32_t)g, job->d + job->off[g]);
}

/* The blob of the current rates (malloc'ed), or NULL with *size the size it would have (over
 * 4 GiB) or not (out of memory). */
static uint8_t *pack(const encoder *e, size_t *size)
{
    const size_t head = header_bytes(e);
    size_t total = head, g, j, pos;
    uint8_t *d;
    for (g = 0; g < e->G; g++) total += segment_bytes(e, (uint32_t)g);
    total += SKS_CC_TAIL_PAD;
    *size = total;
    if (total > 0xffffffffu) return NULL;
    d = (uint8_t *)calloc(total, 1);
    if (d == NULL) return NULL;
    put_u32(d, SKS_CC_MAGIC);
    put_u32(d + 4, e->F);
    put_u32(d + 8, e->J);
    put_u32(d + 12, e->L);
    put_u32(d + 16, e->G);
    put_u32(d + 20, e->C);
    {
        uint64_t u;
        memcpy(&u, &e->p->sample_rate, 8);
        put_u32(d + 24, (uint32_t)u);
        put_u32(d + 28, (uint32_t)(u >> 32));
    }
    for (j = 0; j < e->J; j++)
        d[SKS_CC_HEADER_BYTES + j] = (uint8_t)(e->kind[3 * j] | (e->kind[3 * j + 1] << 2) |
                                               (e->kind[3 * j + 2] << 4));
    pos = (SKS_CC_HEADER_BYTES + e->J + 3u) & ~(size_t)3u;
    for (j = 0; j < e->J; j++) {
        const float *cv = e->cval + 8 * j;
        unsigned m;
        if (e->kind[3 * j] == SKS_CC_CONSTANT)
            for (m = 0; m < 4; m++, pos += 4) put_f32(d + pos, cv[m]);
        if (e->kind[3 * j + 1] == SKS_CC_CONSTANT)
            for (m = 0; m < 3; m++, pos += 4) put_f32(d + pos, cv[4 + m]);
        if (e->kind[3 * j + 2] == SKS_CC_CONSTANT) {
            put_f32(d + pos, cv[7]);
            pos += 4;
        }
    }
    for (j = 0; j < e->pairs; j++, pos += 8) {
        put_f32(d + pos, e->cmin[j]);
        put_f32(d + pos + 4, e->cext[j]);
    }
    {
        /* the segment table, then the segments divided between threads (each writes its own
         * bytes, zeroed by the calloc) */
        size_t off = head;
        pack_job job;
        const sks_pool_plan plan = phase_plan(e->G, e->p->ns_pass * (double)e->L * (double)e->J);
        job.e = e;
        job.d = d;
        job.off = (size_t *)malloc(sizeof(size_t) * e->G);
        if (job.off == NULL) {
            free(d);
            return NULL;
        }
        for (g = 0; g < e->G; g++, pos += 8) {
            put_u32(d + pos, (uint32_t)off);
            put_u32(d + pos + 4, (uint32_t)key_bits(e, (uint32_t)g));
            job.off[g] = off;
            off += segment_bytes(e, (uint32_t)g);
        }
        sks_pool_run(&plan, pack_chunk, &job);
        free(job.off);
    }
    *size = total;
    return d;
}

/* Largest squared error of segment g's frames as the scalar decoder decodes the blob.
 * scratch: 24 J doubles, err2: J doubles. */
static double verify_segment(const encoder *e, const sks_cc_view *v, uint32_t g, float *pose,
                             double *raw, double *dec, double *err2, double *scratch)
{
    const size_t J = e->J, f0 = segment_first(e, g), n = segment_frames(e, g);
    double worst = 0.0;
    size_t f, i;
    for (f = f0; f < f0 + n; f++) {
        sks_compress_variants[SKS_ISA_SCALAR]->decompress(v, f, 1, pose);
        for (i = 0; i < 8 * J; i++) {
            raw[i] = e->p->local[f * J * 8 + i];
            dec[i] = pose[i];
        }
        sks_cc_pose_error2(raw, dec, e->p->parents, J, e->p->shell, err2, scratch);
        for (i = 0; i < J; i++) worst = err2[i] > worst ? err2[i] : worst;
    }
    return worst;
}

/* ------------------------------------------------------------------------------------------
 * Tracks and near-constant tracks
 * ------------------------------------------------------------------------------------------ */

/* The animated tracks, their components and clip ranges, from the kinds. */
static void build_tracks(encoder *e)
{
    static const unsigned ncomp[3] = {3, 3, 1}, npairs[3] = {4, 3, 1}, nconst[3] = {4, 3, 1};
    size_t j;
    e->T = e->C = e->pairs = e->consts = 0;
    for (j = 0; j < e->J; j++) {
        unsigned k;
        for (k = 0; k < 3; k++) {
            e->track_of[3 * j + k] = UINT32_MAX;
            if (e->kind[3 * j + k] == SKS_CC_CONSTANT) e->consts += nconst[k];
            if (e->kind[3 * j + k] != SKS_CC_ANIMATED) continue;
            {
                track *t = &e->tracks[e->T];
                t->joint = (uint32_t)j;
                t->type = (uint8_t)k;
                t->ncomp = (uint8_t)ncomp[k];
                t->root = (uint8_t)(e->p->parents[j] < 0);
                t->comp = e->C;
                t->range = e->pairs;
                e->track_of[3 * j + k] = e->T;
                e->T++;
                e->C += ncomp[k];
                e->pairs += npairs[k];
            }
        }
    }
}

/* Share of the error budget near-constant tracks may use (the rest is left to quantisation). */
#define NEAR_CONSTANT_BUDGET 0.5

/* Candidate t of near_constants: its one value into v (QTS slots), and whether the joint's own
 * vertices stay within `budget` of it (a cheap necessary condition). Tracks are independent. */
static int near_candidate(const encoder *e, uint32_t t, float *v, double budget)
{
    const size_t F = e->F, J = e->J;
    const double d = e->p->shell;
    const track *tr = &e->tracks[t];
    const size_t j = tr->joint;
    size_t f;
    double dev = 0.0;
    if (tr->type == 0) {
        const float *q0 = e->qn + 4 * j;
        double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4], n2 = 0.0;
        unsigned c;
        for (c = 0; c < 4; c++) hi[c] = -INFINITY;
        for (f = 0; f < F; f++) {
            const float *q = e->qn + 4 * (f * J + j);
            const double sg = ((double)q[0] * q0[0] + (double)q[1] * q0[1]) +
                              ((double)q[2] * q0[2] + (double)q[3] * q0[3]) < 0.0 ? -1.0 : 1.0;
            for (c = 0; c < 4; c++) {
                const double x = sg * q[c];
                lo[c] = x < lo[c] ? x : lo[c];
                hi[c] = x > hi[c] ? x : hi[c];
            }
        }
        for (c = 0; c < 4; c++) n2 += (0.5 * (lo[c] + hi[c])) * (0.5 * (lo[c] + hi[c]));
        for (c = 0; c < 4; c++) v[c] = (float)(0.5 * (lo[c] + hi[c]) / sqrt(n2));
        for (f = 0; f < F; f++) {
            const float *q = e->qn + 4 * (f * J + j);
            const double dot = fabs(((double)q[0] * v[0] + (double)q[1] * v[1]) +
                                    ((double)q[2] * v[2] + (double)q[3] * v[3]));
            const double angle = 2.0 * acos(dot < 1.0 ? dot : 1.0);
            dev = angle > dev ? angle : dev;
        }
        dev *= d;
    } else {
        const unsigned first = tr->type == 1 ? 4 : 7;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        unsigned c;
        for (f = 0; f < F; f++) {
            const float *x = e->p->local + 8 * (f * J + j) + first;
            for (c = 0; c < tr->ncomp; c++) {
                lo[c] = x[c] < lo[c] ? x[c] : lo[c];
                hi[c] = x[c] > hi[c] ? x[c] : hi[c];
            }
        }
        for (c = 0; c < tr->ncomp; c++) {
            v[first + c] = (float)(0.5 * (lo[c] + hi[c]));
            dev += (0.5 * (hi[c] - lo[c])) * (0.5 * (hi[c] - lo[c]));
        }
        dev = sqrt(dev) * (tr->type == 2 ? d : 1.0);
    }
    return dev <= budget;
}

/* The candidates that fail somewhere in segment g, checked leaves first each on top of those
 * accepted before in the segment, with every candidate of cand[] at the segment's start: out[t]
 * = 1 for each (the others untouched). Needs e->thr2 at the budget. Segments are independent
 * given cand[]. */
static int near_segment(encoder *e, uint32_t g, const uint8_t *cand, const float *cv,
                        uint8_t *out)
{
    const size_t n = segment_frames(e, g), np = (n + SB - 1) / SB * SB;
    uint32_t t;
    int dropped = 0;
    raw_globals(e, g, n, np);
    full_eval(e, g, np, NULL);
    for (t = e->T; t-- > 0;) {
        if (!cand[t]) continue;
        if (!try_track(e, g, np, &e->tracks[t], NULL, cv + 8 * t)) {
            out[t] = 1;
            dropped = 1;
        }
    }
    return dropped;
}

/* ------------------------------------------------------------------------------------------
 * Division over the thread pool
 * ------------------------------------------------------------------------------------------ */

/* The workspace of e's sizes (C, T, J, nmax); -1 when out of memory (what was allocated is left
 * for free_workspace). */
static int alloc_workspace(encoder *e)
{
    const size_t C = e->C, T = e->T, J = e->J, n = e->nmax;
    workspace *w = &e->w;
    size_t j;
    w->vals = (float *)malloc(sizeof(float) * (C * n + 1));
    w->rcode = (uint16_t *)malloc(sizeof(uint16_t) * (C + 1));
    w->ext = (double *)malloc(sizeof(double) * (C + 1));
    w->decl = (float *)malloc(sizeof(float) * (J + 1) * n * 8);
    w->dlp = (float **)malloc(sizeof(float *) * J);
    w->blocks = (double *)malloc(sizeof(double) * (3 * J + 1) * n * 12);
    w->lxp = (double **)malloc(sizeof(double *) * J);
    w->gcp = (double **)malloc(sizeof(double *) * J);
    w->gtp = (double **)malloc(sizeof(double *) * J);
    w->rg = (double *)malloc(sizeof(double) * J * n * 12);
    w->dirty = (uint8_t *)calloc(J, 1);
    w->level = (uint8_t *)malloc(T + 1);
    w->done = (uint8_t *)malloc(C + T + 1);
    w->reach = (double *)malloc(sizeof(double) * J);
    w->offset = (double *)malloc(sizeof(double) * (T + 1));
    if (!w->vals || !w->rcode || !w->ext || !w->decl || !w->dlp || !w->blocks || !w->lxp ||
        !w->gcp || !w->gtp || !w->rg || !w->dirty || !w->level || !w->done || !w->reach ||
        !w->offset)
        return -1;
    for (j = 0; j < J; j++) {
        w->dlp[j] = w->decl + j * n * 8;
        w->lxp[j] = w->blocks + j * n * 12;
        w->gcp[j] = w->blocks + (J + j) * n * 12;
        w->gtp[j] = w->blocks + (2 * J + j) * n * 12;
    }
    w->tl = w->decl + J * n * 8;
    w->tlx = w->blocks + 3 * J * n * 12;
    return 0;
}

static void free_workspace(workspace *w)
{
    free(w->vals);
    free(w->rcode);
    free(w->ext);
    free(w->decl);
    free(w->dlp);
    free(w->blocks);
    free(w->lxp);
    free(w->gcp);
    free(w->gtp);
    free(w->rg);
    free(w->dirty);
    free(w->level);
    free(w->done);
    free(w->reach);
    free(w->offset);
}

/* The encoders of the threads of a divided phase: slot 0 is the encoder itself, slot s > 0 a
 * copy of it (the same clip-wide state, read only while divided) with a workspace of its own. */
typedef struct crew {
    encoder *e;
    encoder *more;      /* slots 1 .. size - 1 */
    size_t size;
} crew;

static encoder *member(const crew *c, size_t slot)
{
    return slot == 0 ? c->e : c->more + (slot - 1);
}

/* Makes `slots` members ready, their clip-wide fields those of the encoder now (as many as memory
 * allows: at least the encoder itself); returns how many are ready. The workspaces are never
 * smaller than needed: C and T only shrink after the first allocation (near_constants). */
static size_t crew_ready(crew *c, size_t slots)
{
    size_t s;
    if (slots > c->size) {
        encoder *more = (encoder *)realloc(c->more, sizeof(encoder) * (slots - 1));
        if (more != NULL) {
            c->more = more;
            while (c->size < slots) {
                encoder *m = more + (c->size - 1);
                *m = *c->e;
                memset(&m->w, 0, sizeof m->w);
                if (alloc_workspace(m) < 0) {
                    free_workspace(&m->w);
                    break;
                }
                c->size++;
            }
        }
    }
    if (slots > c->size) slots = c->size;
    for (s = 1; s < slots; s++) {
        encoder *m = c->more + (s - 1);
        const workspace w = m->w;
        *m = *c->e;
        m->w = w;
    }
    return slots;
}

static void crew_free(crew *c)
{
    size_t s;
    for (s = 1; s < c->size; s++) free_workspace(&c->more[s - 1].w);
    free(c->more);
}

/* clip_ranges over tracks */
static void ranges_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    (void)slot;
    track_ranges((encoder *)ctx, (uint32_t)begin, (uint32_t)end);
}

/* The search over segments: every segment's rates, range codes and constant codes are its own
 * rows (bits, code, code0); a segment that fails at the highest rates is marked in
 * `unreachable` and its chunk stops (the encoder then starts again at 24 bits everywhere). */
typedef struct search_job {
    crew *c;
    uint8_t *unreachable;   /* G */
} search_job;

static void search_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const search_job *job = (const search_job *)ctx;
    encoder *e = member(job->c, slot);
    size_t g;
    for (g = begin; g < end; g++) {
        const size_t n = segment_frames(e, (uint32_t)g);
        if (search_segment(e, (uint32_t)g, n, e->bits + g * e->C) < 0) {
            job->unreachable[g] = 1;
            return;
        }
        memcpy(e->code + g * e->C, e->w.rcode, sizeof(uint16_t) * e->C);
    }
}

/* The verification over segments: the largest squared error of each segment into worst[g],
 * folded after the join in segment order. Per slot: pose (8 J floats), then raw, dec (8 J
 * doubles each), scratch (24 J) and err2 (J). */
typedef struct verify_job {
    const encoder *e;
    const sks_cc_view *v;
    double *worst;          /* G */
    float *pose;            /* 8 J per slot */
    double *work;           /* 41 J per slot */
} verify_job;

static void verify_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const verify_job *job = (const verify_job *)ctx;
    const size_t J = job->e->J;
    double *raw = job->work + slot * 41 * J;
    size_t g;
    for (g = begin; g < end; g++)
        job->worst[g] = verify_segment(job->e, job->v, (uint32_t)g, job->pose + slot * 8 * J,
                                       raw, raw + 8 * J, raw + 40 * J, raw + 16 * J);
}

/* Preparation over frames (normalised rotations) and joints (track kinds). */
static void normalize_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    encoder *e = (encoder *)ctx;
    size_t f, j;
    (void)slot;
    for (f = begin; f < end; f++)
        for (j = 0; j < e->J; j++)
            normalize_input(e->qn + 4 * (f * e->J + j), e->p->local + 8 * (f * e->J + j));
}

static void classify_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    (void)slot;
    classify((encoder *)ctx, begin, end);
}

/* near_constants: the candidates over tracks, then each round's segments in windows. */
typedef struct near_job {
    crew *c;
    uint8_t *cand;          /* T: candidates now (read only while divided) */
    float *cv;              /* 8 T: their values */
    double budget;
    uint32_t g0;            /* the window's first segment */
    uint8_t *drops;         /* T per segment of the window: candidates failing there */
    uint8_t *dropped;       /* per segment of the window: any */
} near_job;

static void candidate_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const near_job *job = (const near_job *)ctx;
    size_t t;
    (void)slot;
    for (t = begin; t < end; t++)
        job->cand[t] = (uint8_t)near_candidate(job->c->e, (uint32_t)t, job->cv + 8 * t,
                                               job->budget);
}

/* A chunk stops at its first segment that drops a candidate: the segments after it are checked
 * again in a later window (so one thread checks each segment once, as without windows). */
static void near_window_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const near_job *job = (const near_job *)ctx;
    encoder *e = member(job->c, slot);
    size_t i;
    for (i = begin; i < end; i++) {
        job->dropped[i] = (uint8_t)near_segment(e, (uint32_t)(job->g0 + i), job->cand, job->cv,
                                                job->drops + i * e->T);
        if (job->dropped[i]) return;
    }
}

/* Segments per window of a near_constants round, per thread. */
#define NEAR_WINDOW 8

/* Animated tracks that one value can stand for within NEAR_CONSTANT_BUDGET * precision become
 * constant tracks: the value is the middle of the track's range (a rotation's normalised);
 * a cheap necessary condition (the joint's own vertices) filters the candidates, then every
 * segment checks them exactly, leaves first, each on top of those accepted before; a candidate
 * that fails anywhere is dropped and the pass repeats until it drops none (so the accepted set
 * holds everywhere together). Returns 0, or -1 when out of memory.
 *
 * Divided: the candidates over tracks; a round's segments in windows of NEAR_WINDOW segments per
 * thread, each segment checked with the candidates of the window's start. Taken in order, the
 * segments of a window up to the first that drops a candidate are exactly what one thread
 * checks (none before it dropped anything), so its drops are applied and the next window starts
 * after it (the rest of the window is checked again with the smaller set). */
static int near_constants(encoder *e, crew *team)
{
    const double budget = NEAR_CONSTANT_BUDGET * sqrt(e->thr2);
    const double thr2 = e->thr2;
    const size_t threads = (size_t)sks_pool_get_threads();
    const size_t window = NEAR_WINDOW * (threads < 1 ? 1 : threads);
    float *cv = (float *)malloc(sizeof(float) * 8 * (e->T + 1));
    uint8_t *cand = (uint8_t *)calloc(e->T + 1, 1);
    uint8_t *drops = (uint8_t *)malloc(window * (e->T + 1));
    uint8_t *dropped = (uint8_t *)malloc(window);
    near_job job;
    uint32_t t;
    int round, any = 0;
    if (cv == NULL || cand == NULL || drops == NULL || dropped == NULL) {
        free(cv);
        free(cand);
        free(drops);
        free(dropped);
        return -1;
    }
    job.c = team;
    job.cand = cand;
    job.cv = cv;
    job.budget = budget;
    job.drops = drops;
    job.dropped = dropped;
    {
        const sks_pool_plan plan = phase_plan(e->T, e->p->ns_pass * (double)e->F);
        sks_pool_run(&plan, candidate_chunk, &job);
    }
    for (t = 0; t < e->T; t++) any |= cand[t];
    e->thr2 = budget * budget;
    for (round = 0; any && round < 8; round++) {
        int removed = 0;
        uint32_t g = 0;
        while (g < e->G) {
            const size_t n = e->G - g < window ? e->G - g : window;
            /* a segment's check: one evaluation and a trial per candidate, about a fifth of
             * its search */
            sks_pool_plan plan = phase_plan(n, e->p->ns_search * 0.2 * (double)e->L *
                                                   (double)e->J);
            size_t i;
            plan.slots = crew_ready(team, plan.slots);
            job.g0 = g;
            memset(drops, 0, n * e->T);
            memset(dropped, 0, n);
            sks_pool_run(&plan, near_window_chunk, &job);
            for (i = 0; i < n && !dropped[i]; i++) {
            }
            if (i == n) {
                g += (uint32_t)n;
                continue;
            }
            for (t = 0; t < e->T; t++) {
                if (drops[i * e->T + t]) cand[t] = 0;
            }
            removed = 1;
            g += (uint32_t)i + 1;
        }
        if (!removed) break;
        if (round == 7) memset(cand, 0, e->T);
    }
    e->thr2 = thr2;
    for (t = 0; t < e->T; t++) {
        const track *tr = &e->tracks[t];
        static const unsigned first[3] = {0, 4, 7};
        if (!cand[t]) continue;
        e->kind[3 * tr->joint + tr->type] = SKS_CC_CONSTANT;
        memcpy(e->cval + 8 * tr->joint + first[tr->type], cv + 8 * t + first[tr->type],
               sizeof(float) * (tr->type == 0 ? 4 : tr->ncomp));
    }
    free(cv);
    free(cand);
    free(drops);
    free(dropped);
    build_tracks(e);
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------------------------ */

static void free_encoder(encoder *e)
{
    free(e->kind);
    free(e->cval);
    free(e->qn);
    free(e->tracks);
    free(e->track_of);
    free(e->cmin);
    free(e->cext);
    free(e->drop);
    free(e->bits);
    free(e->code);
    free(e->code0);
    free(e->last);
    free_workspace(&e->w);
}

int sks_cc_encode(const sks_cc_encode_params *p, sks_cc_encode_result *res)
{
    encoder e;
    crew team;
    size_t j, f;
    uint32_t g;
    int status = SKS_CC_OK;
    memset(&e, 0, sizeof e);
    memset(res, 0, sizeof *res);
    team.e = &e;
    team.more = NULL;
    team.size = 1;
    e.p = p;
    e.F = p->frames;
    e.J = p->joints;
    e.L = p->segment_length;
    e.G = e.F / e.L > 0 ? e.F / e.L : 1;
    e.nmax = e.G == 1 ? e.F : 2 * e.L - 1;
    e.nmax = (e.nmax + SB - 1) / SB * SB;
    {
        const double thr = p->precision * (1.0 - 0x1p-20);
        e.thr2 = thr * thr;
    }
    e.kind = (uint8_t *)malloc(3 * (size_t)e.J);
    e.cval = (float *)malloc(sizeof(float) * 8 * (size_t)e.J);
    e.qn = (float *)malloc(sizeof(float) * 4 * (size_t)e.F * e.J);
    e.track_of = (uint32_t *)malloc(sizeof(uint32_t) * 3 * (size_t)e.J);
    e.tracks = (track *)malloc(sizeof(track) * 3 * (size_t)e.J);
    e.last = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)e.J);
    if (!e.kind || !e.cval || !e.qn || !e.track_of || !e.tracks || !e.last) goto oom;
    {
        sks_pool_plan plan = phase_plan(e.F, p->ns_pass * (double)e.J);
        sks_pool_run(&plan, normalize_chunk, &e);
        plan = phase_plan(e.J, p->ns_pass * (double)e.F);
        sks_pool_run(&plan, classify_chunk, &e);
    }
    for (j = 0; j < e.J; j++) e.last[j] = (uint32_t)j;
    for (j = e.J; j-- > 0;) {
        const int32_t par = p->parents[j];
        if (par >= 0 && e.last[j] > e.last[par]) e.last[par] = e.last[j];
    }
    build_tracks(&e);
    {
        const size_t G = e.G, C = e.C, T = e.T;
        e.cmin = (float *)malloc(sizeof(float) * (e.pairs + 1));
        e.cext = (float *)malloc(sizeof(float) * (e.pairs + 1));
        e.drop = (uint8_t *)calloc(G * T + 1, 1);
        e.bits = (uint8_t *)calloc(G * C + 1, 1);
        e.code = (uint16_t *)calloc(G * C + 1, sizeof(uint16_t));
        e.code0 = (uint16_t *)calloc(G * C + 1, sizeof(uint16_t));
        if (!e.cmin || !e.cext || !e.drop || !e.bits || !e.code || !e.code0 ||
            alloc_workspace(&e) < 0)
            goto oom;
    }
    if (near_constants(&e, &team) < 0) goto oom;
    if (e.C == 0) {
        /* nothing animated: one segment, whatever the length (segments would cost 8 bytes each
         * for nothing) */
        e.L = e.F;
        e.G = 1;
    }
    {
        /* clip ranges, divided over tracks */
        sks_pool_plan plan = phase_plan(e.T, p->ns_pass * (double)e.F);
        clip_ranges_start(&e);
        sks_pool_run(&plan, ranges_chunk, &e);
        clip_ranges_finish(&e);
    }
    {
        /* the search, divided over segments */
        sks_pool_plan plan = phase_plan(e.G, p->ns_search * (double)e.L * (double)e.J);
        search_job job;
        job.c = &team;
        job.unreachable = (uint8_t *)calloc(e.G, 1);
        if (job.unreachable == NULL) goto oom;
        plan.slots = crew_ready(&team, plan.slots);
        sks_pool_run(&plan, search_chunk, &job);
        for (g = 0; g < e.G; g++) {
            if (job.unreachable[g]) status = SKS_CC_UNREACHABLE;
        }
        free(job.unreachable);
    }
    if (status == SKS_CC_UNREACHABLE) {
        /* how far the highest rates get: everything at 24 bits */
        for (g = 0; g < e.G; g++) {
            const size_t n = segment_frames(&e, g);
            uint8_t *rates = e.bits + (size_t)g * e.C;
            uint32_t ti;
            for (f = 0; f < n; f++) {
                for (ti = 0; ti < e.T; ti++) {
                    unsigned m;
                    for (m = 0; m < e.tracks[ti].ncomp; m++)
                        e.w.vals[(e.tracks[ti].comp + m) * e.nmax + f] =
                            stored_value(&e, &e.tracks[ti], g, segment_first(&e, g) + f, m);
                }
            }
            segment_ranges(&e, g, n);
            memcpy(e.code + (size_t)g * e.C, e.w.rcode, sizeof(uint16_t) * e.C);
            memset(rates, SKS_CC_MAX_BITS, e.C);
        }
    }
    /* pack, verify (divided over segments), repair */
    {
        sks_pool_plan plan = phase_plan(e.G, p->ns_pass * (double)e.L * (double)e.J);
        float *pose = NULL;
        double *work = NULL, *worst = (double *)malloc(sizeof(double) * e.G);
        uint8_t *fail = (uint8_t *)calloc(e.G, 1);
        int round;
        for (;;) {   /* per-slot scratch for the threads used (one slot when short of memory) */
            pose = (float *)malloc(sizeof(float) * 8 * e.J * plan.slots);
            work = (double *)malloc(sizeof(double) * 41 * e.J * plan.slots);
            if ((pose && work) || plan.slots == 1) break;
            free(pose);
            free(work);
            plan.slots = 1;
        }
        if (!pose || !work || !worst || !fail) {
            free(pose);
            free(work);
            free(worst);
            free(fail);
            goto oom;
        }
        for (round = 0; round <= (int)SKS_CC_MAX_BITS + 1; round++) {
            sks_cc_view v;
            size_t size = 0;
            uint8_t *blob = pack(&e, &size);
            int any = 0;
            double w = 0.0;
            verify_job job;
            if (blob == NULL) {
                status = size > 0xffffffffu ? SKS_CC_TOO_LARGE : SKS_CC_NO_MEMORY;
                break;
            }
            if (sks_cc_parse(blob, size, &v, NULL, 0) != SKS_CC_OK) {
                free(blob);
                status = SKS_CC_NO_MEMORY;
                break;
            }
            job.e = &e;
            job.v = &v;
            job.worst = worst;
            job.pose = pose;
            job.work = work;
            sks_pool_run(&plan, verify_chunk, &job);
            for (g = 0; g < e.G; g++) {
                w = worst[g] > w ? worst[g] : w;
                fail[g] = (uint8_t)(worst[g] > e.thr2);
                any |= fail[g];
            }
            sks_cc_view_free(&v);
            if (!any || status == SKS_CC_UNREACHABLE) {
                res->data = blob;
                res->size = size;
                res->max_error = sqrt(w);
                if (status == SKS_CC_UNREACHABLE) res->best_possible = sqrt(w);
                break;
            }
            free(blob);
            {
                int raised = 0;
                for (g = 0; g < e.G; g++) {
                    size_t c;
                    if (!fail[g]) continue;
                    res->repaired_segments += round == 0;
                    for (c = 0; c < e.C; c++) {
                        uint8_t *b = e.bits + (size_t)g * e.C + c;
                        if (*b < SKS_CC_MAX_BITS) {
                            *b = (uint8_t)(*b == 0 ? 2 : *b + 1);
                            raised = 1;
                        }
                    }
                }
                if (!raised) {
                    /* every failing segment is at the highest rates already */
                    status = SKS_CC_UNREACHABLE;
                }
            }
        }
        free(pose);
        free(work);
        free(worst);
        free(fail);
    }
    crew_free(&team);
    free_encoder(&e);
    if (status == SKS_CC_UNREACHABLE && res->data != NULL) {
        /* keep the measured figure, drop the data */
        free(res->data);
        res->data = NULL;
        res->size = 0;
    }
    return status;
oom:
    crew_free(&team);
    free_encoder(&e);
    return SKS_CC_NO_MEMORY;
}
