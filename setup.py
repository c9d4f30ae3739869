"""Build of the one extension module, skelsimd._core.

Kernel families are written once against the vector vocabulary (src/kernels/vec*.h) and compiled
once per instruction-set target, each time as its own translation unit with that target's flags:

    target   where                  flags (GCC/clang)      flags (MSVC)
    scalar   every platform         (baseline)             (baseline)
    sse41    x86-64                 -msse4.1               (none needed)
    avx2     x86-64                 -mavx2 -mfma           /arch:AVX2
    avx512   x86-64                 avx2's + -mavx512f     /arch:AVX512
                                    -mavx512bw -mavx512dq
                                    -mavx512vl
    neon     aarch64 (arm64)        (baseline: NEON is part of ARMv8-A)

The family sources are listed in src/kernels/families.h (SKS_FAMILY(name) lines); each is compiled
with -DSKS_COMPILING_<TARGET> into build_temp/<target>/ and linked beside the rest (the dispatch
tables, CPU detection, the BVH reader and the CPython glue, compiled once with the baseline
flags). No -march anywhere: a wheel built here runs on any CPU of its architecture, and the best
target it supports is chosen at run time (src/kernels/cpu.c). -ffp-contract=off keeps a*b+c
unfused, so every target rounds the same way.
"""
import glob
import os
import re
import sys
import sysconfig
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = "src/kernels"


def family_sources():
    """The kernel family sources named in src/kernels/families.h."""
    with open(os.path.join(KERNELS, "families.h"), encoding="utf-8") as f:
        names = re.findall(r"^\s*SKS_FAMILY\((\w+)\)", f.read(), flags=re.M)
    return [os.path.join(KERNELS, name + ".c") for name in names]


def target_machine():
    """The CPU architecture the extension is built for: x86_64, aarch64 or other. Honours
    cross-compilation settings (ARCHFLAGS on macOS, _PYTHON_HOST_PLATFORM as cibuildwheel sets)."""
    archflags = os.environ.get("ARCHFLAGS", "")
    arches = re.findall(r"-arch\s+(\S+)", archflags)
    if len(arches) > 1:
        sys.exit("skelsimd: build one architecture at a time (ARCHFLAGS=%r)" % archflags)
    machine = arches[0] if arches else sysconfig.get_platform().rsplit("-", 1)[-1]
    machine = machine.lower()
    if machine in ("x86_64", "amd64", "win_amd64", "x64") or machine.endswith("x86_64"):
        return "x86_64"
    if machine in ("aarch64", "arm64") or machine.endswith("arm64") or machine.endswith("aarch64"):
        return "aarch64"
    return "other"


AVX512_FLAGS = ["-mavx2", "-mfma", "-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"]


def targets(msvc):
    """(name, extra flags) of every target built for this architecture; scalar first."""
    machine = target_machine()
    result = [("scalar", [])]
    if machine == "x86_64":
        result += [("sse41", [] if msvc else ["-msse4.1"]),
                   ("avx2", ["/arch:AVX2"] if msvc else ["-mavx2", "-mfma"]),
                   ("avx512", ["/arch:AVX512"] if msvc else AVX512_FLAGS)]
    elif machine == "aarch64":
        result += [("neon", [])]
    return result


class build_ext_per_target(build_ext):
    """Compiles every kernel family once per target into its own objects, and the extension's
    other sources once, all in parallel (one compiler process per core; SKELSIMD_BUILD_JOBS=N
    to choose), printing a line per target; then links them.

    Objects are reused when they are newer than their source and every header and were built
    with the same compiler, flags and NumPy (a stamp per target directory): an in-place or
    editable build keeps its objects in build/objects/ (pip's editable installs otherwise
    compile in a fresh temporary directory every time), so a rebuild after a change compiles
    only what the change touches. ``build_ext --force`` compiles everything."""

    def build_extension(self, ext):
        from setuptools.modified import newer_group

        ext_path = self.get_ext_fullpath(ext.name)
        if not (self.force or newer_group(list(ext.sources) + list(ext.depends), ext_path,
                                          "newer")):
            return super().build_extension(ext)   # up to date: setuptools skips it too
        msvc = self.compiler.compiler_type == "msvc"
        if getattr(self.compiler, "initialized", True) is False:
            self.compiler.initialize()            # once, before the threads share it
        temp = self.build_temp
        if getattr(self, "editable_mode", False) or getattr(self, "inplace", False):
            temp = os.path.join("build", "objects", sysconfig.get_platform() + "-"
                                + sys.implementation.cache_tag)
        headers = [d for d in ext.depends if d.endswith(".h")]
        groups = [("glue", list(ext.sources), list(ext.define_macros), compile_args(msvc),
                   os.path.join(temp, "glue"))]
        for name, flags in targets(msvc):
            groups.append((name, family_sources(),
                           list(ext.define_macros) + [("SKS_COMPILING_" + name.upper(), "1")],
                           compile_args(msvc) + flags, os.path.join(temp, "targets", name)))
        if not msvc and not self.debug and not any(
                flag.startswith("-g") for flag in os.environ.get("CFLAGS", "").split()):
            # Python's own CFLAGS carry -g: debug information costs about a third of the
            # compile time (blend.c: 29 -> 19 s of CPU) and changes no instruction. A debug
            # build (build_ext --debug, or -g in CFLAGS as .ci/sanitize passes) keeps it.
            for group in groups:
                group[3].append("-g0")
        jobs, objects = [], []
        for name, sources, macros, args, out_dir in groups:
            stale, objs = self._stale(sources, macros, args, out_dir, headers, ext)
            objects += objs
            jobs += [(name, src, macros, args, out_dir) for src in stale]
            print(f"skelsimd: target {name}: {len(stale)} of {len(sources)} objects to compile "
                  f"({out_dir})", flush=True)
        # The largest sources first, so that a long compile does not start last and leave one
        # core idle at the end (blend.c takes a fifth of the build on each target).
        jobs.sort(key=lambda job: -os.path.getsize(job[1]))
        workers = int(os.environ.get("SKELSIMD_BUILD_JOBS", 0)) or os.cpu_count() or 1
        workers = max(1, min(workers, len(jobs) or 1))
        progress = _Progress(jobs, workers)

        def one(job):
            name, src, macros, args, out_dir = job
            self.compiler.compile([src], output_dir=out_dir, macros=macros,
                                  include_dirs=ext.include_dirs, debug=self.debug,
                                  extra_postargs=args, depends=ext.depends)
            return name, src

        with ThreadPoolExecutor(workers) as pool:
            futures = [pool.submit(one, job) for job in jobs]
            for done, future in enumerate(as_completed(futures), 1):
                name, src = future.result()
                print(f"skelsimd: [{done}/{len(jobs)}] {name} {src}", flush=True)
                progress.done(name)
        progress.close()
        for name, sources, macros, args, out_dir in groups:
            with open(os.path.join(out_dir, "build.stamp"), "w", encoding="utf-8") as f:
                f.write(self._stamp(macros, args, ext))
        sources, force = ext.sources, self.force
        ext.sources, ext.extra_objects = [], list(ext.extra_objects or []) + objects
        self.force = True          # link now (the objects are ready)
        try:
            super().build_extension(ext)
        finally:
            ext.sources, self.force = sources, force

    def _stamp(self, macros, args, ext):
        """What an object depends on besides its files: compiler, flags, Python and NumPy."""
        cc = getattr(self.compiler, "compiler_so", None) or self.compiler.compiler_type
        return repr((cc, macros, args, sys.version, numpy.__version__,
                     os.environ.get("CFLAGS", ""), os.environ.get("CC", "")))

    def _stale(self, sources, macros, args, out_dir, headers, ext):
        """(sources to compile, every object) of one group: all of them when the stamp of the
        directory differs or with --force, else those whose object is older than the source
        or a header."""
        objs = self.compiler.object_filenames(sources, output_dir=out_dir)
        os.makedirs(out_dir, exist_ok=True)
        for o in objs:
            os.makedirs(os.path.dirname(o), exist_ok=True)
        stamp = os.path.join(out_dir, "build.stamp")
        try:
            with open(stamp, encoding="utf-8") as f:
                same = f.read() == self._stamp(macros, args, ext)
        except OSError:
            same = False
        if self.force or not same:
            if os.path.exists(stamp):
                os.remove(stamp)            # written again once every object is compiled
            return list(sources), objs
        newest = max([os.path.getmtime(h) for h in headers] or [0])
        stale = [src for src, o in zip(sources, objs)
                 if not os.path.exists(o)
                 or os.path.getmtime(o) < max(newest, os.path.getmtime(src))]
        return stale, objs


class _Progress:
    """A line per target when its last object is compiled, with the elapsed time. pip hides a
    build's output (stdout and stderr) unless it runs with -v, and shows only "still
    running..." for minutes; so when stdout is not a terminal the lines also go to the
    controlling terminal (/dev/tty), when there is one (CI has none)."""

    def __init__(self, jobs, workers):
        import time
        self.time, self.start = time.monotonic, time.monotonic()
        self.left = {}
        for job in jobs:
            self.left[job[0]] = self.left.get(job[0], 0) + 1
        self.total, self.finished = len(jobs), 0
        self.tty = None
        if jobs and not sys.stdout.isatty():
            try:
                self.tty = open("/dev/tty", "w", encoding="utf-8")
            except OSError:
                self.tty = None
        self._say(f"skelsimd: compiling {len(jobs)} objects ({', '.join(self.left)}) with "
                  f"{workers} compiler processes", tty_only=True)

    def _say(self, line, tty_only=False):
        if not tty_only:
            print(line, flush=True)
        if self.tty is not None:
            self.tty.write(line + "\n")
            self.tty.flush()

    def done(self, name):
        self.finished += 1
        self.left[name] -= 1
        elapsed = self.time() - self.start
        if not self.left[name]:
            self._say(f"skelsimd: target {name} compiled ({self.finished}/{self.total} objects, "
                      f"{elapsed:.0f} s)")
        elif self.finished * 10 // self.total > (self.finished - 1) * 10 // self.total:
            # every tenth of the objects (the largest go first: the targets end together)
            self._say(f"skelsimd: {self.finished}/{self.total} objects compiled "
                      f"({elapsed:.0f} s)", tty_only=True)

    def close(self):
        if self.tty is not None:
            self.tty.close()


def compile_args(msvc):
    if msvc:
        return ["/O2", "/W3", "/fp:precise"]
    return [
        "-O3",
        "-std=gnu99",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-ffp-contract=off",
        "-fno-strict-aliasing",
    ]


families = set(os.path.normpath(p) for p in family_sources())
sources = [p for p in sorted(glob.glob(KERNELS + "/*.c")) if os.path.normpath(p) not in families]
sources += sorted(glob.glob("src/_skelsimd/*.c"))

setup(
    cmdclass={"build_ext": build_ext_per_target},
    ext_modules=[
        Extension(
            "skelsimd._core",
            sources=sources,
            depends=sorted(glob.glob(KERNELS + "/*.h") + glob.glob("src/_skelsimd/*.h")
                           + list(families)),
            include_dirs=[numpy.get_include(), KERNELS, "src/_skelsimd"],
            define_macros=[("NPY_TARGET_VERSION", "NPY_1_25_API_VERSION")],
        )
    ],
)
