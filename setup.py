"""Build of the one extension module, skelsimd._core.

Kernels (src/kernels/*.c) and glue (src/_skelsimd/*.c) are compiled with the baseline flags of
the target platform: no -march, so a wheel built here runs on any x86-64. The SSE4.1 and AVX2
variants carry per-function target attributes and are chosen at run time (src/kernels/simd.h).
-ffp-contract=off keeps a*b+c unfused, so every variant rounds the same way.
"""
import glob
import sys

import numpy
from setuptools import Extension, setup

sources = sorted(glob.glob("src/kernels/*.c")) + sorted(glob.glob("src/_skelsimd/*.c"))

if sys.platform == "win32":
    extra_compile_args = ["/O2", "/W3", "/fp:precise"]
else:
    extra_compile_args = [
        "-O3",
        "-std=gnu99",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-ffp-contract=off",
        "-fno-strict-aliasing",
    ]

setup(
    ext_modules=[
        Extension(
            "skelsimd._core",
            sources=sources,
            depends=sorted(glob.glob("src/kernels/*.h") + glob.glob("src/_skelsimd/*.h")),
            include_dirs=[numpy.get_include(), "src/kernels", "src/_skelsimd"],
            extra_compile_args=extra_compile_args,
            define_macros=[("NPY_TARGET_VERSION", "NPY_1_25_API_VERSION")],
        )
    ],
)
