/*
 * inertialize.c (glue) -- Python entry points of the inertialization family. The public
 * wrappers with their documentation are in skelsimd/inertialize.py (which broadcasts the
 * operands first); kernels in src/kernels/inertialize.c.
 *
 * Positional arguments only:
 *   inertialize_update(pose, offset, offset_velocity, halflife, dt)
 *       pose (..., J, 8), offset and offset_velocity (..., J, 6) of the same leading shape,
 *       halflife > 0 and dt >= 0 finite numbers -> (out, offset, offset_velocity), new arrays
 *   inertialize_transition(source, source_velocity, target, target_velocity, offset,
 *                          offset_velocity)
 *       source, target (..., J, 8), the others (..., J, 6) of the same leading shape (offset and
 *       offset_velocity may be None) -> (offset, offset_velocity), new arrays
 */
#include "args.h"

#include <math.h>

#include "../kernels/inertialize.h"

/* arr as float32 with the trailing dimension `last` and, when lead_of is given, the leading
 * shape of lead_of (its last dimension aside). */
static PyArrayObject *operand(PyObject *obj, const char *name, npy_intp last, PyArrayObject *lead_of)
{
    PyArrayObject *a = sks_as_float32(obj, name);
    int d, ok;
    if (a == NULL) return NULL;
    if (sks_check_shape(a, name, 2, &last, 1, last == 8 ? "(..., J, 8)" : "(..., J, 6)") < 0) {
        Py_DECREF(a);
        return NULL;
    }
    if (lead_of == NULL) return a;
    ok = PyArray_NDIM(a) == PyArray_NDIM(lead_of);
    for (d = 0; ok && d < PyArray_NDIM(a) - 1; d++) ok = PyArray_DIM(a, d) == PyArray_DIM(lead_of, d);
    if (!ok) {
        char got[256], want[256];
        sks_format_shape(got, sizeof got, PyArray_NDIM(a), PyArray_DIMS(a));
        sks_format_shape(want, sizeof want, PyArray_NDIM(lead_of) - 1, PyArray_DIMS(lead_of));
        PyErr_Format(PyExc_ValueError, "%s: expected the leading shape %s followed by %ld, got %s",
                     name, want, (long)last, got);
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static int number(PyObject *obj, const char *name, double *x, int positive)
{
    *x = PyFloat_AsDouble(obj);
    if (*x == -1.0 && PyErr_Occurred()) return -1;
    if (!(isfinite(*x) && (positive ? *x > 0.0 : *x >= 0.0))) {
        PyErr_Format(PyExc_ValueError, "%s: expected a finite number %s, got %R", name,
                     positive ? "> 0" : ">= 0", obj);
        return -1;
    }
    return 0;
}

/* A new float32 array of pose's leading shape followed by `last`. */
static PyArrayObject *new_like(PyArrayObject *pose, npy_intp last)
{
    npy_intp shape[NPY_MAXDIMS];
    const int nd = PyArray_NDIM(pose);
    int d;
    for (d = 0; d < nd - 1; d++) shape[d] = PyArray_DIM(pose, d);
    shape[nd - 1] = last;
    return (PyArrayObject *)PyArray_SimpleNew(nd, shape, NPY_FLOAT32);
}

/* inertialize_update and inertialize_transition divided over the pool by joints: the QTS
 * inputs advance 8 floats per joint, the offsets and velocities 6. */
typedef struct inertialize_job {
    const sks_inertialize_kernels *k;
    const sks_inertialize_decay *c;
    float *out, *offset_out, *velocity_out;
    const float *in[6];
} inertialize_job;

static const float *at(const float *p, size_t begin, size_t floats)
{
    return p ? p + begin * floats : NULL;
}

static void update_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const inertialize_job *j = (const inertialize_job *)ctx;
    (void)slot;
    j->k->update(j->out + begin * 8, j->offset_out + begin * 6, j->velocity_out + begin * 6,
                 j->in[0] + begin * 8, j->in[1] + begin * 6, j->in[2] + begin * 6, end - begin,
                 j->c);
}

/* transition's inputs: source (QTS), its velocity, target (QTS), its velocity, offset and
 * offset velocity (NULL when not given). */
static void transition_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const inertialize_job *j = (const inertialize_job *)ctx;
    (void)slot;
    j->k->transition(j->offset_out + begin * 6, j->velocity_out + begin * 6,
                     at(j->in[0], begin, 8), at(j->in[1], begin, 6), at(j->in[2], begin, 8),
                     at(j->in[3], begin, 6), at(j->in[4], begin, 6), at(j->in[5], begin, 6),
                     end - begin);
}

static PyObject *py_inertialize_update(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *pose = NULL, *off = NULL, *vel = NULL, *out = NULL, *oo = NULL, *vo = NULL;
    double halflife, dt;
    (void)self;
    if (!sks_check_nargs("inertialize_update", nargs, 5)) return NULL;
    if (number(args[3], "halflife", &halflife, 1) < 0 || number(args[4], "dt", &dt, 0) < 0)
        return NULL;
    pose = operand(args[0], "pose", 8, NULL);
    if (pose == NULL) goto fail;
    off = operand(args[1], "offset", 6, pose);
    if (off == NULL) goto fail;
    vel = operand(args[2], "offset_velocity", 6, pose);
    if (vel == NULL) goto fail;
    out = new_like(pose, 8);
    oo = new_like(pose, 6);
    vo = new_like(pose, 6);
    if (out == NULL || oo == NULL || vo == NULL) goto fail;
    {
        const sks_inertialize_kernels *k = SKS_KERNELS(inertialize);
        const double y = 2.0 * log(2.0) / halflife, e = exp(-y * dt);
        sks_inertialize_decay c;
        const size_t n = (size_t)(PyArray_SIZE(pose) / 8);
        c.y = (float)y;
        c.e = (float)e;
        c.dt = c.e == 0.0f ? 0.0f : (float)dt;
        c.ydt = c.e == 0.0f ? 0.0f : (float)(y * dt);
        if (n > 0) {
            inertialize_job j;
            j.k = k;
            j.c = &c;
            j.out = (float *)PyArray_DATA(out);
            j.offset_out = (float *)PyArray_DATA(oo);
            j.velocity_out = (float *)PyArray_DATA(vo);
            j.in[0] = (const float *)PyArray_DATA(pose);
            j.in[1] = (const float *)PyArray_DATA(off);
            j.in[2] = (const float *)PyArray_DATA(vel);
            Py_BEGIN_ALLOW_THREADS
            sks_parallel_for(n, SKS_NS_ROTATION, update_chunk, &j);
            Py_END_ALLOW_THREADS
        }
    }
    Py_DECREF(pose);
    Py_DECREF(off);
    Py_DECREF(vel);
    return Py_BuildValue("(NNN)", (PyObject *)out, (PyObject *)oo, (PyObject *)vo);
fail:
    Py_XDECREF(pose);
    Py_XDECREF(off);
    Py_XDECREF(vel);
    Py_XDECREF(out);
    Py_XDECREF(oo);
    Py_XDECREF(vo);
    return NULL;
}

static PyObject *py_inertialize_transition(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    static const char *const names[6] = {"source", "source_velocity", "target", "target_velocity",
                                         "offset", "offset_velocity"};
    static const npy_intp last[6] = {8, 6, 8, 6, 6, 6};
    PyArrayObject *a[6] = {NULL, NULL, NULL, NULL, NULL, NULL}, *oo = NULL, *vo = NULL;
    int i;
    (void)self;
    if (!sks_check_nargs("inertialize_transition", nargs, 6)) return NULL;
    for (i = 0; i < 6; i++) {
        if (i >= 4 && args[i] == Py_None) continue;
        a[i] = operand(args[i], names[i], last[i], i ? a[0] : NULL);
        if (a[i] == NULL) goto fail;
    }
    oo = new_like(a[0], 6);
    vo = new_like(a[0], 6);
    if (oo == NULL || vo == NULL) goto fail;
    {
        const sks_inertialize_kernels *k = SKS_KERNELS(inertialize);
        const size_t n = (size_t)(PyArray_SIZE(a[0]) / 8);
        inertialize_job j;
        j.k = k;
        j.offset_out = (float *)PyArray_DATA(oo);
        j.velocity_out = (float *)PyArray_DATA(vo);
        for (i = 0; i < 6; i++) j.in[i] = a[i] ? (const float *)PyArray_DATA(a[i]) : NULL;
        if (n > 0) {
            Py_BEGIN_ALLOW_THREADS
            sks_parallel_for(n, 2 * SKS_NS_ROTATION, transition_chunk, &j);
            Py_END_ALLOW_THREADS
        }
    }
    for (i = 0; i < 6; i++) Py_XDECREF(a[i]);
    return Py_BuildValue("(NN)", (PyObject *)oo, (PyObject *)vo);
fail:
    for (i = 0; i < 6; i++) Py_XDECREF(a[i]);
    Py_XDECREF(oo);
    Py_XDECREF(vo);
    return NULL;
}

PyMethodDef sks_inertialize_methods[] = {
    {"inertialize_update", (PyCFunction)(void (*)(void))py_inertialize_update, METH_FASTCALL,
     "inertialize_update(pose, offset, offset_velocity, halflife, dt): see "
     "skelsimd.inertialize_update"},
    {"inertialize_transition", (PyCFunction)(void (*)(void))py_inertialize_transition,
     METH_FASTCALL,
     "inertialize_transition(source, source_velocity, target, target_velocity, offset, "
     "offset_velocity): see skelsimd.inertialize_transition"},
    {NULL, NULL, 0, NULL}};
