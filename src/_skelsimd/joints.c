/*
 * joints.c (glue) -- Python entry points of the joint-matrix family. The public wrappers with
 * their documentation are in skelsimd/joints.py; kernels in src/kernels/joints.c.
 *
 * Positional arguments only (the Python wrappers forward keywords):
 *   local_to_global(local, parents, out, start, stop, precision)
 *   global_to_local(global_, parents, out, start, stop, rigid)
 *   multiply_joints(a, b, out)
 *   invert_joints(m, out, rigid)
 */
#include "args.h"

#include "../kernels/joints.h"

static const npy_intp joint_shape[2] = {3, 4};

/* Shared by local_to_global and global_to_local: validates (pose batch, parents, range, out),
 * then runs `walk` with the GIL released. Joints outside [start, stop) of a freshly allocated
 * out are copies of the input; a caller's out keeps its values there. */
static PyObject *hierarchy_call(PyObject *const *args, const char *in_name, int is_inverse,
                                int rigid, int precision64)
{
    const sks_joints_kernels *k = SKS_KERNELS(joints);
    sks_walk_args w;
    double *scratch = NULL;
    if (sks_parse_walk(&w, args, in_name, joint_shape, 2, "(..., J, 3, 4)") < 0) return NULL;
    if (precision64 && w.batch > 0 && w.stop > w.start) {
        scratch = sks_walk_scratch(&w, SKS_L2G_F64_SCRATCH_DOUBLES((size_t)w.stop));
        if (scratch == NULL) return NULL;
    }

    Py_BEGIN_ALLOW_THREADS
    float *o = (float *)PyArray_DATA(w.out);
    const float *x = (const float *)PyArray_DATA(w.in);
    sks_walk_prefill(&w);
    if (w.batch > 0 && w.stop > w.start) {
        if (is_inverse) {
            k->global_to_local(o, x, w.parents.data, (size_t)w.batch, (size_t)w.joints,
                               (size_t)w.start, (size_t)w.stop, rigid);
        } else if (scratch != NULL) {
            k->local_to_global_f64(o, x, w.parents.data, (size_t)w.batch, (size_t)w.joints,
                                   (size_t)w.start, (size_t)w.stop, scratch);
        } else {
            k->local_to_global(o, x, w.parents.data, (size_t)w.batch, (size_t)w.joints,
                               (size_t)w.start, (size_t)w.stop);
        }
    }
    Py_END_ALLOW_THREADS
    PyMem_RawFree(scratch);

    return sks_walk_finish(&w);
}

/* The precision of the global poses carried down the hierarchy (the output is float32). */
static const char *const precisions[] = {"float32", "float64", NULL};

static PyObject *py_local_to_global(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int precision;
    (void)self;
    if (!sks_check_nargs("local_to_global", nargs, 6)) return NULL;
    precision = sks_parse_choice(args[5], "precision", precisions, 0);
    if (precision < 0) return NULL;
    return hierarchy_call(args, "local", 0, 0, precision == 1);
}

static PyObject *py_global_to_local(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int rigid;
    (void)self;
    if (!sks_check_nargs("global_to_local", nargs, 6)) return NULL;
    rigid = sks_parse_bool(args[5], "rigid", 0);
    if (rigid < 0) return NULL;
    return hierarchy_call(args, "global_", 1, rigid, 0);
}

/* a (..., 3, 4) @ b (..., 3, 4) -> out (..., 3, 4), leading dims broadcast, out may be a or b. */
static const sks_signature multiply_sig = {
    "multiply_joints", 2,
    {{"a", "(..., 3, 4)", 2, {3, 4}, 1}, {"b", "(..., 3, 4)", 2, {3, 4}, 1}}, 2, {3, 4}};

static PyObject *py_multiply_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return sks_binary_call(&multiply_sig, args, nargs, SKS_KERNELS(joints)->multiply_joints);
}

static PyObject *py_invert_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyArrayObject *m = NULL, *out = NULL;
    int rigid;
    (void)self;
    if (!sks_check_nargs("invert_joints", nargs, 3)) return NULL;
    rigid = sks_parse_bool(args[2], "rigid", 0);
    if (rigid < 0) return NULL;
    m = sks_as_float32(args[0], "m");
    if (m == NULL) goto fail;
    if (sks_check_shape(m, "m", 2, joint_shape, 2, "(..., 3, 4)") < 0) goto fail;
    out = sks_prepare_out(args[1], "out", PyArray_NDIM(m), PyArray_DIMS(m));
    if (out == NULL) goto fail;
    if (sks_check_overlap(out, "out", m, "m", 1) < 0) goto fail;
    {
        const sks_joints_kernels *k = SKS_KERNELS(joints);
        const size_t n = (size_t)(PyArray_SIZE(m) / SKS_JOINT_FLOATS);
        float *o = (float *)PyArray_DATA(out);
        const float *x = (const float *)PyArray_DATA(m);
        Py_BEGIN_ALLOW_THREADS
        k->invert_joints(o, x, n, rigid);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(m);
    return (PyObject *)out;
fail:
    Py_XDECREF(m);
    Py_XDECREF(out);
    return NULL;
}

PyMethodDef sks_joints_methods[] = {
    SKS_METHOD(local_to_global, "(local, parents, out, start, stop, precision)"),
    SKS_METHOD(global_to_local, "(global_, parents, out, start, stop, rigid)"),
    SKS_METHOD(multiply_joints, "(a, b, out)"),
    SKS_METHOD(invert_joints, "(m, out, rigid)"),
    {NULL, NULL, 0, NULL}};
