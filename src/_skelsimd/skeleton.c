/*
 * skeleton.c (glue) -- the C side of skelsimd.Skeleton and of BVH import.
 *
 *   SkeletonBase(parents, ...)   the C base type of skelsimd.Skeleton (skelsimd/skeleton.py):
 *                                validates `parents` once (sks_parse_parents) and keeps a
 *                                read-only int32 copy. sks_parse_parents (hierarchy.c) accepts any
 *                                instance without re-validating, so every function of every
 *                                family that takes `parents` takes a Skeleton for free. Its
 *                                methods local_to_global / global_to_local are the joint
 *                                family's walks (joints.c).
 *   _parse_motion(data, offset, rows, cols, first_line)
 *                                the MOTION numbers of a BVH file as a float64 (rows, cols)
 *                                array; ValueError naming the line on malformed data.
 */
#include "args.h"

#include "../kernels/bvh_parse.h"

/* --- SkeletonBase ---------------------------------------------------------------------------- */

/* An int32 (n,) array over a private copy of `data` held by an immutable bytes object: it is
 * not writeable, and NumPy refuses to set its WRITEABLE flag (the base has no writable buffer),
 * so a validated hierarchy can never be changed behind the kernels' back. */
static PyArrayObject *frozen_int32_copy(const int32_t *data, npy_intp n)
{
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)(n * 4));
    PyArrayObject *arr;
    if (bytes == NULL) return NULL;
    arr = (PyArrayObject *)PyArray_NewFromDescr(
        &PyArray_Type, PyArray_DescrFromType(NPY_INT32), 1, &n, NULL, PyBytes_AS_STRING(bytes),
        NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED, NULL);
    if (arr == NULL) {
        Py_DECREF(bytes);
        return NULL;
    }
    if (PyArray_SetBaseObject(arr, bytes) < 0) { /* steals bytes */
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

static PyObject *skeleton_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    PyObject *parents_obj = NULL;
    sks_parents parsed = {NULL, NULL, NULL, 0};
    sks_skeleton_object *self;
    PyArrayObject *frozen;
    npy_intp n;
    if (PyTuple_GET_SIZE(args) > 0) {
        parents_obj = PyTuple_GET_ITEM(args, 0);
    } else if (kwds != NULL) {
        parents_obj = PyDict_GetItemString(kwds, "parents");  /* borrowed */
    }
    if (parents_obj == NULL) {
        PyErr_SetString(PyExc_TypeError, "Skeleton() missing required argument 'parents'");
        return NULL;
    }
    if (sks_parse_parents(parents_obj, -1, "", &parsed) < 0) return NULL;
    n = parsed.count;
    frozen = frozen_int32_copy(parsed.data, n);
    sks_parents_release(&parsed);
    if (frozen == NULL) return NULL;
    self = (sks_skeleton_object *)type->tp_alloc(type, 0);
    if (self == NULL) {
        Py_DECREF(frozen);
        return NULL;
    }
    self->parents = frozen;
    self->njoints = n;
    return (PyObject *)self;
}

static void skeleton_dealloc(PyObject *obj)
{
    sks_skeleton_object *self = (sks_skeleton_object *)obj;
    Py_CLEAR(self->parents);
    Py_TYPE(obj)->tp_free(obj);
}

static PyObject *skeleton_get_parents(PyObject *obj, void *closure)
{
    sks_skeleton_object *self = (sks_skeleton_object *)obj;
    (void)closure;
    if (self->parents == NULL) {
        PyErr_SetString(PyExc_AttributeError, "parents: the Skeleton was not initialised");
        return NULL;
    }
    Py_INCREF(self->parents);
    return (PyObject *)self->parents;
}

static PyGetSetDef skeleton_getset[] = {
    {"parents", skeleton_get_parents, NULL,
     "parents: int32 (J,), read-only: -1 for a root, otherwise parents[j] < j.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject sks_skeleton_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skelsimd._core.SkeletonBase",
    .tp_basicsize = sizeof(sks_skeleton_object),
    .tp_dealloc = skeleton_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "SkeletonBase(parents): a validated, immutable int32 parents array (the C base of "
              "skelsimd.Skeleton; kernels accept it as `parents` without re-validating).",
    .tp_getset = skeleton_getset,
    .tp_methods = sks_skeleton_walk_methods,
    .tp_new = skeleton_new,
};

/* Called once from module.c. */
int sks_skeleton_add_types(PyObject *module)
{
    return sks_add_type(module, &sks_skeleton_type, "SkeletonBase");
}

/* --- _parse_motion ---------------------------------------------------------------------------- */

static void raise_text_error(const sks_text_error *e, const char *text, size_t rows, size_t cols)
{
    char token[41];
    const size_t shown = e->length > 40 ? 40 : e->length;
    memcpy(token, text + e->offset, shown);
    token[shown] = '\0';
    switch (e->status) {
    case SKS_TEXT_BAD_NUMBER:
        PyErr_Format(PyExc_ValueError, "line %zu: expected a number (frame %zu), got '%s'",
                     e->line, e->row, token);
        break;
    case SKS_TEXT_OUT_OF_RANGE:
        PyErr_Format(PyExc_ValueError, "line %zu: '%s' is beyond the float32 range (frame %zu)",
                     e->line, token, e->row);
        break;
    case SKS_TEXT_TOO_FEW:
    case SKS_TEXT_TOO_MANY:
        PyErr_Format(PyExc_ValueError, "line %zu: expected %zu channel values (frame %zu), got %zu",
                     e->line, cols, e->row, e->count);
        break;
    case SKS_TEXT_MISSING_ROWS:
        PyErr_Format(PyExc_ValueError, "line %zu: the motion data ends after %zu of the %zu frames "
                     "declared by 'Frames:'", e->line, e->row, rows);
        break;
    case SKS_TEXT_EXTRA_ROWS:
        PyErr_Format(PyExc_ValueError, "line %zu: more motion lines than the %zu frames declared by "
                     "'Frames:'", e->line, rows);
        break;
    default:
        PyErr_SetString(PyExc_SystemError, "_parse_motion: unknown parser status");
    }
}

static PyObject *py_parse_motion(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer buf;
    Py_ssize_t offset, rows, cols, first_line, alloc_rows;
    PyArrayObject *out;
    npy_intp shape[2];
    sks_text_error err;
    enum sks_text_status status;
    (void)self;
    if (!sks_check_nargs("_parse_motion", nargs, 5)) return NULL;
    offset = PyNumber_AsSsize_t(args[1], PyExc_OverflowError);
    rows = PyNumber_AsSsize_t(args[2], PyExc_OverflowError);
    cols = PyNumber_AsSsize_t(args[3], PyExc_OverflowError);
    first_line = PyNumber_AsSsize_t(args[4], PyExc_OverflowError);
    if (PyErr_Occurred()) return NULL;
    if (rows < 0 || cols < 0 || first_line < 0) {
        PyErr_SetString(PyExc_ValueError, "_parse_motion: rows, cols and first_line must be >= 0");
        return NULL;
    }
    if (PyObject_GetBuffer(args[0], &buf, PyBUF_SIMPLE) < 0) return NULL;
    if (offset < 0 || offset > buf.len) {
        PyBuffer_Release(&buf);
        PyErr_SetString(PyExc_ValueError, "_parse_motion: offset outside the data");
        return NULL;
    }
    /* A row is `cols` numbers of at least one byte, each followed by a separator or a line
     * end (the last one by the end of the text), so the text holds at most
     * (bytes + 1) / (2 cols) rows. A larger declared count is refused as missing rows without
     * allocating it: rows are read into capacity + 1 rows, where the parser meets the end of
     * the data (or the first malformed row) exactly as it would with the full array. */
    {
        const size_t avail = (size_t)(buf.len - offset);
        const size_t capacity = cols ? (avail + 1) / (2 * (size_t)cols) : 0;
        alloc_rows = cols && (size_t)rows > capacity ? (Py_ssize_t)capacity + 1 : rows;
    }
    shape[0] = alloc_rows;
    shape[1] = cols;
    out = (PyArrayObject *)PyArray_SimpleNew(2, shape, NPY_FLOAT64);
    if (out == NULL) {
        PyBuffer_Release(&buf);
        return NULL;
    }
    {
        const char *text = (const char *)buf.buf + offset;
        const size_t len = (size_t)(buf.len - offset);
        double *dst = (double *)PyArray_DATA(out);
        /* Without channels there is nothing per frame to read: only blank lines may follow. */
        const size_t want_rows = cols == 0 ? 0 : (size_t)alloc_rows;
        Py_BEGIN_ALLOW_THREADS
        status = sks_parse_rows(text, len, want_rows, (size_t)cols, dst, (size_t)first_line, &err);
        Py_END_ALLOW_THREADS
        if (status == SKS_TEXT_OK && alloc_rows < rows) {   /* cannot happen: see capacity */
            status = SKS_TEXT_MISSING_ROWS;
            err.status = status;
            err.row = (size_t)alloc_rows;
            err.line = (size_t)first_line;
        }
        if (status != SKS_TEXT_OK) raise_text_error(&err, text, (size_t)rows, (size_t)cols);
    }
    PyBuffer_Release(&buf);
    if (status != SKS_TEXT_OK) {
        Py_DECREF(out);
        return NULL;
    }
    return (PyObject *)out;
}

PyMethodDef sks_skeleton_methods[] = {
    {"_parse_motion", (PyCFunction)(void (*)(void))py_parse_motion, METH_FASTCALL,
     "_parse_motion(data, offset, rows, cols, first_line) -> float64 (rows, cols): the numbers "
     "of a BVH MOTION block starting at data[offset:] (see skelsimd.bvh)."},
    {NULL, NULL, 0, NULL}};
