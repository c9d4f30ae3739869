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

/* One chunk of skeletons [begin, end) of a walk (the pool's unit is a whole character). */
typedef struct walk_job {
    const sks_joints_kernels *k;
    const sks_walk_args *w;
    float *out;
    const float *in;
    double *scratch;            /* float64 walk: SKS_L2G_F64_SCRATCH_DOUBLES(stop) per slot */
    int is_inverse, rigid;
} walk_job;

static void walk_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const walk_job *j = (const walk_job *)ctx;
    const sks_walk_args *w = j->w;
    const size_t skel = (size_t)w->joints * SKS_JOINT_FLOATS;
    float *o = j->out + begin * skel;
    const float *x = j->in + begin * skel;
    if (j->is_inverse) {
        j->k->global_to_local(o, x, w->parents.data, end - begin, (size_t)w->joints,
                              (size_t)w->start, (size_t)w->stop, j->rigid);
    } else if (j->scratch != NULL) {
        j->k->local_to_global_f64(o, x, w->parents.data, end - begin, (size_t)w->joints,
                                  (size_t)w->start, (size_t)w->stop,
                                  j->scratch + slot * SKS_L2G_F64_SCRATCH_DOUBLES((size_t)w->stop));
    } else {
        j->k->local_to_global(o, x, w->parents.data, end - begin, (size_t)w->joints,
                              (size_t)w->start, (size_t)w->stop, (size_t)w->batch);
    }
}

/* Shared by local_to_global and global_to_local: validates (pose batch, parents, range, out),
 * then runs the walk with the GIL released, divided over the pool by skeletons when the batch
 * is large. Joints outside [start, stop) of a freshly allocated out are copies of the input; a
 * caller's out keeps its values there. */
static PyObject *hierarchy_call(PyObject *const *args, const char *in_name, int is_inverse,
                                int rigid, int precision64)
{
    sks_walk_args w;
    walk_job job;
    sks_pool_plan plan;
    if (sks_parse_walk(&w, args, in_name, joint_shape, 2, "(..., J, 3, 4)") < 0) return NULL;
    job.k = SKS_KERNELS(joints);
    job.w = &w;
    job.scratch = NULL;
    job.is_inverse = is_inverse;
    job.rigid = rigid;
    plan = sks_parallel_plan((size_t)w.batch,
                             SKS_NS_WALK_JOINT * (double)(w.stop - w.start) * (is_inverse ? 1.5 : 1));
    if (precision64 && w.batch > 0 && w.stop > w.start) {
        job.scratch = sks_walk_scratch(&w, plan.slots * SKS_L2G_F64_SCRATCH_DOUBLES((size_t)w.stop));
        if (job.scratch == NULL) return NULL;
    }

    Py_BEGIN_ALLOW_THREADS
    job.out = (float *)PyArray_DATA(w.out);
    job.in = (const float *)PyArray_DATA(w.in);
    sks_walk_prefill(&w);
    if (w.batch > 0 && w.stop > w.start) sks_pool_run(&plan, walk_chunk, &job);
    Py_END_ALLOW_THREADS
    PyMem_RawFree(job.scratch);

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

/* Skeleton.local_to_global / global_to_local: the functions above with the Skeleton as parents,
 * as methods (METH_FASTCALL | METH_KEYWORDS: no Python frame between the caller and the walk,
 * the per-frame call of a character). */
/* Either method: args as passed (the input, then out, start, stop and the option, precision or
 * rigid, by position up to out or by keyword) become the positional arguments of the function
 * with the Skeleton as parents. */
static PyObject *skeleton_walk(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                               PyObject *kwnames, int is_inverse)
{
    const char *const func = is_inverse ? "global_to_local" : "local_to_global";
    const char *const input = is_inverse ? "global_" : "local";
    const char *const option_name = is_inverse ? "rigid" : "precision";
    const char *const names[5] = {input, "out", "start", "stop", option_name};
    PyObject *v[5], *walk[6];
    int option;
    if (sks_method_args(func, args, nargs, kwnames, names, 5, 2, 1, v) < 0) return NULL;
    walk[0] = v[0];
    walk[1] = self;
    walk[2] = v[1];
    walk[3] = v[2];
    walk[4] = v[3];
    walk[5] = v[4];
    option = is_inverse ? sks_parse_bool(v[4], option_name, 0)
                        : sks_parse_choice(v[4], option_name, precisions, 0);
    if (option < 0) return NULL;
    return hierarchy_call(walk, input, is_inverse, is_inverse && option,
                          !is_inverse && option == 1);
}

static PyObject *py_skeleton_local_to_global(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs, PyObject *kwnames)
{
    return skeleton_walk(self, args, nargs, kwnames, 0);
}

static PyObject *py_skeleton_global_to_local(PyObject *self, PyObject *const *args,
                                             Py_ssize_t nargs, PyObject *kwnames)
{
    return skeleton_walk(self, args, nargs, kwnames, 1);
}

PyMethodDef sks_skeleton_walk_methods[] = {
    {"local_to_global", (PyCFunction)(void (*)(void))py_skeleton_local_to_global,
     METH_FASTCALL | METH_KEYWORDS,
     "local_to_global($self, local, out=None, *, start=0, stop=None, precision='float32')\n--\n\n"
     "Local joint matrices (..., J, 3, 4) to global ones on this skeleton: exactly\n"
     "``skelsimd.local_to_global(local, self, out, start=start, stop=stop, precision=precision)``\n"
     "(see it for the formula, the range and the accuracy), called without a Python frame in\n"
     "between: the per-frame call of one character.\n\n"
     "Examples\n--------\n"
     ">>> import numpy as np, skelsimd\n"
     ">>> skeleton = skelsimd.Skeleton([-1, 0, 1])\n"
     ">>> local = np.zeros((3, 3, 4), np.float32); local[:, :, :3] = np.eye(3)\n"
     ">>> local[:, :, 3] = [1, 0, 0]\n"
     ">>> skeleton.local_to_global(local)[:, :, 3]\n"
     "array([[1., 0., 0.],\n"
     "       [2., 0., 0.],\n"
     "       [3., 0., 0.]], dtype=float32)\n"},
    {"global_to_local", (PyCFunction)(void (*)(void))py_skeleton_global_to_local,
     METH_FASTCALL | METH_KEYWORDS,
     "global_to_local($self, global_, out=None, *, start=0, stop=None, rigid=False)\n--\n\n"
     "Global joint matrices (..., J, 3, 4) back to local ones on this skeleton: exactly\n"
     "``skelsimd.global_to_local(global_, self, out, start=start, stop=stop, rigid=rigid)``.\n\n"
     "Examples\n--------\n"
     ">>> import numpy as np, skelsimd\n"
     ">>> skeleton = skelsimd.Skeleton([-1, 0, 1])\n"
     ">>> local = np.zeros((3, 3, 4), np.float32); local[:, :, :3] = np.eye(3)\n"
     ">>> local[:, :, 3] = [1, 0, 0]\n"
     ">>> bool(np.array_equal(skeleton.global_to_local(skeleton.local_to_global(local)), local))\n"
     "True\n"},
    {NULL, NULL, 0, NULL}};

/* a (..., 3, 4) @ b (..., 3, 4) -> out (..., 3, 4), leading dims broadcast, out may be a or b. */
static const sks_signature multiply_sig = {
    "multiply_joints", 2,
    {{"a", "(..., 3, 4)", 2, {3, 4}, 1}, {"b", "(..., 3, 4)", 2, {3, 4}, 1}}, 2, {3, 4}};

static PyObject *py_multiply_joints(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return sks_binary_call(&multiply_sig, args, nargs, SKS_KERNELS(joints)->multiply_joints);
}

typedef struct invert_job {
    const sks_joints_kernels *k;
    float *out;
    const float *in;
    int rigid;
} invert_job;

static void invert_chunk(void *ctx, size_t begin, size_t end, size_t slot)
{
    const invert_job *j = (const invert_job *)ctx;
    (void)slot;
    j->k->invert_joints(j->out + begin * SKS_JOINT_FLOATS, j->in + begin * SKS_JOINT_FLOATS,
                        end - begin, j->rigid);
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
        invert_job job;
        job.k = SKS_KERNELS(joints);
        job.out = (float *)PyArray_DATA(out);
        job.in = (const float *)PyArray_DATA(m);
        job.rigid = rigid;
        Py_BEGIN_ALLOW_THREADS
        sks_parallel_for((size_t)(PyArray_SIZE(m) / SKS_JOINT_FLOATS),
                         SKS_NS_OUT_FLOAT * 2 * SKS_JOINT_FLOATS, invert_chunk, &job);
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
