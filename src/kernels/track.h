/*
 * track.h -- user tracks (animation curves of 1 to 4 floats or quaternions) sampled in batch, and
 * the threshold edges of a float track (the equivalents of ozz-animation's TrackSamplingJob and
 * TrackTriggeringJob; skelsimd/track.py documents the semantics).
 *
 * A track is nkeys key times (strictly increasing, finite: validated by the caller) and nkeys
 * values of ncomp floats each (1 <= ncomp <= 4), row-major.
 */
#ifndef SKS_TRACK_H
#define SKS_TRACK_H

#include "simd.h"

/* Interpolation between keys. */
enum sks_track_interp { SKS_TRACK_STEP = 0, SKS_TRACK_LINEAR = 1, SKS_TRACK_CUBIC = 2 };

typedef struct sks_track_kernels {
    /* For every sample i < ntimes: the track's value at times[i], out[i ncomp .. i ncomp + ncomp).
     * The time is wrapped first when `loop` (period key_times[nkeys-1] - key_times[0], the
     * remainder taken exactly in double and the wrapped time rounded once to float32), then
     * clamped to the keys: before the first key the first value, after the last key the last.
     * The segment k is the last with key_times[k] <= t (k <= nkeys - 2), a = (t - t_k) /
     * (t_k+1 - t_k) in [0, 1], and
     *   step:   a < 1 ? v_k : v_k+1
     *   linear: a < 1 ? v_k + a (v_k+1 - v_k) : v_k+1
     *   cubic:  Hermite with the tangents given (per key, ncomp floats, dv/dt), h = t_k+1 - t_k:
     *           (h00 v_k + h01 v_k+1) + h (h10 m_k + h11 m_k+1), h00 = (2a^3 - 3a^2) + 1,
     *           h01 = 3a^2 - 2a^3, h10 = (a^3 - 2a^2) + a, h11 = a^3 - a^2
     * `normalize` (ncomp 4): the result divided by its norm (dot (x x + z z) + (y y + w w)); a
     * zero result gives (0, 0, 0, 1). A NaN time gives NaN values (and inf does with loop).
     * One key: its value everywhere. tangents may be NULL unless interp is cubic. */
    void (*sample)(float *out, const float *key_times, const float *values, const float *tangents,
                   size_t nkeys, size_t ncomp, const float *times, size_t ntimes, int interp,
                   int loop, int normalize);
    /* The segment's keys and the fraction of the same rules, for interpolations done elsewhere
     * (slerp): v0[i ncomp ..] = values of key k, v1[i ncomp ..] = values of key k + 1, alpha[i] =
     * a. One key: both are that key, a = 0. A NaN time gives a = NaN (keys 0 and 1). */
    void (*segments)(float *v0, float *v1, float *alpha, const float *key_times,
                     const float *values, size_t nkeys, size_t ncomp, const float *times,
                     size_t ntimes, int loop);
    /* The edges of a float track (ncomp 1) over one pass of its keys, in time order: for every
     * segment from key i - 1 to key i (i = 1 .. nkeys - 1, and i = 0 from the last key to the
     * first when `wrap`, at time key_times[0]), rising when v_i-1 <= threshold < v_i, falling
     * when v_i-1 > threshold >= v_i. The edge's time is key_times[i] for a step track (and for
     * the wrap), else the linear crossing t_i-1 + (t_i - t_i-1) ((threshold - v_i-1) / (v_i -
     * v_i-1)) clamped to [t_i-1, t_i]. Writes edge_times[e] and direction[e] (+1 rising, -1
     * falling) for e < the returned count (<= nkeys). */
    size_t (*edges)(float *edge_times, int8_t *direction, const float *key_times,
                    const float *values, size_t nkeys, float threshold, int step, int wrap);
    /* Root-motion blending (ozz's MotionBlendingJob) of nout outputs: output p blends the nlayers
     * QTS deltas at deltas + p * nlayers * 8 with the weights weights[p * weight_stride + l]
     * (weight_stride nlayers, or 0: one weight row for all). Weights <= 0 or NaN are ignored;
     * with a = sum w, d = sum w |t_l|, u = sum (w / |t_l|) t_l (zero-length layers add nothing),
     * r = sum w_l' q_l (w_l' = -w when dot(r so far, q_l) < 0):
     *   t = u (|u| a > 0 ? d / (|u| a) : 0),  q = |r|^2 > 0 ? r / |r| : (0, 0, 0, 1),  s = 1.
     * |t| is ((x x + y y) + z z)^(1/2), dots pairwise. out may not overlap the inputs. */
    void (*motion_blend)(float *out, const float *deltas, const float *weights, size_t nout,
                         size_t nlayers, size_t weight_stride);
} sks_track_kernels;

/* Indexed by enum sks_isa: each target's row (track.c compiled once per target; dispatch.c). */
extern const sks_track_kernels *const sks_track_variants[SKS_ISA_COUNT];

#endif /* SKS_TRACK_H */
