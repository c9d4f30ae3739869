/*
 * parsing.c -- plain arguments: counts, truth values, choices, joint ranges, and the
 * shape formatting of messages (see parsing.h).
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


int sks_method_args(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, int count, int positional, int required,
                    PyObject **vals)
{
    Py_ssize_t i, nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    int k;
    for (k = 0; k < count; k++) vals[k] = NULL;
    if (nargs > positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)",
                     func, positional, nargs);
        return -1;
    }
    for (i = 0; i < nargs; i++) vals[i] = args[i];
    for (i = 0; i < nkw; i++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        if (key == NULL) return -1;
        for (k = 0; k < count; k++) {
            if (strcmp(key, names[k]) == 0) break;
        }
        if (k == count) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", func, key);
            return -1;
        }
        if (vals[k] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", func, key);
            return -1;
        }
        vals[k] = args[nargs + i];
    }
    for (k = 0; k < required; k++) {
        if (vals[k] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", func, names[k]);
            return -1;
        }
    }
    return 0;
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
