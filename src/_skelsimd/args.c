/*
 * args.c -- the shared glue toolkit (see args.h for the rules).
 */
#include "args.h"

#include <stdio.h>
#include <string.h>

int sks_check_nargs(const char *func, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given",
                     func, expected, nargs);
        return 0;
    }
    return 1;
}

int sks_parse_bool(PyObject *obj, const char *name, int dflt)
{
    int v;
    if (obj == NULL || obj == Py_None) return dflt;
    v = PyObject_IsTrue(obj);
    if (v < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a bool", name);
    }
    return v;
}

int sks_add_type(PyObject *module, PyTypeObject *type, const char *name)
{
    if (PyType_Ready(type) < 0) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

int sks_check_rank(int ndim, const char *names)
{
    if (ndim > NPY_MAXDIMS) {
        PyErr_Format(PyExc_ValueError, "%s: the result would have %d dimensions, more than "
                     "NumPy's limit of %d", names, ndim, NPY_MAXDIMS);
        return -1;
    }
    return 0;
}

void sks_format_shape(char *buf, size_t size, int ndim, const npy_intp *shape)
{
    size_t used = 0;
    int i;
    if (size == 0) return;
    buf[0] = '\0';
    used += (size_t)snprintf(buf + used, size - used, "(");
    for (i = 0; i < ndim && used < size; i++) {
        used += (size_t)snprintf(buf + used, size - used, i ? ", %ld" : "%ld", (long)shape[i]);
    }
    if (used < size) {
        snprintf(buf + used, size - used, ndim == 1 ? ",)" : ")");
    }
}

/* Is this dtype one we convert to float32 (bool, signed/unsigned integer, real float)? */
static int sks_numeric_real(PyArray_Descr *d)
{
    return d->kind == 'b' || d->kind == 'i' || d->kind == 'u' || d->kind == 'f';
}

static void sks_wrong_dtype(const char *name, PyArray_Descr *d, const char *expected)
{
    PyObject *s = PyObject_Str((PyObject *)d);
    PyErr_Format(PyExc_TypeError, "%s: expected %s, got dtype %s", name, expected,
                 s ? PyUnicode_AsUTF8(s) : "?");
    Py_XDECREF(s);
}

/* --- arrays of other libraries (DLPack, __array__) ------------------------------------------ */

/* Interned attribute names and numpy.from_dlpack, looked up once on first use (with the GIL
 * held; never written again, so calls stay re-entrant). */
static PyObject *sks_str_dlpack, *sks_str_array, *sks_str_requires_grad, *sks_np_from_dlpack;

static int sks_foreign_init(void)
{
    PyObject *numpy;
    if (sks_np_from_dlpack != NULL) return 0;
    if (sks_str_dlpack == NULL && (sks_str_dlpack = PyUnicode_InternFromString("__dlpack__")) == NULL)
        return -1;
    if (sks_str_array == NULL && (sks_str_array = PyUnicode_InternFromString("__array__")) == NULL)
        return -1;
    if (sks_str_requires_grad == NULL &&
        (sks_str_requires_grad = PyUnicode_InternFromString("requires_grad")) == NULL)
        return -1;
    numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL) return -1;
    sks_np_from_dlpack = PyObject_GetAttrString(numpy, "from_dlpack");
    Py_DECREF(numpy);
    return sks_np_from_dlpack == NULL ? -1 : 0;
}

/* "<type>: <message>" of the pending exception, cleared (new reference; NULL if none). */
static PyObject *sks_take_error(void)
{
    PyObject *type, *value, *tb, *text;
    PyErr_Fetch(&type, &value, &tb);
    if (type == NULL) return NULL;
    PyErr_NormalizeException(&type, &value, &tb);
    text = PyUnicode_FromFormat("%s: %S", ((PyTypeObject *)type)->tp_name,
                                value ? value : Py_None);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    if (text == NULL) PyErr_Clear();
    return text;
}

/* An array of another library (a PyTorch or JAX CPU tensor, anything whose type defines
 * __dlpack__ or __array__) as an ndarray, new reference. Sets *handled to 0 (and returns NULL
 * without an exception) for objects that are none of these, which NumPy converts as before.
 *   - An object with `requires_grad` true is a TypeError telling to detach it: its values would
 *     be read without the autograd graph ever knowing.
 *   - __dlpack__ first: np.from_dlpack shares the memory (no copy, whatever the dtype and
 *     strides; the caller converts to C-contiguous float32 only when needed). If that fails
 *     (another device, a dtype NumPy lacks), __array__ is tried, then a TypeError names the
 *     argument and quotes both failures.
 * Plain ndarrays never come here, so their per-call cost is unchanged. */
static PyArrayObject *sks_foreign_array(PyObject *obj, const char *name, const char *expected,
                                        int *handled)
{
    PyObject *res = NULL, *dl_error = NULL, *rg;
    int has_dlpack, has_array;
    *handled = 0;
    if (sks_foreign_init() < 0) {
        *handled = 1;
        return NULL;
    }
    has_dlpack = _PyType_Lookup(Py_TYPE(obj), sks_str_dlpack) != NULL;
    has_array = _PyType_Lookup(Py_TYPE(obj), sks_str_array) != NULL;
    if (!has_dlpack && !has_array) return NULL;
    *handled = 1;
    rg = PyObject_GetAttr(obj, sks_str_requires_grad);
    if (rg == NULL) {
        PyErr_Clear();
    } else {
        const int grad = PyObject_IsTrue(rg);
        Py_DECREF(rg);
        if (grad < 0) PyErr_Clear();
        if (grad > 0) {
            PyErr_Format(PyExc_TypeError, "%s: expected an array without gradient tracking, got "
                         "a %s that requires grad; pass tensor.detach() (skelsimd computes no "
                         "gradients)", name, Py_TYPE(obj)->tp_name);
            return NULL;
        }
    }
    if (has_dlpack) {
        res = PyObject_CallOneArg(sks_np_from_dlpack, obj);
        if (res != NULL && PyArray_Check(res)) return (PyArrayObject *)res;
        Py_XDECREF(res);
        res = NULL;
        dl_error = sks_take_error();
    }
    if (has_array) {
        res = PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
        if (res != NULL) {
            Py_XDECREF(dl_error);
            return (PyArrayObject *)res;
        }
    }
    {
        PyObject *arr_error = has_array ? sks_take_error() : NULL, *why;
        if (dl_error && arr_error) {
            why = PyUnicode_FromFormat("through DLPack: %U; through __array__: %U", dl_error,
                                       arr_error);
        } else if (dl_error || arr_error) {
            why = PyUnicode_FromFormat("through %s: %U", dl_error ? "DLPack" : "__array__",
                                       dl_error ? dl_error : arr_error);
        } else {
            why = PyUnicode_FromString("no reason given");
        }
        Py_XDECREF(dl_error);
        Py_XDECREF(arr_error);
        if (why == NULL) return NULL;
        PyErr_Format(PyExc_TypeError, "%s: expected %s, got a %s that NumPy cannot read (%U); "
                     "convert it to a CPU float32 array first, e.g. tensor.float().cpu()", name,
                     expected, Py_TYPE(obj)->tp_name, why);
        Py_DECREF(why);
    }
    return NULL;
}

/* obj as an ndarray (new reference): obj itself when it is one, an array of another library
 * through DLPack / __array__ (sks_foreign_array), else NumPy's conversion of it;
 * TypeError "<name>: expected <expected>, got <type>" when NumPy cannot convert it. */
static PyArrayObject *sks_any_array(PyObject *obj, const char *name, const char *expected)
{
    PyArrayObject *arr;
    if (PyArray_Check(obj)) {
        Py_INCREF(obj);
        return (PyArrayObject *)obj;
    }
    if (!PyList_Check(obj) && !PyTuple_Check(obj) && !PyArray_IsAnyScalar(obj)) {
        int handled;
        arr = sks_foreign_array(obj, name, expected, &handled);
        if (handled) return arr;
    }
    arr = (PyArrayObject *)PyArray_FromAny(obj, NULL, 0, 0, 0, NULL);
    if (arr == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s: expected %s, got %s", name, expected,
                     Py_TYPE(obj)->tp_name);
    }
    return arr;
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

Py_ssize_t sks_prepare_unary(const sks_unary_layout *l, PyObject *in_obj, PyObject *out_obj,
                             PyArrayObject **in, PyArrayObject **out)
{
    npy_intp shape[NPY_MAXDIMS];
    Py_ssize_t n = 1;
    int lead, d;
    *out = NULL;
    *in = sks_as_float32(in_obj, l->in_name);
    if (*in == NULL) return -1;
    if (sks_check_shape(*in, l->in_name, l->n_in, l->in_trailing, l->n_in, l->layout) < 0)
        goto fail;
    lead = PyArray_NDIM(*in) - l->n_in;
    if (sks_check_rank(lead + l->n_out, l->in_name) < 0) goto fail;
    for (d = 0; d < lead; d++) {
        shape[d] = PyArray_DIM(*in, d);
        n *= (Py_ssize_t)shape[d];
    }
    for (d = 0; d < l->n_out; d++) shape[lead + d] = l->out_trailing[d];
    *out = sks_prepare_out(out_obj, "out", lead + l->n_out, shape);
    if (*out == NULL) goto fail;
    if (sks_check_overlap(*out, "out", *in, l->in_name, l->in_place) < 0) goto fail;
    return n;
fail:
    Py_CLEAR(*in);
    Py_CLEAR(*out);
    return -1;
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

int sks_check_overlap(PyArrayObject *out, const char *out_name, PyArrayObject *in,
                      const char *in_name, int allow_exact)
{
    const char *o0 = PyArray_BYTES(out), *i0 = PyArray_BYTES(in);
    const npy_intp on = PyArray_NBYTES(out), in_n = PyArray_NBYTES(in);
    if (on == 0 || in_n == 0) return 0;
    if (o0 + on <= i0 || i0 + in_n <= o0) return 0;
    if (o0 == i0 && on == in_n) {
        if (allow_exact) return 0;
        PyErr_Format(PyExc_ValueError, "%s: must not be the same memory as %s (this function "
                     "does not work in place)", out_name, in_name);
        return -1;
    }
    PyErr_Format(PyExc_ValueError, "%s: partially overlaps %s; pass the same array for in-place "
                 "operation or a separate array", out_name, in_name);
    return -1;
}

int sks_parse_choice(PyObject *obj, const char *name, const char *const *choices, int dflt)
{
    const char *v;
    Py_ssize_t len;
    int i;
    if (obj == NULL || obj == Py_None) return dflt;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a str, got %s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    v = PyUnicode_AsUTF8AndSize(obj, &len);
    if (v == NULL) return -1;
    for (i = 0; choices[i] != NULL; i++) {    /* the length too: "float64\0x" is not "float64" */
        if ((size_t)len == strlen(choices[i]) && memcmp(v, choices[i], (size_t)len) == 0) return i;
    }
    {
        char list[256];
        size_t used = 0;
        for (i = 0; choices[i] != NULL && used < sizeof list; i++) {
            used += (size_t)snprintf(list + used, sizeof list - used, i ? ", '%s'" : "'%s'",
                                     choices[i]);
        }
        PyErr_Format(PyExc_ValueError, "%s: expected one of %s, got %R", name, list, obj);
    }
    return -1;
}

/* --- parents ------------------------------------------------------------------------------- */

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
    /* The private copy the kernel reads (see args.h, "Thread safety"). */
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
        int any = 0;
        memcpy(copy, PyArray_DATA(arr), (size_t)n * sizeof(int32_t));
        for (j = 0; j < n; j++) any |= (copy[j] < -1) | ((npy_intp)copy[j] >= j);
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

static int sks_parse_index(PyObject *obj, const char *name, npy_intp *value)
{
    Py_ssize_t v;
    if (!PyIndex_Check(obj) || PyBool_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected an int, got %s", name, Py_TYPE(obj)->tp_name);
        return -1;
    }
    v = PyNumber_AsSsize_t(obj, PyExc_OverflowError);
    if (v == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: integer out of range", name);
        return -1;
    }
    *value = (npy_intp)v;
    return 0;
}

int sks_parse_joint_range(PyObject *start_obj, PyObject *stop_obj, npy_intp njoints,
                          npy_intp *start, npy_intp *stop)
{
    *start = 0;
    *stop = njoints;
    if (start_obj != NULL && start_obj != Py_None && sks_parse_index(start_obj, "start", start) < 0)
        return -1;
    if (stop_obj != NULL && stop_obj != Py_None && sks_parse_index(stop_obj, "stop", stop) < 0)
        return -1;
    if (*start < 0 || *start > njoints) {
        PyErr_Format(PyExc_ValueError, "start: expected 0 <= start <= %ld (the number of joints), "
                     "got %ld", (long)njoints, (long)*start);
        return -1;
    }
    if (*stop < *start || *stop > njoints) {
        PyErr_Format(PyExc_ValueError, "stop: expected start <= stop <= %ld (start = %ld, the "
                     "number of joints = %ld), got %ld", (long)njoints, (long)*start,
                     (long)njoints, (long)*stop);
        return -1;
    }
    return 0;
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

/* --- hierarchy walks ------------------------------------------------------------------------ */

int sks_parse_walk(sks_walk_args *w, PyObject *const *args, const char *in_name,
                   const npy_intp *block, int block_ndim, const char *layout)
{
    char joints_from[64];
    npy_intp block_size = 1;
    int ndim, d;
    memset(w, 0, sizeof *w);
    w->in = sks_as_float32(args[0], in_name);
    if (w->in == NULL) goto fail;
    if (sks_check_shape(w->in, in_name, block_ndim + 1, block, block_ndim, layout) < 0) goto fail;
    ndim = PyArray_NDIM(w->in);
    w->joints = PyArray_DIM(w->in, ndim - block_ndim - 1);
    {
        /* "<in_name>.shape[-<block_ndim + 1>]" for the parents message, built without snprintf:
         * it runs on every call and snprintf alone cost about 100 ns of a 500 ns call. */
        size_t n = strlen(in_name);
        if (n > sizeof joints_from - 12) n = sizeof joints_from - 12;
        memcpy(joints_from, in_name, n);
        memcpy(joints_from + n, ".shape[-", 8);
        joints_from[n + 8] = (char)('0' + (block_ndim + 1) % 10);
        joints_from[n + 9] = ']';
        joints_from[n + 10] = '\0';
    }
    if (sks_parse_parents(args[1], w->joints, joints_from, &w->parents) < 0) goto fail;
    if (sks_parse_joint_range(args[3], args[4], w->joints, &w->start, &w->stop) < 0) goto fail;
    w->out_is_new = args[2] == NULL || args[2] == Py_None;
    w->out = sks_prepare_out(args[2], "out", ndim, PyArray_DIMS(w->in));
    if (w->out == NULL) goto fail;
    if (sks_check_overlap(w->out, "out", w->in, in_name, 1) < 0) goto fail;
    for (d = 0; d < block_ndim; d++) block_size *= block[d];
    w->batch = w->joints ? PyArray_SIZE(w->in) / (w->joints * block_size) : 0;
    return 0;
fail:
    sks_walk_args_release(w);
    return -1;
}

void sks_walk_prefill(const sks_walk_args *w)
{
    if (w->out_is_new && (w->start > 0 || w->stop < w->joints)) {
        memcpy(PyArray_DATA(w->out), PyArray_DATA(w->in), (size_t)PyArray_NBYTES(w->in));
    }
}

PyObject *sks_walk_finish(sks_walk_args *w)
{
    PyObject *result = (PyObject *)w->out;
    w->out = NULL;
    sks_walk_args_release(w);
    return result;
}

void sks_walk_args_release(sks_walk_args *w)
{
    sks_parents_release(&w->parents);
    Py_CLEAR(w->in);
    Py_CLEAR(w->out);
}

double *sks_walk_scratch(sks_walk_args *w, size_t doubles)
{
    double *scratch = (double *)PyMem_RawMalloc(doubles * sizeof(double));
    if (scratch == NULL) {
        sks_walk_args_release(w);
        PyErr_NoMemory();
    }
    return scratch;
}

/* --- broadcasting -------------------------------------------------------------------------- */

int sks_broadcast_leading(sks_broadcast *bc, int nops, PyArrayObject *const *ops,
                          const char *const *names, const int *trailing_ndims)
{
    int k, d, nd = 0;
    npy_intp cstrides[SKS_MAX_OPERANDS][NPY_MAXDIMS];
    bc->nops = nops;
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        if (lead > nd) nd = lead;
    }
    for (d = 0; d < nd; d++) bc->out_shape[d] = 1;
    /* result shape, right-aligned */
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        for (d = 0; d < lead; d++) {
            const npy_intp n = PyArray_DIM(ops[k], d);
            npy_intp *r = &bc->out_shape[nd - lead + d];
            if (n == *r || n == 1) continue;
            if (*r == 1) {
                *r = n;
                continue;
            }
            {
                char s0[256], s1[256];
                int k0;
                for (k0 = 0; k0 < k; k0++) {
                    const int lead0 = PyArray_NDIM(ops[k0]) - trailing_ndims[k0];
                    const int d0 = d + (nd - lead) - (nd - lead0);
                    if (d0 >= 0 && d0 < lead0 && PyArray_DIM(ops[k0], d0) != 1 &&
                        PyArray_DIM(ops[k0], d0) != n)
                        break;
                }
                if (k0 == k) k0 = 0;
                sks_format_shape(s0, sizeof s0,
                                 PyArray_NDIM(ops[k0]) - trailing_ndims[k0], PyArray_DIMS(ops[k0]));
                sks_format_shape(s1, sizeof s1, lead, PyArray_DIMS(ops[k]));
                PyErr_Format(PyExc_ValueError,
                             "%s and %s: leading (batch) shapes %s and %s do not broadcast",
                             names[k0], names[k], s0, s1);
                return -1;
            }
        }
    }
    bc->out_ndim = nd;
    /* block strides of each operand, 0 where broadcast */
    for (k = 0; k < nops; k++) {
        const int lead = PyArray_NDIM(ops[k]) - trailing_ndims[k];
        npy_intp s = 1;
        for (d = nd - 1; d >= 0; d--) {
            const int dk = d - (nd - lead);
            if (dk < 0 || PyArray_DIM(ops[k], dk) == 1) {
                cstrides[k][d] = 0;
            } else {
                cstrides[k][d] = s;
                s *= PyArray_DIM(ops[k], dk);
            }
        }
    }
    /* merge dimension d into d+1 when every operand walks them as one */
    bc->ndim = 0;
    for (d = 0; d < nd; d++) {
        if (bc->out_shape[d] == 1) continue; /* drop unit dims */
        if (bc->ndim > 0) {
            const int m = bc->ndim - 1;
            int mergeable = 1;
            for (k = 0; k < nops; k++) {
                if (bc->strides[k][m] != cstrides[k][d] * bc->out_shape[d]) mergeable = 0;
            }
            if (mergeable) {
                bc->shape[m] *= bc->out_shape[d];
                for (k = 0; k < nops; k++) bc->strides[k][m] = cstrides[k][d];
                continue;
            }
        }
        bc->shape[bc->ndim] = bc->out_shape[d];
        for (k = 0; k < nops; k++) bc->strides[k][bc->ndim] = cstrides[k][d];
        bc->ndim++;
    }
    return 0;
}

npy_intp sks_broadcast_inner(const sks_broadcast *bc)
{
    return bc->ndim ? bc->shape[bc->ndim - 1] : 1;
}

npy_intp sks_broadcast_outer(const sks_broadcast *bc)
{
    npy_intp n = 1;
    int d;
    for (d = 0; d + 1 < bc->ndim; d++) n *= bc->shape[d];
    return n;
}

void sks_broadcast_offsets(const sks_broadcast *bc, npy_intp outer, npy_intp *offsets,
                           npy_intp *inner_step)
{
    int k, d;
    for (k = 0; k < bc->nops; k++) {
        offsets[k] = 0;
        if (inner_step) inner_step[k] = bc->ndim ? bc->strides[k][bc->ndim - 1] : 0;
    }
    for (d = bc->ndim - 2; d >= 0; d--) {
        const npy_intp i = outer % bc->shape[d];
        outer /= bc->shape[d];
        for (k = 0; k < bc->nops; k++) offsets[k] += i * bc->strides[k][d];
    }
}

/* --- two-operand kernels with broadcasting ---------------------------------------------------- */

int sks_binary_prepare(sks_binary *w, const char *const *names, const int *trailing,
                       PyObject *out_obj, const npy_intp *out_block, int out_block_ndim,
                       const int *allow_exact)
{
    npy_intp shape[NPY_MAXDIMS];
    int k;
    if (sks_broadcast_leading(&w->bc, 2, w->ops, names, trailing) < 0) return -1;
    if (w->bc.out_ndim + out_block_ndim > NPY_MAXDIMS) {
        char both[128];
        snprintf(both, sizeof both, "%s and %s", names[0], names[1]);
        return sks_check_rank(w->bc.out_ndim + out_block_ndim, both);
    }
    memcpy(shape, w->bc.out_shape, w->bc.out_ndim * sizeof(npy_intp));
    memcpy(shape + w->bc.out_ndim, out_block, out_block_ndim * sizeof(npy_intp));
    w->out = sks_prepare_out(out_obj, "out", w->bc.out_ndim + out_block_ndim, shape);
    if (w->out == NULL) return -1;
    for (k = 0; k < 2; k++) {
        if (sks_check_overlap(w->out, "out", w->ops[k], names[k], allow_exact[k]) < 0) return -1;
    }
    return 0;
}

void sks_binary_run(const sks_binary *w, sks_binary_kernel kernel, npy_intp a_block,
                    npy_intp b_block, npy_intp out_block)
{
    const npy_intp inner = sks_broadcast_inner(&w->bc), outer = sks_broadcast_outer(&w->bc);
    float *o = (float *)PyArray_DATA(w->out);
    const float *a = (const float *)PyArray_DATA(w->ops[0]);
    const float *b = (const float *)PyArray_DATA(w->ops[1]);
    npy_intp it;
    if (PyArray_SIZE(w->out) == 0) return;
    Py_BEGIN_ALLOW_THREADS
    for (it = 0; it < outer; it++) {
        npy_intp off[2], step[2];
        sks_broadcast_offsets(&w->bc, it, off, step);
        kernel(o + it * inner * out_block, a + off[0] * a_block, (size_t)step[0],
               b + off[1] * b_block, (size_t)step[1], (size_t)inner);
    }
    Py_END_ALLOW_THREADS
}

PyObject *sks_binary_finish(sks_binary *w, int ok)
{
    PyObject *result = ok ? (PyObject *)w->out : NULL;
    if (!ok) Py_CLEAR(w->out);
    w->out = NULL;
    Py_CLEAR(w->ops[0]);
    Py_CLEAR(w->ops[1]);
    return result;
}

PyObject *sks_binary_matrices_call(PyObject *const *args, Py_ssize_t nargs, const char *func,
                                   const npy_intp *block, const char *layout,
                                   sks_binary_kernel kernel)
{
    static const char *const names[2] = {"a", "b"};
    static const int trailing[2] = {2, 2}, in_place[2] = {1, 1};
    const npy_intp floats = block[0] * block[1];
    sks_binary w = {{NULL, NULL}, NULL, {0}};
    int k, ok = 0;
    if (!sks_check_nargs(func, nargs, 3)) return NULL;
    for (k = 0; k < 2; k++) {
        w.ops[k] = sks_as_float32(args[k], names[k]);
        if (w.ops[k] == NULL) goto done;
        if (sks_check_shape(w.ops[k], names[k], 2, block, 2, layout) < 0) goto done;
    }
    if (sks_binary_prepare(&w, names, trailing, args[2], block, 2, in_place) < 0) goto done;
    sks_binary_run(&w, kernel, floats, floats, floats);
    ok = 1;
done:
    return sks_binary_finish(&w, ok);
}

/* --- the same conversions for the Python layer ------------------------------------------------ */

/* _as_array(obj, name): obj as an ndarray of its own dtype, as every kernel's glue converts its
 * inputs (DLPack / __array__ without a copy, the requires-grad refusal); for Python wrappers
 * that take arrays, so that there is one conversion rule. */
static PyObject *py_as_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *name;
    (void)self;
    if (!sks_check_nargs("_as_array", nargs, 2)) return NULL;
    name = PyUnicode_AsUTF8(args[1]);
    if (name == NULL) return NULL;
    return (PyObject *)sks_any_array(args[0], name, "an array_like");
}

/* _as_float32(obj, name): obj as a C-contiguous, aligned, native float32 ndarray (no copy when
 * it already is one), as sks_as_float32. */
static PyObject *py_as_float32(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    const char *name;
    (void)self;
    if (!sks_check_nargs("_as_float32", nargs, 2)) return NULL;
    name = PyUnicode_AsUTF8(args[1]);
    if (name == NULL) return NULL;
    return (PyObject *)sks_as_float32(args[0], name);
}

PyMethodDef sks_args_methods[] = {
    {"_as_array", (PyCFunction)(void (*)(void))py_as_array, METH_FASTCALL,
     "_as_array(obj, name) -> ndarray: the glue's input conversion (DLPack, __array__, "
     "array_like), TypeError naming `name`."},
    {"_as_float32", (PyCFunction)(void (*)(void))py_as_float32, METH_FASTCALL,
     "_as_float32(obj, name) -> C-contiguous float32 ndarray, as the kernels' inputs."},
    {NULL, NULL, 0, NULL}};
