"""Build and run the native bit-identity checks of the kernels, without Python in the loop.

Every kernel family (src/kernels/families.h) and the vocabulary check (vocab_check.c) are compiled
once per target, exactly as setup.py compiles them, and linked with a family's helpers compiled
once (src/kernels/<family>_*.c, e.g. the compressed-clip format and encoder), the checks of every
family (check_<family>.c) and their driver (check_main.c). The program runs every target's row of every
family on random and special inputs (NaN, inf, zero, identical and antipodal quaternions, odd
sizes, every tail length) and compares it bit for bit with the scalar row.

    python tests/native/build.py                 # this machine: scalar, sse41, avx2, avx512
                                                 # (x86-64; avx512 checked where the CPU has it)
    python tests/native/build.py --arch aarch64  # cross-compiled, run under qemu-aarch64: neon
    python tests/native/build.py --struct-scalar # also the scalar row in its portable struct
                                                 # form (-DSKS_NO_GENERIC_VECTORS) against the
                                                 # same SIMD objects: a second program

The compiler runs one process per CPU. With --struct-scalar only the scalar row (the one the flag
changes: the SIMD rows and the helpers never use the scalar vocabulary) is compiled a second time.

aarch64 needs Debian's gcc-aarch64-linux-gnu and qemu-user (apt-get install gcc-aarch64-linux-gnu
qemu-user); a missing tool is an error, never a skip. Exit status: 0 when every check passed.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = os.path.join(ROOT, "src", "kernels")
HERE = os.path.dirname(os.path.abspath(__file__))

COMMON_FLAGS = ["-O2", "-std=gnu99", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
                "-ffp-contract=off", "-fno-strict-aliasing"]
TARGETS = {
    "x86_64": [("scalar", []), ("sse41", ["-msse4.1"]), ("avx2", ["-mavx2", "-mfma"]),
               ("avx512", ["-mavx2", "-mfma", "-mavx512f", "-mavx512bw", "-mavx512dq",
                           "-mavx512vl"])],
    "aarch64": [("scalar", []), ("neon", [])],
}


def families():
    with open(os.path.join(KERNELS, "families.h"), encoding="utf-8") as f:
        return re.findall(r"^\s*SKS_FAMILY\((\w+)\)", f.read(), flags=re.M)


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def compile_all(jobs):
    """Runs every compile command of `jobs` [(cmd, obj)], one compiler per CPU; stops at the
    first failure (its command and the compiler's messages printed)."""
    def one(cmd):
        res = subprocess.run(cmd, capture_output=True, text=True)
        return cmd, res
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for cmd, res in pool.map(one, [cmd for cmd, _ in jobs]):
            print("+", " ".join(cmd), flush=True)
            if res.returncode != 0:
                sys.stdout.write(res.stdout)
                sys.stdout.write(res.stderr)
                raise subprocess.CalledProcessError(res.returncode, cmd)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", choices=["native", "aarch64"], default="native")
    ap.add_argument("--cc", help="C compiler (default: gcc, or aarch64-linux-gnu-gcc)")
    ap.add_argument("--extra", nargs="*", default=[], help="extra compiler flags")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the build directory")
    ap.add_argument("--struct-scalar", action="store_true",
                    help="also check the scalar row's portable struct form (a second program)")
    a = ap.parse_args()

    if a.arch == "aarch64":
        cc = a.cc or "aarch64-linux-gnu-gcc"
        arch = "aarch64"
        runner = ["qemu-aarch64"]
        link = ["-static"]
    else:
        import platform
        cc = a.cc or "gcc"
        machine = platform.machine().lower()
        arch = "aarch64" if machine in ("aarch64", "arm64") else "x86_64"
        runner = []
        link = []
    for tool in [cc] + runner:
        if shutil.which(tool) is None:
            sys.exit(f"native checks: '{tool}' not found (Debian: apt-get install "
                     f"gcc-aarch64-linux-gnu qemu-user)")

    out = tempfile.mkdtemp(prefix="sks-native-")
    sources = [os.path.join(KERNELS, f + ".c") for f in families()]
    sources.append(os.path.join(HERE, "vocab_check.c"))
    includes = ["-I", KERNELS, "-I", HERE]
    jobs, rows = [], {}     # rows: target -> its objects
    variants = list(TARGETS[arch])
    if a.struct_scalar:
        variants.append(("scalar-struct", ["-DSKS_NO_GENERIC_VECTORS"]))
    for target, flags in variants:
        macro = target.split("-")[0].upper()
        for src in sources:
            obj = os.path.join(out, f"{os.path.basename(src)[:-2]}_{target}.o")
            jobs.append(([cc, *COMMON_FLAGS, *flags, *a.extra, f"-DSKS_COMPILING_{macro}=1",
                          *includes, "-c", src, "-o", obj], obj))
            rows.setdefault(target, []).append(obj)
    checks = sorted(os.path.join(HERE, f) for f in os.listdir(HERE)
                    if f.startswith("check_") and f.endswith(".c"))
    # helpers of a family compiled once (baseline flags): src/kernels/<family>_*.c
    helpers = sorted(os.path.join(KERNELS, f) for f in os.listdir(KERNELS)
                     if f.endswith(".c") and any(f.startswith(name + "_") for name in families()))
    once = [os.path.join(KERNELS, f) for f in ("dispatch.c", "cpu.c", "pool.c")]
    common = []
    for src in once + helpers + checks:
        obj = os.path.join(out, os.path.basename(src)[:-2] + ".o")
        jobs.append(([cc, *COMMON_FLAGS, *a.extra, *includes, "-c", src, "-o", obj], obj))
        common.append(obj)
    compile_all(jobs)
    programs = [("check_kernels", [t for t, _ in TARGETS[arch]])]
    if a.struct_scalar:
        programs.append(("check_kernels_struct",
                         ["scalar-struct"] + [t for t, _ in TARGETS[arch] if t != "scalar"]))
    try:
        for name, targets in programs:
            exe = os.path.join(out, name)
            objects = [o for t in targets for o in rows[t]] + common
            run([cc, *objects, "-o", exe, *link, "-lm", "-pthread"])
            print(f"{name}:", flush=True)
            run(runner + [exe, str(a.seed)])
    except subprocess.CalledProcessError as exc:
        sys.exit(f"native checks failed (exit status {exc.returncode}); build kept in {out}")
    if not a.keep:
        shutil.rmtree(out)

if __name__ == "__main__":
    main()
