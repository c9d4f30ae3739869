/*
 * retarget.c (glue) -- the Python entry point of the retargeting remap; kernel in
 * src/kernels/retarget.c (formula, order, bound), the public Retargeter in skelsimd/retarget.py.
 *
 *   retarget_remap(source_world, src_index, offsets, target_parents, target_rest, placed,
 *                  out=None)
 *     source_world (..., Js, 8) float32 world QTS joints, src_index (Jt,) integers in [-1, Js),
 *     offsets (Jt, 4), target_parents (Jt,) or a Skeleton, target_rest (Jt, 8), placed (Jt,)
 *     bool or integers -> out (..., Jt, 8) float32, the target's local QTS joints.
 *
 * Every argument is checked before anything is written: shapes and dtypes in argument order,
 * out (no overlap with an input: the kernel reads source joints in any order), then every
 * value of source_world finite (scanned with the GIL released, before the kernel runs).
 * src_index and placed are copied into the call's scratch and validated there (the kernel
 * reads the copies: another thread cannot change them under it).
 */
#include "args.h"

#include "../kernels/retarget.h"

#include <stdio.h>
#include <string.h>

static const char *const arg_names[] = {"source_world", "src_index", "offsets", "target_parents",
                                        "target_rest", "placed", "out"};

/* A float32 operand of exactly shape (jt, width) (not broadcast: one row per target joint). */
static PyArrayObject *per_joint_floats(PyObject *obj, const char *name, npy_intp jt,
                                       npy_intp width)
{
    PyArrayObject *arr = sks_as_float32(obj, name);
    if (arr == NULL) return NULL;
    if (PyArray_NDIM(arr) != 2 || PyArray_DIM(arr, 0) != jt || PyArray_DIM(arr, 1) != width) {
        char got[128];
        sks_format_shape(got, sizeof got, PyArray_NDIM(arr), PyArray_DIMS(arr));
        PyErr_Format(PyExc_ValueError, "%s: expected shape (%ld, %ld) (Jt = %ld from "
                     "src_index.shape[0]), got %s", name, (long)jt, (long)width, (long)jt, got);
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* ValueError "<name>: expected shape (Jt,) ..." unless arr is 1-D with jt entries (jt < 0:
 * any length >= 1, arr is src_index). */
static int check_per_joint_1d(PyArrayObject *arr, const char *name, npy_intp jt)
{
    char got[128];
    if (PyArray_NDIM(arr) == 1 && (jt < 0 ? PyArray_DIM(arr, 0) >= 1 : PyArray_DIM(arr, 0) == jt))
        return 0;
    sks_format_shape(got, sizeof got, PyArray_NDIM(arr), PyArray_DIMS(arr));
    if (jt < 0) {
        PyErr_Format(PyExc_ValueError, "%s: expected shape (Jt,) with Jt >= 1 (one source joint "
                     "or -1 per target joint), got %s", name, got);
    } else {
        PyErr_Format(PyExc_ValueError, "%s: expected shape (%ld,) (Jt = %ld from "
                     "src_index.shape[0]), got %s", name, (long)jt, (long)jt, got);
    }
    return -1;
}

/* placed as one byte (0 or 1) per target joint into copy: bool or integer dtypes. */
static int parse_placed(PyObject *obj, npy_intp jt, unsigned char *copy)
{
    PyArrayObject *arr = sks_any_array(obj, "placed", "a 1-D bool array"), *flags;
    PyArray_Descr *d;
    if (arr == NULL) return -1;
    d = PyArray_DESCR(arr);
    if (!(d->kind == 'b' || d->kind == 'i' || d->kind == 'u')) {
        sks_wrong_dtype("placed", d, "a 1-D bool (or integer) array");
        Py_DECREF(arr);
        return -1;
    }
    if (check_per_joint_1d(arr, "placed", jt) < 0) {
        Py_DECREF(arr);
        return -1;
    }
    flags = (PyArrayObject *)PyArray_FromAny((PyObject *)arr, PyArray_DescrFromType(NPY_BOOL), 1, 1,
                                             NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST, NULL);
    Py_DECREF(arr);
    if (flags == NULL) return -1;
    memcpy(copy, PyArray_DATA(flags), (size_t)jt);
    Py_DECREF(flags);
    return 0;
}

/* The parents' messages name "parents": this argument is target_parents. */
static void rename_parents_error(void)
{
    PyObject *type, *value, *tb, *msg;
    const char *text;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    msg = value != NULL ? PyObject_Str(value) : NULL;
    text = msg != NULL ? PyUnicode_AsUTF8(msg) : NULL;
    if (text != NULL && strncmp(text, "parents", 7) == 0) {
        PyErr_Format(type, "target_%s", text);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    } else {
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
    }
    Py_XDECREF(msg);
}

/* ValueError naming the first non-finite element of source_world (flat index bad). */
static void nonfinite_error(PyArrayObject *src, npy_intp bad)
{
    const int ndim = PyArray_NDIM(src);
    const float v = ((const float *)PyArray_DATA(src))[bad];
    npy_intp index[NPY_MAXDIMS], flat = bad;
    char where[256], frame[256];
    size_t used = 0, fused = 0;
    int d;
    for (d = ndim - 1; d >= 0; d--) {
        index[d] = flat % PyArray_DIM(src, d);
        flat /= PyArray_DIM(src, d);
    }
    where[0] = frame[0] = '\0';
    for (d = 0; d < ndim && used < sizeof where; d++)
        used += (size_t)snprintf(where + used, sizeof where - used, d ? ", %ld" : "%ld",
                                 (long)index[d]);
    for (d = 0; d < ndim - 2 && fused < sizeof frame; d++)
        fused += (size_t)snprintf(frame + fused, sizeof frame - fused, d ? ", %ld" : "%ld",
                                  (long)index[d]);
    if (ndim == 2) {
        PyErr_Format(PyExc_ValueError, "source_world[%s] = %s: expected finite world joints "
                     "(joint %ld)", where, v != v ? "nan" : v > 0 ? "inf" : "-inf",
                     (long)index[0]);
    } else {
        PyErr_Format(PyExc_ValueError, "source_world[%s] = %s: expected finite world joints "
                     "(frame %s%s%s, joint %ld)", where, v != v ? "nan" : v > 0 ? "inf" : "-inf",
                     ndim > 3 ? "(" : "", frame, ndim > 3 ? ")" : "", (long)index[ndim - 2]);
    }
}

static PyObject *py_retarget_remap(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                                   PyObject *kwnames)
{
    PyObject *v[7];
    PyArrayObject *src = NULL, *index = NULL, *offsets = NULL, *rest = NULL, *out = NULL;
    sks_parents parents = {NULL, NULL, NULL, 0};
    npy_intp js, jt, shape[NPY_MAXDIMS], bad = -1, j;
    int ndim, d;
    char *scratch = NULL;
    int32_t *src_index;
    unsigned char *placed;
    (void)self;
    if (sks_method_args("retarget_remap", args, nargs, kwnames, arg_names, 7, 7, 6, v) < 0)
        return NULL;
    src = sks_as_float32(v[0], "source_world");
    if (src == NULL) goto fail;
    {
        static const npy_intp qts = 8;
        if (sks_check_shape(src, "source_world", 2, &qts, 1, "(..., Js, 8)") < 0) goto fail;
    }
    ndim = PyArray_NDIM(src);
    js = PyArray_DIM(src, ndim - 2);
    if (js < 1) {
        PyErr_SetString(PyExc_ValueError, "source_world: expected shape (..., Js, 8) with "
                        "Js >= 1 source joints, got Js = 0");
        goto fail;
    }
    index = sks_as_int32(v[1], "src_index");
    if (index == NULL) goto fail;
    if (check_per_joint_1d(index, "src_index", -1) < 0) goto fail;
    jt = PyArray_DIM(index, 0);
    /* the private copies of src_index and placed, then the kernel's scratch */
    scratch = (char *)PyMem_RawMalloc((size_t)jt * (sizeof(int32_t) + 1)
                                      + sks_retarget_scratch_bytes((size_t)jt));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    src_index = (int32_t *)(void *)scratch;
    placed = (unsigned char *)(src_index + jt);
    memcpy(src_index, PyArray_DATA(index), (size_t)jt * sizeof(int32_t));
    for (j = 0; j < jt; j++) {
        if (src_index[j] < -1 || src_index[j] >= js) {
            PyErr_Format(PyExc_ValueError, "src_index[%ld] = %ld: expected -1 (unmapped) or a "
                         "source joint 0 <= value < %ld (source_world.shape[-2])", (long)j,
                         (long)src_index[j], (long)js);
            goto fail;
        }
    }
    offsets = per_joint_floats(v[2], "offsets", jt, 4);
    if (offsets == NULL) goto fail;
    if (sks_parse_parents(v[3], jt, "src_index.shape[0]", &parents) < 0) {
        rename_parents_error();
        goto fail;
    }
    rest = per_joint_floats(v[4], "target_rest", jt, 8);
    if (rest == NULL) goto fail;
    if (parse_placed(v[5], jt, placed) < 0) goto fail;
    for (d = 0; d < ndim - 2; d++) shape[d] = PyArray_DIM(src, d);
    shape[ndim - 2] = jt;
    shape[ndim - 1] = 8;
    out = sks_prepare_out(v[6], "out", ndim, shape);
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", src, "source_world", 0) < 0) goto fail;
    if (sks_check_overlap(out, "out", offsets, "offsets", 0) < 0) goto fail;
    if (sks_check_overlap(out, "out", rest, "target_rest", 0) < 0) goto fail;
    {
        const sks_retarget_kernels *k = SKS_KERNELS(retarget);
        const size_t n = (size_t)PyArray_SIZE(src);
        sks_retarget_args a;
        a.out = (float *)PyArray_DATA(out);
        a.source = (const float *)PyArray_DATA(src);
        a.src_index = src_index;
        a.offsets = (const float *)PyArray_DATA(offsets);
        a.parents = parents.data;
        a.rest = (const float *)PyArray_DATA(rest);
        a.placed = placed;
        a.frames = n / (8 * (size_t)js);
        a.targets = (size_t)jt;
        a.sources = (size_t)js;
        a.scratch = placed + jt;
        if (n > 0) {
            size_t first;
            Py_BEGIN_ALLOW_THREADS
            first = k->first_nonfinite(a.source, n);
            if (first == n) k->remap(&a);
            Py_END_ALLOW_THREADS
            if (first < n) bad = (npy_intp)first;
        }
    }
    if (bad >= 0) {
        nonfinite_error(src, bad);
        goto fail;
    }
    PyMem_RawFree(scratch);
    sks_parents_release(&parents);
    Py_DECREF(src);
    Py_DECREF(index);
    Py_DECREF(offsets);
    Py_DECREF(rest);
    return (PyObject *)out;
fail:
    PyMem_RawFree(scratch);
    sks_parents_release(&parents);
    Py_XDECREF(src);
    Py_XDECREF(index);
    Py_XDECREF(offsets);
    Py_XDECREF(rest);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_retarget_methods[] = {
    {"retarget_remap", (PyCFunction)(void (*)(void))py_retarget_remap,
     METH_FASTCALL | METH_KEYWORDS,
     "retarget_remap(source_world, src_index, offsets, target_parents, target_rest, placed, "
     "out=None): the target's local QTS joints (..., Jt, 8) from the source's world QTS joints "
     "(..., Js, 8), already in the target's world frame and units: mapped joints take the "
     "source's world rotations times their rest-alignment offsets, placed ones also the "
     "source's world positions, the others their rest. See skelsimd.Retargeter."},
    {NULL, NULL, 0, NULL}};
