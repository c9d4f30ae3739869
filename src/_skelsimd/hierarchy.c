/*
 * hierarchy.c -- parents arrays and index subsets, validated into private copies
 * (see hierarchy.h).
 */
#include "args.h"

#include <string.h>

static int sks_read_index(PyArrayObject *arr, npy_intp i, long long *value)
{
    const char *p = PyArray_BYTES(arr) + i * PyArray_STRIDES(arr)[0];
    switch (PyArray_TYPE(arr)) {
    case NPY_BYTE: *value = *(const npy_byte *)p; return 0;
    case NPY_UBYTE: *value = *(const npy_ubyte *)p; return 0;
    case NPY_SHORT: *value = *(const npy_short *)p; return 0;
    case NPY_USHORT: *value = *(const npy_ushort *)p; return 0;
    case NPY_INT: *value = *(const npy_int *)p; return 0;
    case NPY_UINT: *value = *(const npy_uint *)p; return 0;
    case NPY_LONG: *value = *(const npy_long *)p; return 0;
    case NPY_ULONG: {
        const npy_ulong u = *(const npy_ulong *)p;
        *value = u > (npy_ulong)INT32_MAX ? (long long)INT32_MAX + 1 : (long long)u;
        return 0;
    }
    case NPY_LONGLONG: *value = *(const npy_longlong *)p; return 0;
    case NPY_ULONGLONG: {
        const npy_ulonglong u = *(const npy_ulonglong *)p;
        *value = u > (npy_ulonglong)INT32_MAX ? (long long)INT32_MAX + 1 : (long long)u;
        return 0;
    }
    default: return -1;
    }
}

/* ValueError for parents[j] = p (outside -1 <= p < j). */
static void sks_bad_parent(npy_intp j, long long p)
{
    PyErr_Format(PyExc_ValueError,
                 "parents[%ld] = %lld: expected -1 (a root) or an earlier joint "
                 "(-1 <= parents[j] < j, depth-first order); reorder the skeleton first",
                 (long)j, p);
}

int sks_parse_parents(PyObject *obj, npy_intp njoints, const char *joints_from, sks_parents *out)
{
    PyArrayObject *arr;
    npy_intp n, j;
    int32_t *copy;
    out->data = NULL;
    out->holder = NULL;
    out->owned = NULL;
    out->count = 0;
    if (PyObject_TypeCheck(obj, &sks_skeleton_type)) {
        const sks_skeleton_object *skeleton = (const sks_skeleton_object *)obj;
        if (skeleton->parents == NULL) {
            PyErr_SetString(PyExc_TypeError, "parents: expected an initialised Skeleton, got one "
                            "whose constructor did not run");
            return -1;
        }
        if (njoints >= 0 && skeleton->njoints != njoints) {
            PyErr_Format(PyExc_ValueError, "parents: expected a Skeleton of %ld joints (one per "
                         "joint, %s), got one of %ld joints", (long)njoints, joints_from,
                         (long)skeleton->njoints);
            return -1;
        }
        Py_INCREF(skeleton->parents);
        out->holder = skeleton->parents;
        out->data = (const int32_t *)PyArray_DATA(skeleton->parents);
        out->count = skeleton->njoints;
        return 0;
    }
    arr = sks_any_array(obj, "parents", "a 1-D integer array");
    if (arr == NULL) return -1;
    {
        PyArray_Descr *d = PyArray_DESCR(arr);
        const int empty_list = !PyArray_Check(obj) && PyArray_SIZE(arr) == 0;
        if (!(d->kind == 'i' || d->kind == 'u') && !empty_list) {
            sks_wrong_dtype("parents", d, "a 1-D integer array");
            Py_DECREF(arr);
            return -1;
        }
    }
    if (PyArray_NDIM(arr) != 1) {
        char got[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(arr), PyArray_DIMS(arr));
        if (njoints >= 0) {
            PyErr_Format(PyExc_ValueError, "parents: expected a 1-D array of %ld joints, got "
                         "shape %s", (long)njoints, got);
        } else {
            PyErr_Format(PyExc_ValueError, "parents: expected a 1-D array, got shape %s", got);
        }
        Py_DECREF(arr);
        return -1;
    }
    n = PyArray_DIM(arr, 0);
    if (njoints >= 0 && n != njoints) {
        PyErr_Format(PyExc_ValueError, "parents: expected %ld entries (one per joint, %s), got %ld",
                     (long)njoints, joints_from, (long)n);
        Py_DECREF(arr);
        return -1;
    }
    /* The private copy the kernel reads (see hierarchy.h, "Thread safety"). */
    copy = (size_t)n <= (size_t)PY_SSIZE_T_MAX / sizeof(int32_t)
        ? (int32_t *)PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof(int32_t)) : NULL;
    if (copy == NULL) {
        Py_DECREF(arr);
        PyErr_NoMemory();
        return -1;
    }
    if (n > 0 && PyArray_TYPE(arr) == NPY_INT32 && PyArray_IS_C_CONTIGUOUS(arr) &&
        PyArray_ISALIGNED(arr) && PyArray_ISNOTSWAPPED(arr)) {
        /* the common case: copy, then validate the copy */
        uint32_t any = 0;
        memcpy(copy, PyArray_DATA(arr), (size_t)n * sizeof(int32_t));
        if ((uint64_t)n <= UINT32_MAX) {
            /* -1 <= p < j as one unsigned comparison, p + 1 <= j (p < -1 wraps above any j),
             * in 32-bit lanes the compiler vectorises: the 64-bit form ran scalar at about one
             * joint per cycle, 100 ns of a 96-joint call. */
            const uint32_t m = (uint32_t)n;
            uint32_t i;
            for (i = 0; i < m; i++) any |= (uint32_t)((uint32_t)copy[i] + 1u > i);
        } else {
            for (j = 0; j < n; j++) any |= (copy[j] < -1) | ((npy_intp)copy[j] >= j);
        }
        if (any) {
            for (j = 0; copy[j] >= -1 && (npy_intp)copy[j] < j; j++) {}
            sks_bad_parent(j, copy[j]);
            goto fail;
        }
    } else {
        if (n > 0 && !PyArray_ISNOTSWAPPED(arr)) {
            PyArrayObject *native = (PyArrayObject *)PyArray_FromAny(
                (PyObject *)arr, PyArray_DescrNewByteorder(PyArray_DESCR(arr), NPY_NATIVE), 1, 1,
                NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST, NULL);
            Py_DECREF(arr);
            arr = native;
            if (arr == NULL) goto fail;
        }
        if (n > 0 && !PyArray_ISALIGNED(arr)) {
            PyArrayObject *aligned = (PyArrayObject *)PyArray_NewCopy(arr, NPY_CORDER);
            Py_DECREF(arr);
            arr = aligned;
            if (arr == NULL) goto fail;
        }
        /* each value is read once, validated, and stored into the copy */
        for (j = 0; j < n; j++) {
            long long p = 0;
            if (sks_read_index(arr, j, &p) < 0) {
                sks_wrong_dtype("parents", PyArray_DESCR(arr), "a 1-D integer array");
                goto fail;
            }
            if (p < -1 || p >= j) {
                sks_bad_parent(j, p);
                goto fail;
            }
            copy[j] = (int32_t)p;
        }
    }
    Py_DECREF(arr);
    out->owned = copy;
    out->data = copy;
    out->count = n;
    return 0;
fail:
    Py_XDECREF(arr);
    PyMem_Free(copy);
    return -1;
}

int sks_parse_indices(PyObject *obj, const char *name, npy_intp n, const char *n_from,
                      sks_parents *out)
{
    PyArrayObject *arr, *conv;
    unsigned char *seen;
    int32_t *copy;
    npy_intp m, k;
    out->data = NULL;
    out->holder = NULL;
    out->owned = NULL;
    out->count = 0;
    arr = sks_any_array(obj, name, "a 1-D integer array");
    if (arr == NULL) return -1;
    {
        PyArray_Descr *d = PyArray_DESCR(arr);
        const int empty_list = !PyArray_Check(obj) && PyArray_SIZE(arr) == 0;
        if (!(d->kind == 'i' || d->kind == 'u') && !empty_list) {
            sks_wrong_dtype(name, d, "a 1-D integer array");
            Py_DECREF(arr);
            return -1;
        }
    }
    if (PyArray_NDIM(arr) != 1) {
        char got[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(arr), PyArray_DIMS(arr));
        PyErr_Format(PyExc_ValueError, "%s: expected a 1-D array of joint indices, got shape %s",
                     name, got);
        Py_DECREF(arr);
        return -1;
    }
    /* A private int64 copy (ENSURECOPY: never the caller's memory, which another thread may
     * change while the kernel runs), validated and narrowed into the int32 copy the kernel
     * reads. */
    conv = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)arr, PyArray_DescrFromType(NPY_INT64), 1, 1,
        NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST | NPY_ARRAY_ENSURECOPY, NULL);
    Py_DECREF(arr);
    if (conv == NULL) return -1;
    m = PyArray_DIM(conv, 0);
    seen = (unsigned char *)PyMem_Calloc((size_t)(n > 0 ? n : 1), 1);
    copy = (int32_t *)PyMem_Malloc((size_t)(m > 0 ? m : 1) * sizeof(int32_t));
    if (seen == NULL || copy == NULL) {
        PyMem_Free(seen);
        PyMem_Free(copy);
        Py_DECREF(conv);
        PyErr_NoMemory();
        return -1;
    }
    for (k = 0; k < m; k++) {
        const long long v = ((const npy_int64 *)PyArray_DATA(conv))[k];
        if (v < 0 || v >= n) {
            PyErr_Format(PyExc_ValueError, "%s[%ld] = %lld: expected 0 <= %s < %ld (%s)", name,
                         (long)k, v, name, (long)n, n_from);
            break;
        }
        if (seen[v]) {
            PyErr_Format(PyExc_ValueError, "%s[%ld] = %lld: repeated; expected distinct indices",
                         name, (long)k, v);
            break;
        }
        seen[v] = 1;
        copy[k] = (int32_t)v;
    }
    PyMem_Free(seen);
    Py_DECREF(conv);
    if (k < m) {
        PyMem_Free(copy);
        return -1;
    }
    out->owned = copy;
    out->data = copy;
    out->count = m;
    return 0;
}

void sks_parents_release(sks_parents *p)
{
    Py_CLEAR(p->holder);
    PyMem_Free(p->owned);
    p->owned = NULL;
    p->data = NULL;
    p->count = 0;
}
