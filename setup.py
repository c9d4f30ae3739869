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
    """Compiles every kernel family once per target into its own objects, then links them with
    the extension's other sources."""

    def build_extension(self, ext):
        from setuptools._distutils.dep_util import newer_group

        ext_path = self.get_ext_fullpath(ext.name)
        if not (self.force or newer_group(list(ext.sources) + list(ext.depends), ext_path,
                                          "newer")):
            return super().build_extension(ext)   # up to date: setuptools skips it too
        msvc = self.compiler.compiler_type == "msvc"
        families = family_sources()
        depends = list(ext.depends)
        objects = []
        for name, flags in targets(msvc):
            macros = list(ext.define_macros) + [("SKS_COMPILING_" + name.upper(), "1")]
            objects += self.compiler.compile(
                families,
                output_dir=os.path.join(self.build_temp, "targets", name),
                macros=macros,
                include_dirs=ext.include_dirs,
                debug=self.debug,
                extra_postargs=compile_args(msvc) + flags,
                depends=depends,
            )
        ext.extra_objects = list(ext.extra_objects or []) + objects
        ext.extra_compile_args = compile_args(msvc)
        super().build_extension(ext)


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
