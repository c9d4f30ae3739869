/*
 * interop.c -- arrays of other libraries (DLPack, __array__) and the conversions the
 * Python layer shares with the glue, _as_array and _as_float32 (see interop.h).
 */
#include "args.h"


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
PyArrayObject *sks_any_array(PyObject *obj, const char *name, const char *expected)
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

PyMethodDef sks_interop_methods[] = {
    {"_as_array", (PyCFunction)(void (*)(void))py_as_array, METH_FASTCALL,
     "_as_array(obj, name) -> ndarray: the glue's input conversion (DLPack, __array__, "
     "array_like), TypeError naming `name`."},
    {"_as_float32", (PyCFunction)(void (*)(void))py_as_float32, METH_FASTCALL,
     "_as_float32(obj, name) -> C-contiguous float32 ndarray, as the kernels' inputs."},
    {NULL, NULL, 0, NULL}};
