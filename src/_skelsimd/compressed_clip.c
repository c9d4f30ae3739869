/*
 * compressed_clip.c (glue) -- CompressedClipBase, the C base of skelsimd.CompressedClip: it
 * validates the compressed data once and keeps its parsed view; sample / sample_many /
 * decompress decode it (kernels in src/kernels/compress.c). The encoder's entry points are in
 * compress.c.
 */
#include "args.h"

#include "../kernels/blend.h"
#include "../kernels/compress.h"

#include <math.h>
#include <string.h>

/* --- helpers ------------------------------------------------------------------------------- */

/* out=None is the same as no out. */
static PyObject *out_arg(PyObject *o) { return o == Py_None ? NULL : o; }

/* --- CompressedClipBase ---------------------------------------------------------------------- */

typedef struct cc_object {
    PyObject_HEAD
    PyObject *blob;       /* bytes */
    sks_cc_view view;
    int parsed;
} cc_object;

static PyObject *cc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *blob;
    cc_object *self;
    char err[200];
    int status;
    (void)kwds;
    if (PyTuple_GET_SIZE(args) < 1) {
        PyErr_SetString(PyExc_TypeError, "CompressedClipBase() missing required argument 'data'");
        return NULL;
    }
    blob = PyTuple_GET_ITEM(args, 0);
    if (!PyBytes_Check(blob)) {
        PyErr_Format(PyExc_TypeError, "data: expected bytes, got %s", Py_TYPE(blob)->tp_name);
        return NULL;
    }
    self = (cc_object *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    Py_INCREF(blob);
    self->blob = blob;
    status = sks_cc_parse((const uint8_t *)PyBytes_AS_STRING(blob), (size_t)PyBytes_GET_SIZE(blob),
                          &self->view, err, sizeof err);
    if (status == SKS_CC_NO_MEMORY) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    if (status != SKS_CC_OK) {
        PyErr_Format(PyExc_ValueError, "compressed clip data: %s", err);
        Py_DECREF(self);
        return NULL;
    }
    self->parsed = 1;
    return (PyObject *)self;
}

static void cc_dealloc(PyObject *obj)
{
    cc_object *self = (cc_object *)obj;
    if (self->parsed) sks_cc_view_free(&self->view);
    Py_CLEAR(self->blob);
    Py_TYPE(obj)->tp_free(obj);
}

static int cc_ready(cc_object *self)
{
    if (!self->parsed) {
        PyErr_SetString(PyExc_RuntimeError, "the compressed clip was not initialised");
        return 0;
    }
    return 1;
}

/* t (finite) wrapped into [0, F / rate): with loop=True the clip repeats with period F frames
 * (as Clip.sample(loop=True)). */
static double loop_time(const sks_cc_view *v, double t)
{
    const double period = (double)v->frames / v->sample_rate;
    double u;
    u = fmod(t, period);
    if (u < 0.0) u += period;
    if (u >= period) u = 0.0;
    return u;
}

static PyObject *cc_sample(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    static const char *const names[] = {"t", "out", "loop"};
    cc_object *self = (cc_object *)obj;
    npy_intp shape[2];
    PyArrayObject *out;
    PyObject *a[3];
    double t;
    uint32_t frame;
    float alpha;
    int loop;
    if (!cc_ready(self)) return NULL;
    if (kwnames == NULL && nargs == 1) {
        a[0] = args[0];
        a[1] = a[2] = NULL;
    } else if (sks_method_args("sample", args, nargs, kwnames, names, 3, 3, 1, a) < 0) {
        return NULL;
    }
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "sample() takes at most 2 positional arguments (%zd given)",
                     nargs);
        return NULL;
    }
    args = a;
    loop = sks_parse_bool(a[2], "loop", 0);
    if (loop < 0) return NULL;
    if (PyFloat_CheckExact(args[0])) {
        t = PyFloat_AS_DOUBLE(args[0]);
    } else {
        if (PyBool_Check(args[0]) || !PyNumber_Check(args[0]) || PyComplex_Check(args[0]) ||
            (PyArray_Check(args[0]) && PyArray_NDIM((PyArrayObject *)args[0]) != 0)) {
            PyErr_Format(PyExc_TypeError, "t: expected a real number (seconds), got %s%s",
                         Py_TYPE(args[0])->tp_name,
                         PyArray_Check(args[0]) ? " (use sample_many for arrays)" : "");
            return NULL;
        }
        t = PyFloat_AsDouble(args[0]);
        if (t == -1.0 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {   /* an int beyond double */
                PyErr_Clear();
                PyErr_SetString(PyExc_ValueError, "t: expected a time in seconds, got an int "
                                "beyond the float range");
            }
            return NULL;
        }
    }
    if (t != t) {
        PyErr_SetString(PyExc_ValueError, "t: expected a time in seconds, got nan");
        return NULL;
    }
    shape[0] = self->view.joints;
    shape[1] = 8;
    out = sks_prepare_out(out_arg(a[1]), "out", 2, shape);
    if (out == NULL) return NULL;
    if (loop && !isfinite(t)) {
        PyErr_SetString(PyExc_ValueError, "t: expected a finite time in seconds with loop=True, "
                        "got an infinite one");
        Py_DECREF(out);
        return NULL;
    }
    if (loop) {
        const sks_cc_view *v = &self->view;
        const double p = loop_time(v, t) * v->sample_rate;
        if (p > (double)(v->frames - 1)) {
            /* between the last frame and the period's end: the last frame blending into the
             * first, by nlerp on the shortest arc like the frames within the clip */
            float *o = (float *)PyArray_DATA(out), w = (float)(p - (double)(v->frames - 1));
            float *first = (float *)PyMem_Malloc(sizeof(float) * 8 * (size_t)v->joints);
            uint32_t f0 = 0, f1 = v->frames - 1;
            float a0 = 0.0f;
            if (first == NULL) {
                Py_DECREF(out);
                return PyErr_NoMemory();
            }
            SKS_KERNELS(compress)->sample(v, &f0, &a0, 1, first);
            SKS_KERNELS(compress)->sample(v, &f1, &a0, 1, o);
            SKS_KERNELS(blend)->blend_joints(o, o, 1, first, 1, &w, 0, 1, v->joints, NULL, 0,
                                             SKS_INTERP_NLERP);
            PyMem_Free(first);
            return (PyObject *)out;
        }
        t = p / v->sample_rate;
    }
    sks_cc_position(&self->view, t, &frame, &alpha);
    SKS_KERNELS(compress)->sample(&self->view, &frame, &alpha, 1,
                                                 (float *)PyArray_DATA(out));
    return (PyObject *)out;
}

/* sample_many divided over the pool by times: a chunk finds the frame positions of its times
 * and samples their poses. */
typedef struct sample_job {
    const sks_cc_view *v;
    const double *t;
    float *o;
    uint32_t *frame;
    float *alpha;
} sample_job;

static void sample_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const sample_job *j = (const sample_job *)ctx;
    size_t i;
    (void)slot;
    for (i = begin; i < end; i++) sks_cc_position(j->v, j->t[i], j->frame + i, j->alpha + i);
    SKS_KERNELS(compress)->sample(j->v, j->frame + begin, j->alpha + begin, end - begin,
                                  j->o + begin * j->v->joints * 8);
}

/* decompress divided over the pool by frames. */
static void decompress_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const sample_job *j = (const sample_job *)ctx;
    (void)slot;
    SKS_KERNELS(compress)->decompress(j->v, begin, end - begin, j->o + begin * j->v->joints * 8);
}

static PyObject *cc_sample_many(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                                PyObject *kwnames)
{
    static const char *const names[] = {"times", "out"};
    cc_object *self = (cc_object *)obj;
    npy_intp shape[NPY_MAXDIMS], n, i;
    PyArrayObject *times, *out;
    uint32_t *frame = NULL;
    float *alpha = NULL;
    PyObject *a[2];
    int ndim, d;
    if (!cc_ready(self)) return NULL;
    if (sks_method_args("sample_many", args, nargs, kwnames, names, 2, 2, 1, a) < 0) return NULL;
    args = a;
    times = sks_as_real(args[0], "times", NPY_FLOAT64);
    if (times == NULL) return NULL;
    ndim = PyArray_NDIM(times);
    if (ndim + 2 > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "times: too many dimensions (%d)", ndim);
        Py_DECREF(times);
        return NULL;
    }
    n = PyArray_SIZE(times);
    {
        const double *t = (const double *)PyArray_DATA(times);
        for (i = 0; i < n; i++) {
            if (t[i] != t[i]) {
                PyErr_Format(PyExc_ValueError, "times: expected times in seconds, got nan at flat "
                             "index %zd", (Py_ssize_t)i);
                Py_DECREF(times);
                return NULL;
            }
        }
    }
    for (d = 0; d < ndim; d++) shape[d] = PyArray_DIM(times, d);
    shape[ndim] = self->view.joints;
    shape[ndim + 1] = 8;
    out = sks_prepare_out(out_arg(a[1]), "out", ndim + 2, shape);
    if (out == NULL) {
        Py_DECREF(times);
        return NULL;
    }
    /* out must not share memory with the times given (nor the converted copy): refused before
     * anything is written */
    if ((PyArray_Check(a[0]) &&
         sks_check_overlap(out, "out", (PyArrayObject *)a[0], "times", 0) < 0) ||
        sks_check_overlap(out, "out", times, "times", 0) < 0) {
        Py_DECREF(times);
        Py_DECREF(out);
        return NULL;
    }
    frame = (uint32_t *)PyMem_RawMalloc(sizeof(uint32_t) * (size_t)(n + 1));
    alpha = (float *)PyMem_RawMalloc(sizeof(float) * (size_t)(n + 1));
    if (frame == NULL || alpha == NULL) {
        PyMem_RawFree(frame);
        PyMem_RawFree(alpha);
        Py_DECREF(times);
        Py_DECREF(out);
        return PyErr_NoMemory();
    }
    {
        sample_job j;
        j.v = &self->view;
        j.t = (const double *)PyArray_DATA(times);
        j.o = (float *)PyArray_DATA(out);
        j.frame = frame;
        j.alpha = alpha;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)n, SKS_NS_SAMPLE_JOINT * (double)self->view.joints, sample_chunk,
                         &j);
        Py_END_ALLOW_THREADS
    }
    PyMem_RawFree(frame);
    PyMem_RawFree(alpha);
    Py_DECREF(times);
    return (PyObject *)out;
}

static PyObject *cc_decompress(PyObject *obj, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames)
{
    static const char *const names[] = {"out"};
    cc_object *self = (cc_object *)obj;
    npy_intp shape[3];
    PyArrayObject *out;
    PyObject *a[1];
    if (!cc_ready(self)) return NULL;
    if (sks_method_args("decompress", args, nargs, kwnames, names, 1, 1, 0, a) < 0) return NULL;
    shape[0] = self->view.frames;
    shape[1] = self->view.joints;
    shape[2] = 8;
    out = sks_prepare_out(out_arg(a[0]), "out", 3, shape);
    if (out == NULL) return NULL;
    {
        sample_job j;
        j.v = &self->view;
        j.o = (float *)PyArray_DATA(out);
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)self->view.frames, SKS_NS_SAMPLE_JOINT * (double)self->view.joints,
                         decompress_chunk, &j);
        Py_END_ALLOW_THREADS
    }
    return (PyObject *)out;
}

/* Statistics of the blob: rate histogram (segment-components per bit rate, and keys), track
 * kinds, segments, key bits. */
static PyObject *cc_stats(PyObject *obj, PyObject *noargs)
{
    cc_object *self = (cc_object *)obj;
    const sks_cc_view *v = &self->view;
    unsigned long long hist[SKS_CC_MAX_BITS + 1] = {0}, keys[SKS_CC_MAX_BITS + 1] = {0};
    unsigned long long kinds[3][3] = {{0}}, key_bits = 0;
    PyObject *h = NULL, *hk = NULL, *res = NULL;
    uint32_t g, c, j;
    int r, k;
    (void)noargs;
    if (!cc_ready(self)) return NULL;
    for (g = 0; g < v->segments; g++) {
        const uint8_t *seg = v->data + sks_cc_u32(v->table + 8 * (size_t)g);
        const uint32_t n = g + 1 == v->segments ? v->frames - g * v->segment_length
                                                : v->segment_length;
        for (c = 0; c < v->components; c++) {
            hist[seg[3 * c] & 31u]++;
            keys[seg[3 * c] & 31u] += n;
        }
        key_bits += (unsigned long long)n * sks_cc_u32(v->table + 8 * (size_t)g + 4);
    }
    for (j = 0; j < v->joints; j++)
        for (k = 0; k < 3; k++) kinds[k][v->joint[j].kind[k]]++;
    h = PyDict_New();
    hk = PyDict_New();
    if (h == NULL || hk == NULL) goto done;
    for (r = 0; r <= (int)SKS_CC_MAX_BITS; r++) {
        PyObject *key, *val;
        if (hist[r] == 0) continue;
        key = PyLong_FromLong(r);
        val = PyLong_FromUnsignedLongLong(hist[r]);
        if (key == NULL || val == NULL || PyDict_SetItem(h, key, val) < 0) {
            Py_XDECREF(key);
            Py_XDECREF(val);
            goto done;
        }
        Py_DECREF(val);
        val = PyLong_FromUnsignedLongLong(keys[r]);
        if (val == NULL || PyDict_SetItem(hk, key, val) < 0) {
            Py_DECREF(key);
            Py_XDECREF(val);
            goto done;
        }
        Py_DECREF(key);
        Py_DECREF(val);
    }
    res = Py_BuildValue(
        "{s:O,s:O,s:{s:K,s:K,s:K},s:{s:K,s:K,s:K},s:{s:K,s:K,s:K},s:I,s:I,s:I,s:K}",
        "bit_rates", h, "bit_rates_keys", hk,
        "rotation", "default", kinds[0][0], "constant", kinds[0][1], "animated", kinds[0][2],
        "translation", "default", kinds[1][0], "constant", kinds[1][1], "animated", kinds[1][2],
        "scale", "default", kinds[2][0], "constant", kinds[2][1], "animated", kinds[2][2],
        "segments", v->segments, "segment_length", v->segment_length, "components",
        v->components, "key_bits", key_bits);
done:
    Py_XDECREF(h);
    Py_XDECREF(hk);
    return res;
}

static PyObject *cc_get_data(PyObject *obj, void *closure)
{
    cc_object *self = (cc_object *)obj;
    (void)closure;
    if (!cc_ready(self)) return NULL;
    Py_INCREF(self->blob);
    return self->blob;
}

static PyObject *cc_get_nbytes(PyObject *obj, void *closure)
{
    cc_object *self = (cc_object *)obj;
    (void)closure;
    if (!cc_ready(self)) return NULL;
    return PyLong_FromSsize_t(PyBytes_GET_SIZE(self->blob));
}

static PyObject *cc_get_u32(PyObject *obj, void *closure)
{
    cc_object *self = (cc_object *)obj;
    const char *which = (const char *)closure;
    if (!cc_ready(self)) return NULL;
    switch (which[0]) {
    case 'F': return PyLong_FromUnsignedLong(self->view.frames);
    case 'J': return PyLong_FromUnsignedLong(self->view.joints);
    case 'L': return PyLong_FromUnsignedLong(self->view.segment_length);
    default: return PyLong_FromUnsignedLong(self->view.segments);
    }
}

static PyObject *cc_get_rate(PyObject *obj, void *closure)
{
    cc_object *self = (cc_object *)obj;
    (void)closure;
    if (!cc_ready(self)) return NULL;
    return PyFloat_FromDouble(self->view.sample_rate);
}

static PyGetSetDef cc_getset[] = {
    {"_data", cc_get_data, NULL, "the compressed data (bytes)", NULL},
    {"nbytes", cc_get_nbytes, NULL,
     "nbytes: size in bytes of the compressed animation data (everything needed to sample a "
     "local pose except joint names and hierarchy)", NULL},
    {"num_frames", cc_get_u32, NULL, "num_frames: frames of the raw clip", "F"},
    {"num_joints", cc_get_u32, NULL, "num_joints: joints per pose", "J"},
    {"segment_length", cc_get_u32, NULL, "segment_length: frames per segment", "L"},
    {"num_segments", cc_get_u32, NULL, "num_segments: segments of the clip", "G"},
    {"sample_rate", cc_get_rate, NULL, "sample_rate: frames per second of the raw clip", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef cc_methods[] = {
    {"sample", (PyCFunction)(void (*)(void))cc_sample, METH_FASTCALL | METH_KEYWORDS,
     "sample($self, t, out=None, *, loop=False)\n--\n\n"
     "The local QTS pose (J, 8) float32 at time t seconds (frame i is at i / sample_rate),\n"
     "decoded and interpolated between the two nearest frames (rotations by nlerp on the\n"
     "shortest arc, translations and scales linearly). Times before the first frame or after\n"
     "the last one are clamped to them; with loop=True the clip repeats with period\n"
     "num_frames / sample_rate (the last frame blends into the first). out: a C-contiguous\n"
     "float32 (J, 8) array to write, else a new one."},
    {"sample_many", (PyCFunction)(void (*)(void))cc_sample_many, METH_FASTCALL | METH_KEYWORDS,
     "sample_many($self, times, out=None)\n--\n\n"
     "The poses ``(*times.shape, J, 8)`` float32 at every time of times (seconds, any shape), as\n"
     "sample() gives them (clamped to the first and last frames). out: a C-contiguous float32\n"
     "array of that shape, not sharing memory with times (ValueError before anything is\n"
     "written)."},
    {"decompress", (PyCFunction)(void (*)(void))cc_decompress, METH_FASTCALL | METH_KEYWORDS,
     "decompress($self, out=None)\n--\n\n"
     "Every frame of the clip decoded: (num_frames, J, 8) float32 local QTS poses, each within\n"
     "the precision of the raw clip. out: a C-contiguous float32 array of that shape."},
    {"_stats", cc_stats, METH_NOARGS, "_stats() -> dict: rate histogram and track kinds."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject cc_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skelsimd._core.CompressedClipBase",
    .tp_basicsize = sizeof(cc_object),
    .tp_dealloc = cc_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "CompressedClipBase(data): validated compressed clip data and its decoder (the C "
              "base of skelsimd.CompressedClip).",
    .tp_getset = cc_getset,
    .tp_methods = cc_methods,
    .tp_new = cc_new,
};

int sks_compress_add_types(PyObject *module)
{
    return sks_add_type(module, &cc_type, "CompressedClipBase");
}
