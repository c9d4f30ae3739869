/*
 * compress.c (glue) -- Python entry points of the animation-clip encoder. The public API with
 * its documentation is skelsimd/compress.py; kernels in src/kernels/compress.c (format,
 * decoder, error) and src/kernels/compress_search.c (encoder); the decoder and sampler
 * (CompressedClipBase) are in compressed_clip.c.
 *
 *   _compress(local, parents, sample_rate, precision, shell_distance, segment_length)
 *       -> (blob bytes, max_error, repaired_segments)
 *   clip_error(raw, decoded, parents, shell_distance, per_joint) -> float or (J,) float64
 */
#include "args.h"
#include "parallel.h"

#include "../kernels/compress.h"

#include <math.h>
#include <stdio.h>

/* --- helpers ------------------------------------------------------------------------------- */

/* A finite double from a Python number; `what` names it in messages. positive: > 0 required;
 * nonneg: >= 0 required. */
static int parse_real(PyObject *obj, const char *what, double *out, int positive, int nonneg)
{
    double v;
    if (obj == NULL || PyBool_Check(obj) || !PyNumber_Check(obj) || PyComplex_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a real number, got %s", what,
                     obj ? Py_TYPE(obj)->tp_name : "nothing");
        return -1;
    }
    v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) {
        const int overflow = PyErr_ExceptionMatches(PyExc_OverflowError);
        PyErr_Clear();
        if (overflow)    /* an int beyond double */
            PyErr_Format(PyExc_ValueError, "%s: expected a finite number, got an int beyond "
                         "the float range", what);
        else
            PyErr_Format(PyExc_TypeError, "%s: expected a real number, got %s", what,
                         Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (!isfinite(v) || (positive && !(v > 0.0)) || (nonneg && !(v >= 0.0))) {
        PyErr_Format(PyExc_ValueError, "%s: expected a finite number%s, got %R", what,
                     positive ? " > 0" : nonneg ? " >= 0" : "", obj);
        return -1;
    }
    *out = v;
    return 0;
}

/* Index of the first non-finite float, or -1. */
static npy_intp first_nonfinite(const float *x, npy_intp n)
{
    npy_intp i;
    for (i = 0; i < n; i++) {
        if (!isfinite(x[i])) return i;
    }
    return -1;
}

/* --- _compress ------------------------------------------------------------------------------ */

static PyObject *py_compress(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *in = NULL;
    sks_parents parents = {NULL, NULL, NULL, 0};
    double rate, precision, shell;
    long seg;
    npy_intp F, J, bad;
    sks_cc_encode_params p;
    sks_cc_encode_result r;
    int status;
    PyObject *blob, *result;
    (void)self;
    if (!sks_check_nargs("_compress", nargs, 6)) return NULL;
    in = sks_as_float32(args[0], "local");
    if (in == NULL) return NULL;
    if ((PyObject *)in == args[0]) {
        /* the caller's own array: a private copy, so that no other thread can change it while
         * the encoder runs without the GIL */
        PyArrayObject *copy = (PyArrayObject *)PyArray_NewCopy(in, NPY_CORDER);
        Py_DECREF(in);
        if (copy == NULL) return NULL;
        in = copy;
    }
    if (PyArray_NDIM(in) != 3 || PyArray_DIM(in, 2) != 8) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(in), PyArray_DIMS(in));
        PyErr_Format(PyExc_ValueError, "local: expected shape (F, J, 8) (QTS poses), got %s", got);
        goto fail;
    }
    F = PyArray_DIM(in, 0);
    J = PyArray_DIM(in, 1);
    if (F < 1 || F > 0x7fffffff) {
        PyErr_Format(PyExc_ValueError, "local: expected 1 to 2147483647 frames, got %zd",
                     (Py_ssize_t)F);
        goto fail;
    }
    if (J < 1 || J > (npy_intp)SKS_CC_MAX_JOINTS) {
        PyErr_Format(PyExc_ValueError, "local: expected 1 to %u joints, got %zd",
                     SKS_CC_MAX_JOINTS, (Py_ssize_t)J);
        goto fail;
    }
    bad = first_nonfinite((const float *)PyArray_DATA(in), PyArray_SIZE(in));
    if (bad >= 0) {
        const float v = ((const float *)PyArray_DATA(in))[bad];
        PyErr_Format(PyExc_ValueError,
                     "local[%zd, %zd, %zd] = %s: expected finite poses (frame %zd, joint %zd)",
                     (Py_ssize_t)(bad / (J * 8)), (Py_ssize_t)(bad / 8 % J), (Py_ssize_t)(bad % 8),
                     v != v ? "nan" : v > 0 ? "inf" : "-inf", (Py_ssize_t)(bad / (J * 8)),
                     (Py_ssize_t)(bad / 8 % J));
        goto fail;
    }
    if (sks_parse_parents(args[1], J, "local.shape[1]", &parents) < 0) goto fail;
    if (parse_real(args[2], "sample_rate", &rate, 1, 0) < 0) goto fail;
    if (!isfinite(1.0 / rate) || !isfinite((double)(F - 1) / rate)) {
        PyErr_Format(PyExc_ValueError, "sample_rate: expected a rate whose frame time and "
                     "duration (%zd frames) are finite, got %R", (Py_ssize_t)F, args[2]);
        goto fail;
    }
    if (parse_real(args[3], "precision", &precision, 1, 0) < 0) goto fail;
    if (parse_real(args[4], "shell_distance", &shell, 0, 1) < 0) goto fail;
    if (PyBool_Check(args[5]) || !PyLong_Check(args[5])) {
        PyErr_Format(PyExc_TypeError, "segment_length: expected an int, got %s",
                     Py_TYPE(args[5])->tp_name);
        goto fail;
    }
    {
        int overflow = 0;
        seg = PyLong_AsLongAndOverflow(args[5], &overflow);
        if (seg == -1 && PyErr_Occurred()) goto fail;
        if (overflow) seg = overflow < 0 ? LONG_MIN : LONG_MAX;   /* reported as out of range */
    }
    if (seg < 1 || seg > (long)SKS_CC_MAX_SEGMENT) {
        PyErr_Format(PyExc_ValueError, "segment_length: expected 1 to %u frames, got %ld",
                     SKS_CC_MAX_SEGMENT, seg);
        goto fail;
    }
    p.kernels = SKS_KERNELS(compress);
    p.local = (const float *)PyArray_DATA(in);
    p.parents = parents.data;
    p.frames = (uint32_t)F;
    p.joints = (uint32_t)J;
    p.sample_rate = rate;
    p.precision = precision;
    p.shell = shell;
    p.segment_length = (uint32_t)seg;
    p.ns_search = SKS_NS_COMPRESS_JOINT;   /* divided over the pool (compress_search.c) */
    p.ns_pass = SKS_NS_ERROR_JOINT;
    Py_BEGIN_ALLOW_THREADS
    status = sks_cc_encode(&p, &r);
    Py_END_ALLOW_THREADS
    sks_parents_release(&parents);
    Py_DECREF(in);
    switch (status) {
    case SKS_CC_OK:
        break;
    case SKS_CC_UNREACHABLE: {
        char *a = PyOS_double_to_string(precision, 'r', 0, 0, NULL);
        char b[64];
        snprintf(b, sizeof b, "%.6g", r.best_possible);
        PyErr_Format(PyExc_ValueError,
                     "precision=%s: below what float32 poses can reproduce for this clip (the "
                     "highest rates reach an error of %s)", a ? a : "?", b);
        PyMem_Free(a);
        return NULL;
    }
    case SKS_CC_TOO_LARGE:
        PyErr_SetString(PyExc_ValueError,
                        "local: the compressed clip would exceed 4 GiB (split the clip)");
        return NULL;
    default:
        return PyErr_NoMemory();
    }
    blob = PyBytes_FromStringAndSize((const char *)r.data, (Py_ssize_t)r.size);
    free(r.data);
    if (blob == NULL) return NULL;
    result = Py_BuildValue("(Ndk)", blob, r.max_error, (unsigned long)r.repaired_segments);
    return result;
fail:
    sks_parents_release(&parents);
    Py_XDECREF(in);
    return NULL;
}

/* --- clip_error ------------------------------------------------------------------------------ */

/* clip_error divided over the pool by poses: each chunk keeps the maxima of its poses (its own J
 * doubles, from zero), folded after the join in chunk order (sks_cc_fold_max_error2), so the
 * result is that of one pass at every thread count. */
typedef struct error_job {
    const double *raw, *dec;
    const int32_t *parents;
    size_t joints, chunk_units;
    double shell, *scratch, *maxima; /* scratch: 25 J per slot; maxima: J per chunk */
} error_job;

static void error_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const error_job *j = (const error_job *)ctx;
    const size_t at = begin * j->joints * 8;
    sks_cc_max_error2(j->raw + at, j->dec + at, j->parents, end - begin, j->joints, j->shell,
                      j->maxima + (begin / j->chunk_units) * j->joints,
                      j->scratch + slot * 25 * j->joints);
}

static PyObject *py_clip_error(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const npy_intp qts = 8;
    PyArrayObject *raw = NULL, *dec = NULL, *per = NULL;
    sks_parents parents = {NULL, NULL, NULL, 0};
    double shell, overall;
    double *scratch = NULL;
    npy_intp J, poses;
    int per_joint;
    (void)self;
    if (!sks_check_nargs("clip_error", nargs, 5)) return NULL;
    raw = sks_as_real(args[0], "raw_local", NPY_FLOAT64);
    if (raw == NULL) goto fail;
    dec = sks_as_real(args[1], "decoded_local", NPY_FLOAT64);
    if (dec == NULL) goto fail;
    if (sks_check_shape(raw, "raw_local", 2, &qts, 1, "(..., J, 8)") < 0) goto fail;
    if (PyArray_NDIM(dec) != PyArray_NDIM(raw) ||
        !PyArray_CompareLists(PyArray_DIMS(dec), PyArray_DIMS(raw), PyArray_NDIM(raw))) {
        char a[128], b[128];
        sks_format_shape(a, sizeof a, PyArray_NDIM(raw), PyArray_DIMS(raw));
        sks_format_shape(b, sizeof b, PyArray_NDIM(dec), PyArray_DIMS(dec));
        PyErr_Format(PyExc_ValueError, "decoded_local: expected the shape of raw_local %s, got %s",
                     a, b);
        goto fail;
    }
    J = PyArray_DIM(raw, PyArray_NDIM(raw) - 2);
    if (sks_parse_parents(args[2], J, "raw_local.shape[-2]", &parents) < 0) goto fail;
    if (parse_real(args[3], "shell_distance", &shell, 0, 1) < 0) goto fail;
    per_joint = sks_parse_bool(args[4], "per_joint", 0);
    if (per_joint < 0) goto fail;
    poses = J > 0 ? PyArray_SIZE(raw) / (J * 8) : 0;
    per = (PyArrayObject *)PyArray_SimpleNew(1, &J, NPY_FLOAT64);
    if (per == NULL) goto fail;
    {
        const sks_pool_plan plan = sks_parallel_plan((size_t)poses,
                                                     SKS_NS_ERROR_JOINT * (double)J);
        const size_t slot_doubles = 25 * (size_t)J + 1, chunks = plan.chunks ? plan.chunks : 1;
        error_job j;
        size_t c, k;
        scratch = (double *)PyMem_RawCalloc(plan.slots * slot_doubles + chunks * (size_t)J + 1,
                                            sizeof(double));
        if (scratch == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        j.raw = (const double *)PyArray_DATA(raw);
        j.dec = (const double *)PyArray_DATA(dec);
        j.parents = parents.data;
        j.joints = (size_t)J;
        j.chunk_units = plan.chunk_units ? plan.chunk_units : 1;
        j.shell = shell;
        j.scratch = scratch;
        j.maxima = scratch + plan.slots * slot_doubles;   /* zeroed by the calloc */
        {
            double *o = (double *)PyArray_DATA(per);
            Py_BEGIN_ALLOW_THREADS
            if (poses > 0 && J > 0) sks_pool_run(&plan, error_chunk, &j);
            for (k = 0; k < (size_t)J; k++) o[k] = 0.0;
            for (c = 0; c < chunks; c++) sks_cc_fold_max_error2(o, j.maxima + c * (size_t)J, (size_t)J);
            overall = sks_cc_finish_clip_error(o, (size_t)J);
            Py_END_ALLOW_THREADS
        }
    }
    PyMem_RawFree(scratch);
    sks_parents_release(&parents);
    Py_DECREF(raw);
    Py_DECREF(dec);
    if (per_joint) return (PyObject *)per;
    Py_DECREF(per);
    return PyFloat_FromDouble(overall);
fail:
    PyMem_RawFree(scratch);
    sks_parents_release(&parents);
    Py_XDECREF(raw);
    Py_XDECREF(dec);
    Py_XDECREF(per);
    return NULL;
}

PyMethodDef sks_compress_methods[] = {
    {"_compress", (PyCFunction)(void (*)(void))py_compress, METH_FASTCALL,
     "_compress(local, parents, sample_rate, precision, shell_distance, segment_length) -> "
     "(data, max_error, repaired_segments): see skelsimd.compress"},
    SKS_METHOD(clip_error, "(raw, decoded, parents, shell_distance, per_joint)"),
    {NULL, NULL, 0, NULL}};
