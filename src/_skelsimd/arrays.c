/*
 * arrays.c -- float32 and int32 inputs, their shapes, `out` and overlaps (see arrays.h).
 */
#include "args.h"

#include <stdio.h>
#include <string.h>

/* Is this dtype one we convert to float32 (bool, signed/unsigned integer, real float)? */
static int sks_numeric_real(PyArray_Descr *d)
{
    return d->kind == 'b' || d->kind == 'i' || d->kind == 'u' || d->kind == 'f';
}

void sks_wrong_dtype(const char *name, PyArray_Descr *d, const char *expected)
{
    PyObject *s = PyObject_Str((PyObject *)d);
    PyErr_Format(PyExc_TypeError, "%s: expected %s, got dtype %s", name, expected,
                 s ? PyUnicode_AsUTF8(s) : "?");
    Py_XDECREF(s);
}
PyArrayObject *sks_as_real(PyObject *obj, const char *name, int typenum)
{
    PyArrayObject *arr, *res;
    if (PyArray_Check(obj)) {
        arr = (PyArrayObject *)obj;
        if (PyArray_TYPE(arr) == typenum && PyArray_IS_C_CONTIGUOUS(arr) &&
            PyArray_ISALIGNED(arr) && PyArray_ISNOTSWAPPED(arr)) {
            Py_INCREF(obj);
            return arr;
        }
    }
    arr = sks_any_array(obj, name, "an array_like of numbers");
    if (arr == NULL) return NULL;
    if (!sks_numeric_real(PyArray_DESCR(arr))) {
        sks_wrong_dtype(name, PyArray_DESCR(arr),
                        typenum == NPY_FLOAT64 ? "a real numeric array (converted to float64)"
                                               : "a real numeric array (converted to float32)");
        Py_DECREF(arr);
        return NULL;
    }
    res = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)arr, PyArray_DescrFromType(typenum), 0, 0,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST,
        NULL);
    Py_DECREF(arr);
    return res;
}

PyArrayObject *sks_as_float32(PyObject *obj, const char *name)
{
    return sks_as_real(obj, name, NPY_FLOAT32);
}
int sks_check_shape(PyArrayObject *arr, const char *name, int min_ndim, const npy_intp *trailing,
                    int n_trailing, const char *layout)
{
    const int ndim = PyArray_NDIM(arr);
    const npy_intp *shape = PyArray_DIMS(arr);
    int ok = ndim >= min_ndim && ndim >= n_trailing, i;
    for (i = 0; ok && i < n_trailing; i++) {
        ok = shape[ndim - n_trailing + i] == trailing[i];
    }
    if (!ok) {
        char got[256];
        sks_format_shape(got, sizeof got, ndim, shape);
        PyErr_Format(PyExc_ValueError, "%s: expected shape %s, got %s", name, layout, got);
        return -1;
    }
    return 0;
}

PyArrayObject *sks_prepare_out(PyObject *out_obj, const char *name, int ndim,
                               const npy_intp *shape)
{
    PyArrayObject *out;
    if (out_obj == NULL || out_obj == Py_None) {
        return (PyArrayObject *)PyArray_SimpleNew(ndim, (npy_intp *)shape, NPY_FLOAT32);
    }
    if (!PyArray_Check(out_obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy.ndarray of float32 or None, got %s",
                     name, Py_TYPE(out_obj)->tp_name);
        return NULL;
    }
    out = (PyArrayObject *)out_obj;
    if (PyArray_TYPE(out) != NPY_FLOAT32 || !PyArray_ISNOTSWAPPED(out)) {
        sks_wrong_dtype(name, PyArray_DESCR(out), "dtype float32 (native byte order)");
        return NULL;
    }
    if (PyArray_NDIM(out) != ndim || memcmp(PyArray_DIMS(out), shape, ndim * sizeof(npy_intp))) {
        char want[256], got[256];
        sks_format_shape(want, sizeof want, ndim, shape);
        sks_format_shape(got, sizeof got, PyArray_NDIM(out), PyArray_DIMS(out));
        PyErr_Format(PyExc_ValueError, "%s: expected shape %s, got %s", name, want, got);
        return NULL;
    }
    if (!PyArray_IS_C_CONTIGUOUS(out) || !PyArray_ISALIGNED(out)) {
        PyErr_Format(PyExc_ValueError, "%s: expected a C-contiguous, aligned array, got strides "
                     "that are not C-contiguous (use np.ascontiguousarray or out=None)", name);
        return NULL;
    }
    if (!PyArray_ISWRITEABLE(out)) {
        PyErr_Format(PyExc_ValueError, "%s: expected a writeable array, got a read-only one", name);
        return NULL;
    }
    Py_INCREF(out_obj);
    return out;
}

/* The bytes an array's elements occupy, [*lo, *hi), whatever its strides (a reversed view
 * starts at its data pointer and extends below it). Only for arrays of at least one element. */
static void sks_memory_extent(PyArrayObject *arr, const char **lo, const char **hi)
{
    const char *base = PyArray_BYTES(arr);
    npy_intp down = 0, up = PyArray_ITEMSIZE(arr);
    int d;
    for (d = 0; d < PyArray_NDIM(arr); d++) {
        const npy_intp span = (PyArray_DIM(arr, d) - 1) * PyArray_STRIDE(arr, d);
        if (span < 0) down += span;
        else up += span;
    }
    *lo = base + down;
    *hi = base + up;
}

int sks_check_overlap(PyArrayObject *out, const char *out_name, PyArrayObject *in,
                      const char *in_name, int allow_exact)
{
    const char *o0 = PyArray_BYTES(out), *i0 = PyArray_BYTES(in), *olo, *ohi, *ilo, *ihi;
    const npy_intp on = PyArray_NBYTES(out), in_n = PyArray_NBYTES(in);
    if (on == 0 || in_n == 0) return 0;
    sks_memory_extent(out, &olo, &ohi);
    sks_memory_extent(in, &ilo, &ihi);
    if (ohi <= ilo || ihi <= olo) return 0;
    if (o0 == i0 && on == in_n && olo == ilo && ohi == ihi) {
        if (allow_exact) return 0;
        PyErr_Format(PyExc_ValueError, "%s: must not be the same memory as %s (this function "
                     "does not work in place)", out_name, in_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError, "%s: partially overlaps %s; pass the same array for in-place "
                 "operation or a separate array", out_name, in_name);
    return -1;
}
/* --- index arrays --------------------------------------------------------------------------- */

/* "[i0, i1, ...]" of the element at C-order position `flat` of an array of shape `shape`; with
 * axis_names also " (name0 i0, name1 i1, ...)" into names_buf. */
static void sks_format_element(char *buf, size_t size, char *names_buf, size_t names_size,
                               int ndim, const npy_intp *shape, npy_intp flat,
                               const char *const *axis_names)
{
    npy_intp index[NPY_MAXDIMS];
    size_t used = 0, nused = 0;
    int d;
    for (d = ndim - 1; d >= 0; d--) {
        index[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    buf[0] = '\0';
    names_buf[0] = '\0';
    used += (size_t)snprintf(buf, size, "[");
    if (axis_names) nused += (size_t)snprintf(names_buf, names_size, " (");
    for (d = 0; d < ndim; d++) {
        if (used < size) {
            used += (size_t)snprintf(buf + used, size - used, d ? ", %ld" : "%ld",
                                     (long)index[d]);
        }
        if (axis_names && nused < names_size) {
            nused += (size_t)snprintf(names_buf + nused, names_size - nused,
                                      d ? ", %s %ld" : "%s %ld", axis_names[d], (long)index[d]);
        }
    }
    if (used < size) snprintf(buf + used, size - used, "]");
    if (axis_names && nused < names_size) snprintf(names_buf + nused, names_size - nused, ")");
}

PyArrayObject *sks_as_int32(PyObject *obj, const char *name)
{
    PyArrayObject *arr, *wide = NULL, *res;
    PyArray_Descr *d;
    npy_intp n, i, bad = -1;
    arr = sks_any_array(obj, name, "an integer array");
    if (arr == NULL) return NULL;
    d = PyArray_DESCR(arr);
    if (!(d->kind == 'i' || d->kind == 'u') && !(!PyArray_Check(obj) && PyArray_SIZE(arr) == 0)) {
        sks_wrong_dtype(name, d, "an integer array");
        Py_DECREF(arr);
        return NULL;
    }
    if (PyArray_TYPE(arr) == NPY_INT32 && PyArray_IS_C_CONTIGUOUS(arr) && PyArray_ISALIGNED(arr) &&
        PyArray_ISNOTSWAPPED(arr)) {
        return arr;
    }
    n = PyArray_SIZE(arr);
    if (n > 0 && PyArray_ITEMSIZE(arr) >= 4 && !(d->kind == 'i' && PyArray_ITEMSIZE(arr) == 4)) {
        /* values may not fit: look at them as int64 (uint64 as uint64) before narrowing */
        const int unsigned64 = d->kind == 'u' && PyArray_ITEMSIZE(arr) == 8;
        wide = (PyArrayObject *)PyArray_FromAny(
            (PyObject *)arr, PyArray_DescrFromType(unsigned64 ? NPY_UINT64 : NPY_INT64), 0, 0,
            NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST, NULL);
        if (wide == NULL) {
            Py_DECREF(arr);
            return NULL;
        }
        if (unsigned64) {
            const npy_uint64 *v = (const npy_uint64 *)PyArray_DATA(wide);
            int any = 0;
            for (i = 0; i < n; i++) any |= v[i] > (npy_uint64)INT32_MAX;
            if (any) for (bad = 0; v[bad] <= (npy_uint64)INT32_MAX; bad++) {}
        } else {
            const npy_int64 *v = (const npy_int64 *)PyArray_DATA(wide);
            int any = 0;
            for (i = 0; i < n; i++) any |= (v[i] < INT32_MIN) | (v[i] > INT32_MAX);
            if (any) for (bad = 0; v[bad] >= INT32_MIN && v[bad] <= INT32_MAX; bad++) {}
        }
        if (bad >= 0) {
            char where[256], unused[8];
            PyObject *value =
                PyArray_GETITEM(wide, PyArray_BYTES(wide) + bad * PyArray_ITEMSIZE(wide));
            sks_format_element(where, sizeof where, unused, sizeof unused, PyArray_NDIM(wide),
                               PyArray_DIMS(wide), bad, NULL);
            if (value != NULL) {
                PyErr_Format(PyExc_ValueError, "%s%s = %S: outside the int32 range", name, where,
                             value);
                Py_DECREF(value);
            }
            Py_DECREF(wide);
            Py_DECREF(arr);
            return NULL;
        }
    }
    res = (PyArrayObject *)PyArray_FromAny(
        (PyObject *)(wide ? wide : arr), PyArray_DescrFromType(NPY_INT32), 0, 0,
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_NOTSWAPPED | NPY_ARRAY_FORCECAST,
        NULL);
    Py_XDECREF(wide);
    Py_DECREF(arr);
    return res;
}

int sks_check_index_range(PyArrayObject *arr, const char *name, npy_intp limit,
                          const char *limit_from, const char *const *axis_names)
{
    const int32_t *v = (const int32_t *)PyArray_DATA(arr);
    const npy_intp n = PyArray_SIZE(arr);
    const uint32_t lim = limit > (npy_intp)INT32_MAX ? (uint32_t)INT32_MAX + 1u : (uint32_t)limit;
    npy_intp i, bad;
    int any = 0;
    /* one pass the compiler vectorises (negative values are huge as uint32), then the first */
    for (i = 0; i < n; i++) any |= (uint32_t)v[i] >= lim;
    if (!any) return 0;
    for (bad = 0; (uint32_t)v[bad] < lim; bad++) {}
    {
        char where[256], names[256];
        sks_format_element(where, sizeof where, names, sizeof names, PyArray_NDIM(arr),
                           PyArray_DIMS(arr), bad, axis_names);
        PyErr_Format(PyExc_ValueError, "%s%s = %d%s: expected 0 <= value < %ld (%s)", name, where,
                     (int)v[bad], names, (long)limit, limit_from);
    }
    return -1;
}
