/*
 * additive.c (glue) -- Python entry points of the additive animation family. The public
 * wrappers with their documentation are in skelsimd/additive.py; kernels in
 * src/kernels/additive.c.
 *
 * Positional arguments only:
 *   make_additive(x, ref, frames, out)       x (..., J, 8) of P poses, ref (R, J, 8), R frames = P
 *   apply_additive(base, delta, weight, mask, out)
 *                                            base (..., J, 8), delta (..., J, 8) of as many poses
 *                                            as base or of one pose, weight a number in [-1, 1],
 *                                            mask None or (J,) in [0, 1]
 */
#include "args.h"

#include <math.h>
#include <stdio.h>

#include "../kernels/additive.h"

/* The number of poses of a (..., J, 8) array and J (checked: ndim >= 2, last dim 8). */
static int pose_layout(PyArrayObject *a, const char *name, npy_intp *npose, npy_intp *njoints)
{
    static const npy_intp eight = 8;
    if (sks_check_shape(a, name, 2, &eight, 1, "(..., J, 8)") < 0) return -1;
    *njoints = PyArray_DIM(a, PyArray_NDIM(a) - 2);
    *npose = *njoints ? PyArray_SIZE(a) / (*njoints * 8) : 0;
    if (*njoints == 0) {
        int d;
        *npose = 1;
        for (d = 0; d < PyArray_NDIM(a) - 2; d++) *npose *= PyArray_DIM(a, d);
    }
    return 0;
}

/* make_additive and apply_additive divided over the pool by poses [begin, end). */
typedef struct additive_job {
    const sks_additive_kernels *k;
    float *o;
    const float *x;       /* local / base */
    const float *other;   /* reference / delta */
    const float *mask;
    size_t frames, njoints, delta_step;
    float weight;
} additive_job;

/* Poses [begin, end) of make_additive: each run of `frames` poses against its reference. */
static void make_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const additive_job *j = (const additive_job *)ctx;
    const size_t pose = j->njoints * 8;
    size_t p = begin;
    (void)slot;
    while (p < end) {
        const size_t r = p / j->frames, stop = (r + 1) * j->frames < end ? (r + 1) * j->frames : end;
        j->k->make_additive(j->o + p * pose, j->x + p * pose, j->other + r * pose, 1, stop - p,
                            j->njoints);
        p = stop;
    }
}

static void apply_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const additive_job *j = (const additive_job *)ctx;
    const size_t pose = j->njoints * 8;
    (void)slot;
    j->k->apply_additive(j->o + begin * pose, j->x + begin * pose,
                         j->other + begin * j->delta_step * pose, j->delta_step, end - begin,
                         j->njoints, j->weight, j->mask);
}

static PyObject *py_make_additive(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *x = NULL, *ref = NULL, *out = NULL;
    npy_intp npose, njoints, nref, rj, frames;
    (void)self;
    if (!sks_check_nargs("make_additive", nargs, 4)) return NULL;
    frames = PyLong_AsSsize_t(args[2]);
    if (frames == -1 && PyErr_Occurred()) return NULL;
    x = sks_as_float32(args[0], "local");
    if (x == NULL || pose_layout(x, "local", &npose, &njoints) < 0) goto fail;
    ref = sks_as_float32(args[1], "reference");
    if (ref == NULL || pose_layout(ref, "reference", &nref, &rj) < 0) goto fail;
    if (rj != njoints || frames < 0 || nref * frames != npose) {
        PyErr_Format(PyExc_ValueError, "reference: expected %ld poses of %ld joints for %ld poses "
                     "of local in runs of %ld, got %ld poses of %ld joints", (long)(frames ? npose / frames : 0),
                     (long)njoints, (long)npose, (long)frames, (long)nref, (long)rj);
        goto fail;
    }
    out = sks_prepare_out(args[3], "out", PyArray_NDIM(x), PyArray_DIMS(x));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", x, "local", 1) < 0) goto fail;
    if (sks_check_overlap(out, "out", ref, "reference", 0) < 0) goto fail;
    if (PyArray_SIZE(out) > 0) {
        additive_job j;
        j.k = SKS_KERNELS(additive);
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(x);
        j.other = (const float *)PyArray_DATA(ref);
        j.frames = (size_t)frames;
        j.njoints = (size_t)njoints;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)npose, SKS_NS_INTERP * (double)njoints, make_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(x);
    Py_DECREF(ref);
    return (PyObject *)out;
fail:
    Py_XDECREF(x);
    Py_XDECREF(ref);
    Py_XDECREF(out);
    return NULL;
}

static PyObject *py_apply_additive(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *base = NULL, *delta = NULL, *mask = NULL, *out = NULL;
    npy_intp npose, njoints, dpose, dj, j;
    double w;
    (void)self;
    if (!sks_check_nargs("apply_additive", nargs, 5)) return NULL;
    if (!PyFloat_Check(args[2]) && !PyLong_Check(args[2]) && !PyArray_IsScalar(args[2], Floating) &&
        !PyArray_IsScalar(args[2], Integer)) {
        PyErr_Format(PyExc_TypeError, "weight: expected a number in [-1, 1], got %s",
                     Py_TYPE(args[2])->tp_name);
        return NULL;
    }
    w = PyFloat_AsDouble(args[2]);
    if (w == -1.0 && PyErr_Occurred()) return NULL;
    if (!(w >= -1.0 && w <= 1.0)) {
        PyErr_Format(PyExc_ValueError, "weight: expected a number in [-1, 1], got %R", args[2]);
        return NULL;
    }
    base = sks_as_float32(args[0], "base");
    if (base == NULL || pose_layout(base, "base", &npose, &njoints) < 0) goto fail;
    delta = sks_as_float32(args[1], "delta");
    if (delta == NULL || pose_layout(delta, "delta", &dpose, &dj) < 0) goto fail;
    if (dj != njoints || !(dpose == npose || dpose == 1)) {
        char got[256], want[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(delta), PyArray_DIMS(delta));
        sks_format_shape(want, sizeof want, PyArray_NDIM(base), PyArray_DIMS(base));
        PyErr_Format(PyExc_ValueError, "delta: expected the shape of base %s or one pose (%ld, 8), "
                     "got %s", want, (long)njoints, got);
        goto fail;
    }
    if (args[3] != Py_None) {
        const float *m;
        mask = sks_as_float32(args[3], "mask");
        if (mask == NULL) goto fail;
        if (PyArray_NDIM(mask) != 1 || PyArray_DIM(mask, 0) != njoints) {
            char got[256];
            sks_format_shape(got, sizeof got, PyArray_NDIM(mask), PyArray_DIMS(mask));
            PyErr_Format(PyExc_ValueError, "mask: expected shape (J,) = (%ld,), got %s",
                         (long)njoints, got);
            goto fail;
        }
        m = (const float *)PyArray_DATA(mask);
        for (j = 0; j < njoints; j++) {
            if (!(m[j] >= 0.0f && m[j] <= 1.0f)) {
                PyErr_Format(PyExc_ValueError, "mask[%ld] = %g: expected per-joint weights in [0, 1]",
                             (long)j, (double)m[j]);
                goto fail;
            }
        }
    }
    out = sks_prepare_out(args[4], "out", PyArray_NDIM(base), PyArray_DIMS(base));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", base, "base", 1) < 0) goto fail;
    if (sks_check_overlap(out, "out", delta, "delta", 0) < 0) goto fail;
    if (mask && sks_check_overlap(out, "out", mask, "mask", 0) < 0) goto fail;
    if (PyArray_SIZE(out) > 0) {
        additive_job j;
        j.k = SKS_KERNELS(additive);
        j.o = (float *)PyArray_DATA(out);
        j.x = (const float *)PyArray_DATA(base);
        j.other = (const float *)PyArray_DATA(delta);
        j.mask = mask ? (const float *)PyArray_DATA(mask) : NULL;
        j.delta_step = dpose == npose && npose > 1 ? 1 : 0;
        j.njoints = (size_t)njoints;
        j.weight = (float)w;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)npose, SKS_NS_INTERP * (double)njoints, apply_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(base);
    Py_DECREF(delta);
    Py_XDECREF(mask);
    return (PyObject *)out;
fail:
    Py_XDECREF(base);
    Py_XDECREF(delta);
    Py_XDECREF(mask);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_additive_methods[] = {
    {"make_additive", (PyCFunction)(void (*)(void))py_make_additive, METH_FASTCALL,
     "make_additive(local, reference, frames, out): see skelsimd.make_additive"},
    {"apply_additive", (PyCFunction)(void (*)(void))py_apply_additive, METH_FASTCALL,
     "apply_additive(base, delta, weight, mask, out): see skelsimd.apply_additive"},
    {NULL, NULL, 0, NULL}};
