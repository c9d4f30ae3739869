/*
 * track.c (glue) -- Python entry points of the track family. The public class with its
 * documentation is skelsimd.Track (skelsimd/track.py), which validates the keys once when a track
 * is built (times strictly increasing and finite, values finite); the kernels are in
 * src/kernels/track.c.
 *
 * Positional arguments only:
 *   track_sample(key_times, values, tangents, times, interp, loop, normalize, out)
 *       key_times (K,), values (K, C) with 1 <= C <= 4, tangents (K, C) or None (required for
 *       interp "cubic"), times of any shape -> out times.shape + (C,)
 *   track_segments(key_times, values, times, loop) -> (v0, v1, alpha): the keys around every
 *       time, times.shape + (C,) each, and the fraction, times.shape
 *   track_edges(key_times, values, threshold, step, wrap) -> (times float32 (E,), direction
 *       int8 (E,))
 *   motion_blend(deltas, weights, out): deltas (..., L, 8), weights (L,) or deltas.shape[:-1]
 *       -> out (..., 8)
 * Keys that are not increasing give meaningless values, never a crash or an endless loop (the
 * segment search always narrows).
 */
#include "args.h"

#include <string.h>

#include "../kernels/track.h"

static const char *const interp_names[] = {"step", "linear", "cubic", NULL};

/* key_times as a 1-D float32 array with at least one key (new reference). */
static PyArrayObject *key_times_arg(PyObject *obj)
{
    PyArrayObject *kt = sks_as_float32(obj, "key_times");
    if (kt == NULL) return NULL;
    if (PyArray_NDIM(kt) != 1 || PyArray_DIM(kt, 0) < 1) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(kt), PyArray_DIMS(kt));
        PyErr_Format(PyExc_ValueError, "key_times: expected shape (K,) with K >= 1, got %s", got);
        Py_DECREF(kt);
        return NULL;
    }
    return kt;
}

/* values (or tangents) as a float32 (K, C) array, 1 <= C <= 4 (new reference). */
static PyArrayObject *key_values_arg(PyObject *obj, const char *name, npy_intp nkeys,
                                     npy_intp ncomp)
{
    PyArrayObject *v = sks_as_float32(obj, name);
    if (v == NULL) return NULL;
    if (PyArray_NDIM(v) != 2 || PyArray_DIM(v, 0) != nkeys || PyArray_DIM(v, 1) < 1 ||
        PyArray_DIM(v, 1) > 4 || (ncomp > 0 && PyArray_DIM(v, 1) != ncomp)) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(v), PyArray_DIMS(v));
        PyErr_Format(PyExc_ValueError, "%s: expected shape (K, C) with K = %ld keys and %s, got %s",
                     name, (long)nkeys, ncomp > 0 ? "C like values" : "1 <= C <= 4", got);
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* Track.sample divided over the pool by times [begin, end) (each time's segment is found the
 * same way whatever the chunk: the search hint only speeds the search up). */
typedef struct track_job {
    const sks_track_kernels *k;
    float *o;
    const float *key_times, *values, *tangents, *times;
    size_t nkeys, ncomp;
    int interp, loop, normalize;
} track_job;

static void track_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const track_job *j = (const track_job *)ctx;
    (void)slot;
    j->k->sample(j->o + begin * j->ncomp, j->key_times, j->values, j->tangents, j->nkeys, j->ncomp,
                 j->times + begin, end - begin, j->interp, j->loop, j->normalize);
}

static PyObject *py_track_sample(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *kt = NULL, *values = NULL, *tangents = NULL, *times = NULL, *out = NULL;
    npy_intp shape[NPY_MAXDIMS], nkeys, ncomp;
    int interp, loop, normalize, ndim;
    (void)self;
    if (!sks_check_nargs("track_sample", nargs, 8)) return NULL;
    interp = sks_parse_choice(args[4], "interpolation", interp_names, 1);
    if (interp < 0) return NULL;
    loop = sks_parse_bool(args[5], "loop", 0);
    if (loop < 0) return NULL;
    normalize = sks_parse_bool(args[6], "normalize", 0);
    if (normalize < 0) return NULL;
    kt = key_times_arg(args[0]);
    if (kt == NULL) goto fail;
    nkeys = PyArray_DIM(kt, 0);
    values = key_values_arg(args[1], "values", nkeys, 0);
    if (values == NULL) goto fail;
    ncomp = PyArray_DIM(values, 1);
    if (args[2] != Py_None) {
        tangents = key_values_arg(args[2], "tangents", nkeys, ncomp);
        if (tangents == NULL) goto fail;
    } else if (interp == SKS_TRACK_CUBIC) {
        PyErr_SetString(PyExc_ValueError, "tangents: expected a (K, C) array for cubic "
                        "interpolation, got None");
        goto fail;
    }
    times = sks_as_float32(args[3], "times");
    if (times == NULL) goto fail;
    ndim = PyArray_NDIM(times);
    if (sks_check_rank(ndim + 1, "times") < 0) goto fail;
    if (ndim > 0) memcpy(shape, PyArray_DIMS(times), (size_t)ndim * sizeof(npy_intp));
    shape[ndim] = ncomp;
    out = sks_prepare_out(args[7], "out", ndim + 1, shape);
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", times, "times", 0) < 0 ||
        sks_check_overlap(out, "out", values, "values", 0) < 0 ||
        sks_check_overlap(out, "out", kt, "key_times", 0) < 0 ||
        (tangents && sks_check_overlap(out, "out", tangents, "tangents", 0) < 0))
        goto fail;
    if (PyArray_SIZE(out) > 0) {
        track_job j;
        j.k = SKS_KERNELS(track);
        j.o = (float *)PyArray_DATA(out);
        j.key_times = (const float *)PyArray_DATA(kt);
        j.values = (const float *)PyArray_DATA(values);
        j.tangents = tangents ? (const float *)PyArray_DATA(tangents) : NULL;
        j.times = (const float *)PyArray_DATA(times);
        j.nkeys = (size_t)nkeys;
        j.ncomp = (size_t)ncomp;
        j.interp = interp;
        j.loop = loop;
        j.normalize = normalize;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)PyArray_SIZE(times), SKS_NS_INTERP * (double)(ncomp + 3) / 4,
                         track_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(kt);
    Py_DECREF(values);
    Py_XDECREF(tangents);
    Py_DECREF(times);
    return (PyObject *)out;
fail:
    Py_XDECREF(kt);
    Py_XDECREF(values);
    Py_XDECREF(tangents);
    Py_XDECREF(times);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_track_segments(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *kt = NULL, *values = NULL, *times = NULL, *v0 = NULL, *v1 = NULL, *alpha = NULL;
    npy_intp shape[NPY_MAXDIMS], ncomp;
    int loop, ndim;
    (void)self;
    if (!sks_check_nargs("track_segments", nargs, 4)) return NULL;
    loop = sks_parse_bool(args[3], "loop", 0);
    if (loop < 0) return NULL;
    kt = key_times_arg(args[0]);
    if (kt == NULL) goto fail;
    values = key_values_arg(args[1], "values", PyArray_DIM(kt, 0), 0);
    if (values == NULL) goto fail;
    ncomp = PyArray_DIM(values, 1);
    times = sks_as_float32(args[2], "times");
    if (times == NULL) goto fail;
    ndim = PyArray_NDIM(times);
    if (sks_check_rank(ndim + 1, "times") < 0) goto fail;
    if (ndim > 0) memcpy(shape, PyArray_DIMS(times), (size_t)ndim * sizeof(npy_intp));
    shape[ndim] = ncomp;
    v0 = (PyArrayObject *)PyArray_SimpleNew(ndim + 1, shape, NPY_FLOAT32);
    if (v0 == NULL) goto fail;
    v1 = (PyArrayObject *)PyArray_SimpleNew(ndim + 1, shape, NPY_FLOAT32);
    if (v1 == NULL) goto fail;
    alpha = (PyArrayObject *)PyArray_SimpleNew(ndim, shape, NPY_FLOAT32);
    if (alpha == NULL) goto fail;
    if (PyArray_SIZE(times) > 0) {
        const sks_track_kernels *k = SKS_KERNELS(track);
        float *o0 = (float *)PyArray_DATA(v0), *o1 = (float *)PyArray_DATA(v1);
        float *ad = (float *)PyArray_DATA(alpha);
        const float *ktd = (const float *)PyArray_DATA(kt), *vd = (const float *)PyArray_DATA(values);
        const float *sd = (const float *)PyArray_DATA(times);
        const size_t nkeys = (size_t)PyArray_DIM(kt, 0), n = (size_t)PyArray_SIZE(times);
        Py_BEGIN_ALLOW_THREADS
        k->segments(o0, o1, ad, ktd, vd, nkeys, (size_t)ncomp, sd, n, loop);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(kt);
    Py_DECREF(values);
    Py_DECREF(times);
    return Py_BuildValue("(NNN)", v0, v1, alpha);
fail:
    Py_XDECREF(kt);
    Py_XDECREF(values);
    Py_XDECREF(times);
    Py_XDECREF(v0);
    Py_XDECREF(v1);
    Py_XDECREF(alpha);
    return NULL;
}

static PyObject *py_track_edges(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *kt = NULL, *values = NULL, *et = NULL, *dir = NULL;
    npy_intp nkeys, count = 0;
    double threshold;
    int step, wrap;
    (void)self;
    if (!sks_check_nargs("track_edges", nargs, 5)) return NULL;
    threshold = PyFloat_AsDouble(args[2]);
    if (threshold == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "threshold: expected a real number, got %s",
                     Py_TYPE(args[2])->tp_name);
        return NULL;
    }
    step = sks_parse_bool(args[3], "step", 0);
    if (step < 0) return NULL;
    wrap = sks_parse_bool(args[4], "wrap", 0);
    if (wrap < 0) return NULL;
    kt = key_times_arg(args[0]);
    if (kt == NULL) goto fail;
    nkeys = PyArray_DIM(kt, 0);
    values = sks_as_float32(args[1], "values");
    if (values == NULL) goto fail;
    if (PyArray_SIZE(values) != nkeys || PyArray_NDIM(values) < 1 || PyArray_NDIM(values) > 2) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(values), PyArray_DIMS(values));
        PyErr_Format(PyExc_ValueError, "values: expected shape (K,) or (K, 1) with K = %ld keys, "
                     "got %s", (long)nkeys, got);
        goto fail;
    }
    et = (PyArrayObject *)PyArray_SimpleNew(1, &nkeys, NPY_FLOAT32);
    if (et == NULL) goto fail;
    dir = (PyArrayObject *)PyArray_SimpleNew(1, &nkeys, NPY_INT8);
    if (dir == NULL) goto fail;
    {
        const sks_track_kernels *k = SKS_KERNELS(track);
        float *etd = (float *)PyArray_DATA(et);
        int8_t *dd = (int8_t *)PyArray_DATA(dir);
        const float *ktd = (const float *)PyArray_DATA(kt), *vd = (const float *)PyArray_DATA(values);
        const float thr = (float)threshold;
        size_t c;
        Py_BEGIN_ALLOW_THREADS
        c = k->edges(etd, dd, ktd, vd, (size_t)nkeys, thr, step, wrap);
        Py_END_ALLOW_THREADS
        count = (npy_intp)c;
    }
    Py_DECREF(kt);
    Py_DECREF(values);
    {
        /* views of the first `count` edges (the arrays keep at most K floats and bytes alive) */
        npy_intp zero = 0;
        PyObject *a = PySequence_GetSlice((PyObject *)et, zero, count);
        PyObject *b = a ? PySequence_GetSlice((PyObject *)dir, zero, count) : NULL;
        Py_DECREF(et);
        Py_DECREF(dir);
        if (b == NULL) {
            Py_XDECREF(a);
            return NULL;
        }
        return Py_BuildValue("(NN)", a, b);
    }
fail:
    Py_XDECREF(kt);
    Py_XDECREF(values);
    Py_XDECREF(et);
    Py_XDECREF(dir);
    return NULL;
}

/* deltas (..., L, 8), weights (L,) or deltas.shape[:-1] -> out (..., 8) */
static PyObject *py_motion_blend(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *deltas = NULL, *w = NULL, *out = NULL;
    npy_intp shape[NPY_MAXDIMS], nlayers;
    int ndim, d, shared;
    (void)self;
    if (!sks_check_nargs("motion_blend", nargs, 3)) return NULL;
    deltas = sks_as_float32(args[0], "deltas");
    if (deltas == NULL) goto fail;
    ndim = PyArray_NDIM(deltas);
    if (ndim < 2 || PyArray_DIM(deltas, ndim - 1) != 8) {
        char got[128];
        sks_format_shape(got, sizeof got, ndim, PyArray_DIMS(deltas));
        PyErr_Format(PyExc_ValueError, "deltas: expected shape (..., L, 8) QTS deltas, got %s", got);
        goto fail;
    }
    nlayers = PyArray_DIM(deltas, ndim - 2);
    w = sks_as_float32(args[1], "weights");
    if (w == NULL) goto fail;
    shared = PyArray_NDIM(w) == 1 && PyArray_DIM(w, 0) == nlayers;
    if (!shared) {
        int same = PyArray_NDIM(w) == ndim - 1;
        for (d = 0; same && d < ndim - 1; d++) same = PyArray_DIM(w, d) == PyArray_DIM(deltas, d);
        if (!same) {
            char got[128], want[128];
            sks_format_shape(got, sizeof got, PyArray_NDIM(w), PyArray_DIMS(w));
            sks_format_shape(want, sizeof want, ndim - 1, PyArray_DIMS(deltas));
            PyErr_Format(PyExc_ValueError, "weights: expected shape (L,) = (%ld,) or "
                         "deltas.shape[:-1] = %s, got %s", (long)nlayers, want, got);
            goto fail;
        }
    }
    for (d = 0; d < ndim - 2; d++) shape[d] = PyArray_DIM(deltas, d);
    shape[ndim - 2] = 8;
    out = sks_prepare_out(args[2], "out", ndim - 1, shape);
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", deltas, "deltas", 0) < 0 ||
        sks_check_overlap(out, "out", w, "weights", 0) < 0)
        goto fail;
    if (PyArray_SIZE(out) > 0) {
        const sks_track_kernels *k = SKS_KERNELS(track);
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(deltas), *wd = (const float *)PyArray_DATA(w);
        const size_t nout = (size_t)(PyArray_SIZE(out) / 8);
        Py_BEGIN_ALLOW_THREADS
        if (nlayers > 0)
            k->motion_blend(o, x, wd, nout, (size_t)nlayers, shared ? 0 : (size_t)nlayers);
        else
            k->motion_blend(o, x, wd, nout, 0, 0);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(deltas);
    Py_DECREF(w);
    return (PyObject *)out;
fail:
    Py_XDECREF(deltas);
    Py_XDECREF(w);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_track_methods[] = {
    {"track_sample", (PyCFunction)(void (*)(void))py_track_sample, METH_FASTCALL,
     "track_sample(key_times, values, tangents, times, interpolation, loop, normalize, out): "
     "see skelsimd.Track.sample"},
    {"track_segments", (PyCFunction)(void (*)(void))py_track_segments, METH_FASTCALL,
     "track_segments(key_times, values, times, loop) -> (v0, v1, alpha): see "
     "skelsimd.Track.sample"},
    {"track_edges", (PyCFunction)(void (*)(void))py_track_edges, METH_FASTCALL,
     "track_edges(key_times, values, threshold, step, wrap) -> (times, direction): see "
     "skelsimd.Track.triggers"},
    {"motion_blend", (PyCFunction)(void (*)(void))py_motion_blend, METH_FASTCALL,
     "motion_blend(deltas, weights, out): see skelsimd.blend_motion"},
    {NULL, NULL, 0, NULL}};
