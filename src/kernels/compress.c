/*
 * compress.c -- the decoder kernels of compressed clips (format in compress.h): sample (poses at
 * frame positions) and decompress (every raw frame). Written once against the vector vocabulary
 * and compiled per target (target.h); the format's validation, clip_error and the encoder are
 * compiled once (compress_format.c, compress_search.c).
 *
 * A pose at frame position f + alpha needs key f and, when alpha > 0, key f + 1: in the same
 * segment (the common case: it shares the segment's component headers and starts K bits after
 * key f) or the first key of the next segment. The output starts as the view's template
 * (default and constant tracks); the animated tracks are then decoded a chunk of SKS_CC_CHUNK
 * joints at a time:
 *   1. gather (scalar, one pass over the chunk's components): each component's 3-byte header
 *      (rate byte, range code) and its bits (one 4-byte load, shift, mask) go to the component's
 *      place in structure-of-arrays slots (the view's slot_of);
 *   2. values (vector): per slot, lo and sc from the headers and the clip ranges (for a
 *      rotation, the clip range of the quaternion component its slot holds in this segment,
 *      selected by the dropped component), then lo + sc * q per key (sks_cc_component);
 *   3. tracks (vector, across tracks): rotations rebuild their dropped component, are
 *      interpolated by nlerp on the shortest arc and normalised (also at alpha 0); translations
 *      and scales are a + alpha (b - a); results are transposed to joints and stored a row
 *      (4 floats) per track.
 * Poses of one segment decoded together (a run: decompress's frames of a segment, consecutive
 * poses of sample in one segment, as times in order give) decode the segment's headers once per
 * chunk (seg_setup: every component's lo, sc, first bit within a key and mask, in the slot
 * layout); each pose then only unpacks its keys' integers slot by slot (no per-component
 * lookups) and evaluates lo + sc * q, and steps 3 follow as above. A lone pose of its segment
 * and a pose whose second key is the next segment's first take the per-pose path above. Times
 * out of order are sorted by frame within blocks of poses (sample_grouped) to make runs; poses
 * of a run at the same frame or the next reuse the keys' values already decoded. Both
 * paths compute every value by the same operations, so the order of the poses never changes a
 * bit.
 * Every lane evaluates the scalar definitions of compress.h operation for operation (the
 * encoder's search evaluates those), so every target gives the same bits.
 */
#include "target.h"
#include "compress.h"

#define CHUNK SKS_CC_CHUNK
#define SLOTS SKS_CC_SLOTS

typedef struct key_cursor {
    const uint8_t *heads, *keys;   /* component headers (3 bytes each), key data */
    uint64_t pos;                  /* the key's first bit */
    uint32_t bits;                 /* K, the segment's key size */
} key_cursor;

/* The decoding state of one chunk. */
typedef struct chunk_state {
    int32_t head[2][SLOTS * CHUNK];   /* component headers (rate byte | range code << 8) per key */
    int32_t q[2][SLOTS * CHUNK];      /* the keys' integers */
    float v[2][SLOTS * CHUNK];        /* the keys' values */
} chunk_state;

/* Key `frame` of segment g (the frame's segment). */
static SKS_ALWAYS_INLINE void key_in(const sks_cc_view *v, uint32_t frame, uint32_t g,
                                     key_cursor *k)
{
    const uint8_t *seg = v->data + sks_cc_u32(v->table + 8 * (size_t)g);
    k->heads = seg;
    k->keys = seg + 3 * (size_t)v->components;
    k->bits = sks_cc_u32(v->table + 8 * (size_t)g + 4);
    k->pos = (uint64_t)(frame - g * v->segment_length) * k->bits;
}

/* ------------------------------------------------------------------------------------------
 * 1. gather
 * ------------------------------------------------------------------------------------------ */

/* The components [c0, c1) of key k, their bits from *pos on: headers into head, integers into
 * q and, when `two` (the segment's next key, K bits further), into q2. */
static SKS_ALWAYS_INLINE void gather(const uint16_t *SKS_RESTRICT slot_of, uint32_t c0, uint32_t c1,
                                     const key_cursor *k, uint64_t *pos_io,
                                     int32_t *SKS_RESTRICT head, int32_t *SKS_RESTRICT q,
                                     int32_t *SKS_RESTRICT q2, int two)
{
    const uint8_t *const heads = k->heads, *const keys = k->keys;
    const uint64_t step = k->bits;
    uint64_t pos = *pos_io;
    uint32_t c;
    for (c = c0; c < c1; c++) {
        /* the header's 4th byte belongs to the next component: the vector pass masks it */
        const uint32_t h = sks_cc_u32(heads + 3 * (size_t)c);
        const unsigned r = h & 31u;
        const uint32_t mask = sks_cc_masks[r];
        const size_t at = slot_of[c];
        head[at] = (int32_t)h;
        q[at] = (int32_t)((sks_cc_u32(keys + (pos >> 3)) >> (unsigned)(pos & 7u)) & mask);
        if (two) {
            const uint64_t p2 = pos + step;
            q2[at] = (int32_t)((sks_cc_u32(keys + (p2 >> 3)) >> (unsigned)(p2 & 7u)) & mask);
        }
        pos += r;
    }
    *pos_io = pos;
}

/* Zeros after each slot's last track up to a whole vector (the vector passes read them). */
static SKS_ALWAYS_INLINE void pad(const sks_cc_chunk *ch, int32_t *head, int32_t *q, int32_t *q2)
{
    size_t s, t;
    for (s = 0; s < SLOTS; s++) {
        const size_t n = ch->count[s < 3 ? 0 : s < 6 ? 1 : 2];
        for (t = n; t % SKS_W != 0; t++) {
            head[s * CHUNK + t] = 0;
            q[s * CHUNK + t] = 0;
            if (q2 != NULL) q2[s * CHUNK + t] = 0;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * 2. values
 * ------------------------------------------------------------------------------------------ */

/* 1 / (2^r - 1) in float32 (sks_cc_inv_levels: the same correctly rounded quotients), 0 for
 * r = 0; 2^r is built in the exponent bits. */
static SKS_ALWAYS_INLINE vf inv_levels(vi r)
{
    const vf pow2 = vf_bits_from_vi(vi_shl(vi_add(r, vi_set1(127)), 23));
    return vf_ifnot(vi_eq(r, vi_set1(0)), vf_div(vf_set1(1.0f), vf_sub(pow2, vf_set1(1.0f))));
}

/* lo and sc of SKS_W components (sks_cc_component lane by lane): headers h (rate in bits 0-4,
 * range code in bits 8-23), clip range (m, e); a key's values are lo + sc * q. */
static SKS_ALWAYS_INLINE void component_range(vi h, vf m, vf e, vf *lo, vf *sc)
{
    const vi r = vi_and(h, vi_set1(31)), code = vi_and(vi_shr(h, 8), vi_set1(0xffff));
    const vm rate0 = vi_eq(r, vi_set1(0));
    const vf inv = inv_levels(r);
    const vf fmin = vf_select(rate0, vf_mul(vf_from_vi(code), vf_set1(SKS_CC_INV65535)),
                              vf_mul(vf_from_vi(vi_and(code, vi_set1(255))), vf_set1(SKS_CC_INV255)));
    const vf fext = vf_ifnot(rate0, vf_mul(vf_from_vi(vi_shr(code, 8)), vf_set1(SKS_CC_INV255)));
    *lo = vf_add(m, vf_mul(e, fmin));
    *sc = vf_mul(vf_mul(e, fext), inv);
}

/* The dropped quaternion component of SKS_W rotations (bits 5-6 of their first header). */
static SKS_ALWAYS_INLINE vi dropped(const int32_t *head0)
{
    return vi_and(vi_shr(vi_load(head0), 5), vi_set1(3));
}

/* The clip range (min or extent) of stored rotation component `slot` for SKS_W rotations whose
 * dropped components are d: quaternion component slot + (slot >= d). */
static SKS_ALWAYS_INLINE vf rotation_range(const float *const comp[4], size_t at, size_t slot,
                                           vi d)
{
    const vm shifted = vi_gt(vi_set1((int32_t)slot + 1), d);   /* d <= slot */
    return vf_select(shifted, vf_load(comp[slot + 1] + at), vf_load(comp[slot] + at));
}

/* The values of the chunk's components (every slot, every track, one or two keys); with
 * `shared` both keys use the first key's headers (one segment), so lo and sc are computed
 * once per component. */
static SKS_ALWAYS_INLINE void values(const sks_cc_view *v, const sks_cc_chunk *ch,
                                     chunk_state *st, int keys, int shared)
{
    size_t i, s;
    int k;
    for (i = 0; i < ch->count[0]; i += SKS_W) {
        const size_t at = ch->first[0] + i;
        for (k = 0; k < keys; k++) {
            const vi d = dropped(&st->head[k][i]);
            for (s = 0; s < 3; s++) {
                const size_t x = s * CHUNK + i;
                vf lo, sc;
                component_range(vi_load(&st->head[k][x]), rotation_range(v->rot_min, at, s, d),
                                rotation_range(v->rot_ext, at, s, d), &lo, &sc);
                vf_store(&st->v[k][x], vf_add(lo, vf_mul(sc, vf_from_vi(vi_load(&st->q[k][x])))));
                if (shared) {   /* the second key of the same segment */
                    vf_store(&st->v[1][x], vf_add(lo, vf_mul(sc, vf_from_vi(vi_load(&st->q[1][x])))));
                }
            }
            if (shared) break;
        }
    }
    for (i = 0; i < ch->count[1] + ch->count[2]; i += SKS_W) {
        /* translations (slots 3-5) and scales (slot 6) */
        for (s = 3; s < SLOTS; s++) {
            const size_t kind = s < 6 ? 1 : 2, x = s * CHUNK + i;
            const float *m0 = kind == 1 ? v->trans_min[s - 3] : v->scale_min;
            const float *e0 = kind == 1 ? v->trans_ext[s - 3] : v->scale_ext;
            const size_t at = ch->first[kind] + i;
            if (i >= ch->count[kind]) continue;
            for (k = 0; k < keys; k++) {
                vf lo, sc;
                component_range(vi_load(&st->head[k][x]), vf_load(m0 + at), vf_load(e0 + at), &lo, &sc);
                vf_store(&st->v[k][x], vf_add(lo, vf_mul(sc, vf_from_vi(vi_load(&st->q[k][x])))));
                if (shared) {
                    vf_store(&st->v[1][x], vf_add(lo, vf_mul(sc, vf_from_vi(vi_load(&st->q[1][x])))));
                    break;
                }
            }
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * 3. tracks
 * ------------------------------------------------------------------------------------------ */

/* sks_cc_rebuild on SKS_W rotations: stored components a, b, c, dropped component index d. */
static SKS_ALWAYS_INLINE void rebuild(vf q[4], vf a, vf b, vf c, vi d)
{
    const vf s = vf_add(vf_add(vf_mul(a, a), vf_mul(b, b)), vf_mul(c, c));
    const vf m = vf_sqrt(vf_max(vf_sub(vf_set1(1.0f), s), vf_zero()));
    const vm d0 = vi_eq(d, vi_set1(0)), d1 = vi_eq(d, vi_set1(1));
    const vm d2 = vi_eq(d, vi_set1(2)), d3 = vi_eq(d, vi_set1(3));
    q[0] = vf_select(d0, m, a);
    q[1] = vf_select(d0, a, vf_select(d1, m, b));
    q[2] = vf_select(vm_or(d0, d1), b, vf_select(d2, m, c));
    q[3] = vf_select(d3, m, c);
}

static SKS_ALWAYS_INLINE vf dot4(const vf a[4], const vf b[4])
{
    return vf_add(vf_add(vf_add(vf_mul(a[0], b[0]), vf_mul(a[1], b[1])), vf_mul(a[2], b[2])),
                  vf_mul(a[3], b[3]));
}

/* Stores lanes 0..n-1 of x[0..comps-1] (structure of arrays) at out + 8 joint[t] + offset
 * (comps floats per track): full groups as transposed rows, the rest lane by lane. */
static SKS_ALWAYS_INLINE void scatter(float *out, const uint32_t *joint, size_t n, size_t offset,
                                      vf x[4], int comps)
{
    if (n == SKS_W && comps == 4) {
        size_t k;
        vf_transpose4_in_rows(&x[0], &x[1], &x[2], &x[3]);
        for (k = 0; k < 4; k++) {
            float *o = out + 8 * (size_t)joint[k] + offset;
            vf_store_rows(o, SKS_ROWS > 1 ? 8 * ((ptrdiff_t)joint[(k + 4) % SKS_W] - (ptrdiff_t)joint[k]) : 0, x[k]);
        }
    } else {
        float lanes[4][SKS_W];
        size_t t;
        int c;
        for (c = 0; c < comps; c++) vf_store(lanes[c], x[c]);
        for (t = 0; t < n; t++) {
            float *o = out + 8 * (size_t)joint[t] + offset;
            for (c = 0; c < comps; c++) o[c] = lanes[c][t];
        }
    }
}

/* Rotations of one or two keys; h0, h1: the keys' slot-0 headers (dropped components). */
static SKS_ALWAYS_INLINE void rotations(const sks_cc_chunk *ch, const chunk_state *st,
                                        const int32_t *h0, const int32_t *h1, int keys,
                                        float alpha, float *out)
{
    const size_t n = ch->count[0];
    size_t i;
    for (i = 0; i < n; i += SKS_W) {
        vf a[4], x[4];
        int c;
        rebuild(a, vf_load(&st->v[0][0 * CHUNK + i]), vf_load(&st->v[0][1 * CHUNK + i]),
                vf_load(&st->v[0][2 * CHUNK + i]), dropped(&h0[i]));
        if (keys == 2) {
            const vf al = vf_set1(alpha);
            vf b[4], sign;
            rebuild(b, vf_load(&st->v[1][0 * CHUNK + i]), vf_load(&st->v[1][1 * CHUNK + i]),
                    vf_load(&st->v[1][2 * CHUNK + i]), dropped(&h1[i]));
            sign = vf_select(vf_lt(dot4(a, b), vf_zero()), vf_set1(-1.0f), vf_set1(1.0f));
            for (c = 0; c < 4; c++) x[c] = vf_add(a[c], vf_mul(al, vf_sub(vf_mul(sign, b[c]), a[c])));
        } else {
            for (c = 0; c < 4; c++) x[c] = a[c];
        }
        {
            const vf inv = vf_div(vf_set1(1.0f), vf_sqrt(dot4(x, x)));
            for (c = 0; c < 4; c++) x[c] = vf_mul(x[c], inv);
        }
        scatter(out, ch->joint[0] + i, n - i < SKS_W ? n - i : SKS_W, 0, x, 4);
    }
}

/* Translations (kind 1: slots 3-5) or scales (kind 2: slot 6): a + alpha (b - a). */
static SKS_ALWAYS_INLINE void linear(const sks_cc_chunk *ch, const chunk_state *st, size_t kind,
                                     int keys, float alpha, float *out)
{
    const size_t n = ch->count[kind], first = kind == 1 ? 3 : 6;
    const int comps = kind == 1 ? 3 : 1;
    size_t i;
    for (i = 0; i < n; i += SKS_W) {
        vf x[4];
        int m;
        for (m = 0; m < comps; m++) {
            const size_t at = (first + (size_t)m) * CHUNK + i;
            x[m] = vf_load(&st->v[0][at]);
            if (keys == 2) x[m] = vf_add(x[m], vf_mul(vf_set1(alpha), vf_sub(vf_load(&st->v[1][at]), x[m])));
        }
        scatter(out, ch->joint[kind] + i, n - i < SKS_W ? n - i : SKS_W, kind == 1 ? 4 : 7, x, comps);
    }
}

/* ------------------------------------------------------------------------------------------
 * Poses
 * ------------------------------------------------------------------------------------------ */

/* Zero padding of both keys' slots: once per call when the clip is one chunk (the padded
 * places are then never written), else per chunk. */
static void pad_all(const sks_cc_chunk *ch, chunk_state *st)
{
    pad(ch, st->head[0], st->q[0], st->q[1]);
    pad(ch, st->head[1], st->q[1], NULL);
}

/* One pose: key a, and key b when alpha != 0 (b NULL otherwise); `copy`: the output starts as
 * the template (else the caller has written it). */
static SKS_ALWAYS_INLINE void pose(const sks_cc_view *v, chunk_state *st, const key_cursor *a,
                                   const key_cursor *b, float alpha, int copy, float *out)
{
    const int keys = b != NULL ? 2 : 1, shared = b != NULL && b->heads == a->heads;
    const size_t nchunks = (v->joints + CHUNK - 1) / CHUNK;
    uint64_t pa = a->pos, pb = b != NULL ? b->pos : 0;
    size_t ci;
    if (copy) memcpy(out, v->pose_template, sizeof(float) * 8 * (size_t)v->joints);
    for (ci = 0; ci < nchunks; ci++) {
        const sks_cc_chunk *ch = &v->chunks[ci];
        if (nchunks > 1) pad_all(ch, st);
        if (shared) {
            gather(v->slot_of, ch->comp0, ch->comp1, a, &pa, st->head[0], st->q[0], st->q[1], 1);
        } else {
            gather(v->slot_of, ch->comp0, ch->comp1, a, &pa, st->head[0], st->q[0], NULL, 0);
            if (b != NULL)
                gather(v->slot_of, ch->comp0, ch->comp1, b, &pb, st->head[1], st->q[1], NULL, 0);
        }
        values(v, ch, st, keys, shared);
        rotations(ch, st, st->head[0], st->head[shared ? 0 : 1], keys, alpha, out);
        linear(ch, st, 1, keys, alpha, out);
        linear(ch, st, 2, keys, alpha, out);
    }
}

/* ------------------------------------------------------------------------------------------
 * Runs of poses in one segment
 * ------------------------------------------------------------------------------------------ */

/* What a segment's component headers give one chunk (computed once per run of poses in the
 * segment): per slot place, lo and sc (sks_cc_component), the component's first bit within a key
 * and its mask; the headers of slot 0 (the rotations' dropped components). Padded places have
 * offset 0 and mask 0 (their integers read as 0). */
typedef struct seg_state {
    float lo[SLOTS * CHUNK], sc[SLOTS * CHUNK];
    uint32_t off[SLOTS * CHUNK], mask[SLOTS * CHUNK];
    int32_t head[SLOTS * CHUNK];
} seg_state;

/* The chunk's part of segment `heads`, its components' bits from *pos_io on (the chunk's first
 * bit within a key; advanced past the chunk). */
static SKS_ALWAYS_INLINE void seg_setup(const sks_cc_view *v, const sks_cc_chunk *ch,
                                        const uint8_t *heads, uint32_t *pos_io, seg_state *S)
{
    const uint16_t *SKS_RESTRICT slot_of = v->slot_of;
    uint32_t pos = *pos_io, c;
    size_t s, t, i;
    for (s = 0; s < SLOTS; s++) {
        const size_t n = ch->count[s < 3 ? 0 : s < 6 ? 1 : 2];
        for (t = n; t % SKS_W != 0; t++) {
            S->head[s * CHUNK + t] = 0;
            S->off[s * CHUNK + t] = 0;
            S->mask[s * CHUNK + t] = 0;
        }
    }
    for (c = ch->comp0; c < ch->comp1; c++) {
        /* the header's 4th byte belongs to the next component: component_range masks it */
        const uint32_t h = sks_cc_u32(heads + 3 * (size_t)c);
        const unsigned r = h & 31u;
        const size_t at = slot_of[c];
        S->head[at] = (int32_t)h;
        S->off[at] = pos;
        S->mask[at] = sks_cc_masks[r];
        pos += r;
    }
    *pos_io = pos;
    for (i = 0; i < ch->count[0]; i += SKS_W) {
        const size_t at = ch->first[0] + i;
        const vi d = dropped(&S->head[i]);
        for (s = 0; s < 3; s++) {
            const size_t x = s * CHUNK + i;
            vf lo, sc;
            component_range(vi_load(&S->head[x]), rotation_range(v->rot_min, at, s, d),
                            rotation_range(v->rot_ext, at, s, d), &lo, &sc);
            vf_store(&S->lo[x], lo);
            vf_store(&S->sc[x], sc);
        }
    }
    for (s = 3; s < SLOTS; s++) {
        const size_t kind = s < 6 ? 1 : 2;
        const float *m0 = kind == 1 ? v->trans_min[s - 3] : v->scale_min;
        const float *e0 = kind == 1 ? v->trans_ext[s - 3] : v->scale_ext;
        for (i = 0; i < ch->count[kind]; i += SKS_W) {
            const size_t at = ch->first[kind] + i, x = s * CHUNK + i;
            vf lo, sc;
            component_range(vi_load(&S->head[x]), vf_load(m0 + at), vf_load(e0 + at), &lo, &sc);
            vf_store(&S->lo[x], lo);
            vf_store(&S->sc[x], sc);
        }
    }
}

/* The values of one key (its first bit: bit `bit` < 8 of byte `keys`) at every place of slots
 * [s0, s1) (n tracks each, rounded up to whole vectors): lo + sc * q. */
static SKS_ALWAYS_INLINE void seg_values(const seg_state *SKS_RESTRICT S, const uint8_t *keys,
                                         size_t s0, size_t s1, size_t n, uint32_t bit,
                                         float *SKS_RESTRICT val)
{
    size_t s, t;
    for (s = s0; s < s1; s++) {
        for (t = 0; t < n; t += SKS_W) {
            const size_t x = s * CHUNK + t;
            int32_t q[SKS_W];
            size_t l;
            for (l = 0; l < SKS_W; l++) {
                const uint32_t p = bit + S->off[x + l];
                q[l] = (int32_t)((sks_cc_u32(keys + (p >> 3)) >> (p & 7u)) & S->mask[x + l]);
            }
            vf_store(&val[x], vf_add(vf_load(&S->lo[x]), vf_mul(vf_load(&S->sc[x]),
                                                                 vf_from_vi(vi_load(q)))));
        }
    }
}

/* Chunk `ci` of the poses [i0, i1) (pose idx[k] for k in [i0, i1) when idx is given), every
 * one in segment g with both keys there (alpha 0 or frame + 1 in g); S holds the segment's state
 * of the chunk. */
static SKS_ALWAYS_INLINE void seg_chunk(const sks_cc_view *v, const sks_cc_chunk *ch,
                                        size_t ci, const seg_state *S, chunk_state *st,
                                        const uint8_t *keys, uint32_t K, uint32_t g0,
                                        const uint32_t *frame, const float *alpha,
                                        const uint32_t *idx, size_t i0, size_t i1,
                                        uint32_t dframe, int copy, float *out)
{
    const size_t J = v->joints, j0 = ci * CHUNK, nj = J - j0 < CHUNK ? J - j0 : CHUNK;
    const size_t nr = ch->count[0], nt = ch->count[1], ns = ch->count[2];
    /* st->v[0] holds the values of the key of frame key0 when have0, st->v[1] those of frame
     * key1 when have1: poses in frame order reuse them (a key's values are not recomputed for
     * a pose at the same frame, and the previous pose's second key is the next frame's first) */
    uint32_t key0 = 0, key1 = 0;
    int have0 = 0, have1 = 0;
    size_t k;
    for (k = i0; k < i1; k++) {
        const size_t i = idx != NULL ? idx[k] : k;
        const uint32_t f = frame != NULL ? frame[i] : dframe + (uint32_t)i;
        const float al = frame != NULL ? alpha[i] : 0.0f;
        const int keys2 = al != 0.0f;
        const uint64_t base = (uint64_t)(f - g0) * K, base2 = base + K;
        float *o = out + i * 8 * J;
        if (frame != NULL && keys2 && f + 1 - g0 >= v->segment_length &&
            (f + 1) / v->segment_length < v->segments)
            continue;   /* key f + 1 in the next segment: seg_run does it */
        if (copy) memcpy(o + 8 * j0, v->pose_template + 8 * j0, sizeof(float) * 8 * nj);
        if (!have0 || key0 != f) {
            if (have1 && key1 == f) {   /* the used places of every slot */
                size_t sl, t;
                for (sl = 0; sl < SLOTS; sl++) {
                    const size_t n = sl < 3 ? nr : sl < 6 ? nt : ns;
                    for (t = 0; t < n; t += SKS_W)
                        vf_store(&st->v[0][sl * CHUNK + t], vf_load(&st->v[1][sl * CHUNK + t]));
                }
            } else {
                seg_values(S, keys + (base >> 3), 0, 3, nr, (uint32_t)(base & 7u), st->v[0]);
                seg_values(S, keys + (base >> 3), 3, 6, nt, (uint32_t)(base & 7u), st->v[0]);
                seg_values(S, keys + (base >> 3), 6, 7, ns, (uint32_t)(base & 7u), st->v[0]);
            }
            key0 = f;
            have0 = 1;
        }
        if (keys2 && (!have1 || key1 != f + 1)) {
            seg_values(S, keys + (base2 >> 3), 0, 3, nr, (uint32_t)(base2 & 7u), st->v[1]);
            seg_values(S, keys + (base2 >> 3), 3, 6, nt, (uint32_t)(base2 & 7u), st->v[1]);
            seg_values(S, keys + (base2 >> 3), 6, 7, ns, (uint32_t)(base2 & 7u), st->v[1]);
            key1 = f + 1;
            have1 = 1;
        }
        rotations(ch, st, S->head, S->head, keys2 ? 2 : 1, al, o);
        linear(ch, st, 1, keys2 ? 2 : 1, al, o);
        linear(ch, st, 2, keys2 ? 2 : 1, al, o);
    }
}

/* The poses [i0, i1), all with key `frame` in segment g: chunk by
 * chunk, the segment's state of the chunk computed once for all of them; then the poses whose
 * key frame + 1 is the next segment's first, one by one. frame NULL: the frames dframe + i at
 * alpha 0 (decompress), pose i written at out + i J 8; copy as in pose. */
static SKS_ALWAYS_INLINE void seg_run(const sks_cc_view *v, uint32_t g, const uint32_t *frame,
                                      const float *alpha, const uint32_t *idx, size_t i0,
                                      size_t i1, uint32_t dframe, chunk_state *st, int *padded,
                                      int copy, float *out)
{
    const size_t nchunks = (v->joints + CHUNK - 1) / CHUNK;
    const uint8_t *seg = v->data + sks_cc_u32(v->table + 8 * (size_t)g);
    const uint8_t *keys = seg + 3 * (size_t)v->components;
    const uint32_t K = sks_cc_u32(v->table + 8 * (size_t)g + 4), g0 = g * v->segment_length;
    seg_state S;
    uint32_t pos = 0;
    size_t ci, k;
    for (ci = 0; ci < nchunks; ci++) {
        const sks_cc_chunk *ch = &v->chunks[ci];
        seg_setup(v, ch, seg, &pos, &S);
        seg_chunk(v, ch, ci, &S, st, keys, K, g0, frame, alpha, idx, i0, i1, dframe, copy, out);
    }
    if (frame == NULL) return;
    for (k = i0; k < i1; k++) {
        const size_t i = idx != NULL ? idx[k] : k;
        const uint32_t f = frame[i];
        if (alpha[i] != 0.0f && f + 1 - g0 >= v->segment_length &&
            (f + 1) / v->segment_length < v->segments) {
            key_cursor a, b;
            if (!*padded && v->joints <= CHUNK) {
                pad_all(&v->chunks[0], st);
                *padded = 1;
            }
            key_in(v, f, g, &a);
            key_in(v, f + 1, g + 1, &b);
            pose(v, st, &a, &b, alpha[i], copy, out + i * 8 * (size_t)v->joints);
        }
    }
}

/* The segment of frame f. */
static SKS_ALWAYS_INLINE uint32_t segment_of(const sks_cc_view *v, uint32_t f)
{
    const uint32_t g = f / v->segment_length;
    return g < v->segments ? g : v->segments - 1;
}

/* One pose by the per-pose path (a lone pose of its segment). */
static SKS_ALWAYS_INLINE void one_pose(const sks_cc_view *v, chunk_state *st, int *padded,
                                       uint32_t f, uint32_t g, float alpha, int copy, float *out)
{
    key_cursor a, b;
    if (!*padded && v->joints <= CHUNK) {
        pad_all(&v->chunks[0], st);
        *padded = 1;
    }
    key_in(v, f, g, &a);
    if (alpha != 0.0f) {   /* key f + 1: in segment g or the next one's first */
        const uint32_t next = f + 1 - g * v->segment_length >= v->segment_length &&
                              g + 1 < v->segments;
        key_in(v, f + 1, g + next, &b);
        pose(v, st, &a, &b, alpha, copy, out);
    } else {
        pose(v, st, &a, NULL, 0.0f, copy, out);
    }
}

/* seg_run out of line (sample's per-pose loop stays as small as it was without runs). */
static SKS_NOINLINE void seg_run_sample(const sks_cc_view *v, uint32_t g, const uint32_t *frame,
                                        const float *alpha, const uint32_t *idx, size_t i0,
                                        size_t i1, chunk_state *st, int *padded, int copy,
                                        float *out)
{
    seg_run(v, g, frame, alpha, idx, i0, i1, 0, st, padded, copy, out);
}

/* Times out of order are taken a block of at most BLOCK poses (BLOCK_BYTES of output) at a time.
 * The block's output is first filled with the template in order (whole lines written
 * sequentially, which the hardware prefetches), then the block's poses are sorted by frame (a
 * stable radix sort of frame << BLOCK_BITS | place in the block) and a segment's poses decoded
 * together as a run, its headers decoded once per chunk for all of them, poses at the same frame
 * or the next sharing keys' values; a lone pose of its segment takes the per-pose path. The animated tracks are then written in segment order, but
 * into lines of the block already in cache. (Grouping the whole request instead writes its poses
 * in scattered order over a large output and costs more in stores than it saves.) */
#define BLOCK 4096
#define BLOCK_BITS 12
#define BLOCK_BYTES (4096u * 1024u)

/* The poses [0, m) (m <= BLOCK, frames at most 2^(32 - BLOCK_BITS)) grouped by segment. */
static void sample_grouped(const sks_cc_view *v, const uint32_t *frame, const float *alpha,
                           size_t m, chunk_state *st, int *padded, float *out)
{
    const size_t J = v->joints;
    uint32_t key[BLOCK], tmp[BLOCK], count[256];
    uint32_t *a = key, *b = tmp;
    unsigned shift;
    size_t k;
    for (k = 0; k < m; k++) {
        memcpy(out + k * 8 * J, v->pose_template, sizeof(float) * 8 * J);
        key[k] = frame[k] << BLOCK_BITS | (uint32_t)k;
    }
    for (shift = BLOCK_BITS; shift < 32 && ((v->frames - 1) >> (shift - BLOCK_BITS)) != 0;
         shift += 8) {   /* least significant digit first, 8 bits a pass */
        uint32_t *c, sum = 0;
        memset(count, 0, sizeof count);
        for (k = 0; k < m; k++) count[(a[k] >> shift) & 255u]++;
        for (k = 0; k < 256; k++) {
            const uint32_t x = count[k];
            count[k] = sum;
            sum += x;
        }
        for (k = 0; k < m; k++) b[count[(a[k] >> shift) & 255u]++] = a[k];
        c = a;
        a = b;
        b = c;
    }
    k = 0;
    while (k < m) {
        const uint32_t g = segment_of(v, a[k] >> BLOCK_BITS);
        const uint32_t end = g + 1 == v->segments ? v->frames : (g + 1) * v->segment_length;
        size_t j = k + 1, t;
        while (j < m && a[j] >> BLOCK_BITS < end) j++;
        if (j - k >= 2) {
            for (t = k; t < j; t++) b[t] = a[t] & (BLOCK - 1);
            seg_run_sample(v, g, frame, alpha, b, k, j, st, padded, 0, out);
        } else {
            const size_t i = a[k] & (BLOCK - 1);
            one_pose(v, st, padded, frame[i], g, alpha[i], 0, out + i * 8 * J);
        }
        k = j;
    }
}

/* Consecutive poses of one segment (times in order) as runs, a lone pose on its own; blocks of
 * times out of order (more runs than half their poses) grouped by segment. */
static void sample(const sks_cc_view *v, const uint32_t *frame, const float *alpha, size_t n,
                   float *out)
{
    const size_t J = v->joints;
    size_t block = BLOCK_BYTES / (32u * J), i = 0;
    chunk_state st;
    int padded = 0;
    if (block > BLOCK) block = BLOCK;
    if (v->frames > (1u << (32 - BLOCK_BITS))) block = 0;   /* (the sort key's frame bits) */
    while (i < n) {
        const size_t m = n - i < block ? n - i : block;
        if (m >= 4) {
            size_t k, runs = 1;
            uint32_t gp = segment_of(v, frame[i]);
            for (k = 1; k < m; k++) {
                const uint32_t g = segment_of(v, frame[i + k]);
                runs += g != gp;
                gp = g;
            }
            if (2 * runs > m) {
                sample_grouped(v, frame + i, alpha + i, m, &st, &padded, out + i * 8 * J);
                i += m;
                continue;
            }
        }
        {
            const size_t end = i + (m > 0 ? m : 1);
            while (i < end) {   /* runs (the last may reach past the block) */
                /* the segment's frames [f0, f0 + nf) */
                const uint32_t g = segment_of(v, frame[i]), f0 = g * v->segment_length;
                const uint32_t nf = g + 1 == v->segments ? v->frames - f0 : v->segment_length;
                size_t j = i + 1;
                while (j < n && frame[j] - f0 < nf) j++;
                if (j - i >= 2) {
                    seg_run_sample(v, g, frame, alpha, NULL, i, j, &st, &padded, 1, out);
                } else {
                    one_pose(v, &st, &padded, frame[i], g, alpha[i], 1, out + i * 8 * J);
                }
                i = j;
            }
        }
    }
}

static void decompress(const sks_cc_view *v, size_t first, size_t count, float *out)
{
    chunk_state st;
    int padded = 0;
    size_t i = 0;
    while (i < count) {
        const uint32_t f = (uint32_t)(first + i), g = segment_of(v, f);
        const size_t end = g + 1 == v->segments ? v->frames : (size_t)(g + 1) * v->segment_length;
        const size_t j = end - first < count ? end - first : count;
        if (j - i >= 2) {
            seg_run(v, g, NULL, NULL, NULL, i, j, (uint32_t)first, &st, &padded, 1, out);
        } else {
            one_pose(v, &st, &padded, f, g, 0.0f, 1, out + i * 8 * (size_t)v->joints);
        }
        i = j;
    }
}

/* ------------------------------------------------------------------------------------------
 * The encoder's evaluation (float64): written as plain loops over frames in structure-of-arrays
 * blocks, which every target's compiler vectorises (2 doubles on the scalar and SSE4.1 builds,
 * 4 on AVX2); the same operations in the same order per frame (no FMA), so every target gives
 * the same values, those of sks_cc_local_affine, sks_cc_compose and sks_cc_error2.
 * ------------------------------------------------------------------------------------------ */

#define SB SKS_CC_SB

static void eval_affine(double *SKS_RESTRICT lx, const float *SKS_RESTRICT dl, size_t s,
                        size_t np)
{
    size_t b, i;
    for (b = 0; b < np; b += SB) {
        double *SKS_RESTRICT o = lx + 12 * b;
        for (i = 0; i < SB; i++) {
            const size_t f = b + i;
            const double x = dl[f], y = dl[s + f], z = dl[2 * s + f], w = dl[3 * s + f];
            const double sc = dl[7 * s + f];
            const double inv = 1.0 / (((x * x + y * y) + z * z) + w * w);   /* never zero */
            const double xx = (x * x) * inv, yy = (y * y) * inv, zz = (z * z) * inv;
            const double xy = (x * y) * inv, xz = (x * z) * inv, yz = (y * z) * inv;
            const double wx = (w * x) * inv, wy = (w * y) * inv, wz = (w * z) * inv;
            o[0 * SB + i] = sc * (1.0 - 2.0 * (yy + zz));
            o[1 * SB + i] = sc * (2.0 * (xy - wz));
            o[2 * SB + i] = sc * (2.0 * (xz + wy));
            o[3 * SB + i] = sc * (2.0 * (xy + wz));
            o[4 * SB + i] = sc * (1.0 - 2.0 * (xx + zz));
            o[5 * SB + i] = sc * (2.0 * (yz - wx));
            o[6 * SB + i] = sc * (2.0 * (xz - wy));
            o[7 * SB + i] = sc * (2.0 * (yz + wx));
            o[8 * SB + i] = sc * (1.0 - 2.0 * (xx + yy));
            o[9 * SB + i] = dl[4 * s + f];
            o[10 * SB + i] = dl[5 * s + f];
            o[11 * SB + i] = dl[6 * s + f];
        }
    }
}

static int eval_walk(size_t np, const double *SKS_RESTRICT l, const double *SKS_RESTRICT pg,
                     double *SKS_RESTRICT g, const double *SKS_RESTRICT r, double d, double thr2)
{
    double err[SB];
    int bad = 0;
    size_t b, f;
    for (b = 0; b < np; b += SB) {
        const double *SKS_RESTRICT P = pg + 12 * b, *SKS_RESTRICT Lb = l + 12 * b;
        const double *SKS_RESTRICT R = r + 12 * b;
        double *SKS_RESTRICT Gb = g + 12 * b;
        if (pg != NULL) {
            for (f = 0; f < SB; f++) {
                const double a00 = P[0 * SB + f], a01 = P[1 * SB + f], a02 = P[2 * SB + f];
                const double a10 = P[3 * SB + f], a11 = P[4 * SB + f], a12 = P[5 * SB + f];
                const double a20 = P[6 * SB + f], a21 = P[7 * SB + f], a22 = P[8 * SB + f];
                const double b00 = Lb[0 * SB + f], b01 = Lb[1 * SB + f], b02 = Lb[2 * SB + f];
                const double b10 = Lb[3 * SB + f], b11 = Lb[4 * SB + f], b12 = Lb[5 * SB + f];
                const double b20 = Lb[6 * SB + f], b21 = Lb[7 * SB + f], b22 = Lb[8 * SB + f];
                const double t0 = Lb[9 * SB + f], t1 = Lb[10 * SB + f], t2 = Lb[11 * SB + f];
                Gb[0 * SB + f] = (a00 * b00 + a01 * b10) + a02 * b20;
                Gb[1 * SB + f] = (a00 * b01 + a01 * b11) + a02 * b21;
                Gb[2 * SB + f] = (a00 * b02 + a01 * b12) + a02 * b22;
                Gb[3 * SB + f] = (a10 * b00 + a11 * b10) + a12 * b20;
                Gb[4 * SB + f] = (a10 * b01 + a11 * b11) + a12 * b21;
                Gb[5 * SB + f] = (a10 * b02 + a11 * b12) + a12 * b22;
                Gb[6 * SB + f] = (a20 * b00 + a21 * b10) + a22 * b20;
                Gb[7 * SB + f] = (a20 * b01 + a21 * b11) + a22 * b21;
                Gb[8 * SB + f] = (a20 * b02 + a21 * b12) + a22 * b22;
                Gb[9 * SB + f] = P[9 * SB + f] + ((a00 * t0 + a01 * t1) + a02 * t2);
                Gb[10 * SB + f] = P[10 * SB + f] + ((a10 * t0 + a11 * t1) + a12 * t2);
                Gb[11 * SB + f] = P[11 * SB + f] + ((a20 * t0 + a21 * t1) + a22 * t2);
            }
        } else {
            memcpy(Gb, Lb, 12 * SB * sizeof(double));
        }
        for (f = 0; f < SB; f++) {
            const double dt0 = Gb[9 * SB + f] - R[9 * SB + f];
            const double dt1 = Gb[10 * SB + f] - R[10 * SB + f];
            const double dt2 = Gb[11 * SB + f] - R[11 * SB + f];
            const double x0 = dt0 + d * (Gb[0 * SB + f] - R[0 * SB + f]);
            const double y0 = dt1 + d * (Gb[3 * SB + f] - R[3 * SB + f]);
            const double z0 = dt2 + d * (Gb[6 * SB + f] - R[6 * SB + f]);
            const double x1 = dt0 + d * (Gb[1 * SB + f] - R[1 * SB + f]);
            const double y1 = dt1 + d * (Gb[4 * SB + f] - R[4 * SB + f]);
            const double z1 = dt2 + d * (Gb[7 * SB + f] - R[7 * SB + f]);
            const double x2 = dt0 + d * (Gb[2 * SB + f] - R[2 * SB + f]);
            const double y2 = dt1 + d * (Gb[5 * SB + f] - R[5 * SB + f]);
            const double z2 = dt2 + d * (Gb[8 * SB + f] - R[8 * SB + f]);
            const double e0 = (x0 * x0 + y0 * y0) + z0 * z0;
            const double e1 = (x1 * x1 + y1 * y1) + z1 * z1;
            const double e2 = (x2 * x2 + y2 * y2) + z2 * z2;
            const double m01 = e0 > e1 ? e0 : e1;
            err[f] = m01 > e2 ? m01 : e2;
        }
        for (f = 0; f < SB; f++) bad |= err[f] > thr2;
        if (bad) return 0;
    }
    return 1;
}

SKS_ROW(compress) = {sample, decompress, eval_affine, eval_walk};
