"""Pages generated at build time (called from conf.py): the accuracy table from
skelsimd.bounds.BOUNDS and the benchmark tables from the main job's JSON."""
import json
import os

from skelsimd.bounds import BOUNDS


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def bounds_table():
    rows = ["| kernel | bound | holds for | measured | key |", "|---|---|---|---|---|"]
    for b in BOUNDS.values():
        rows.append("| " + " | ".join(_cell(x) for x in (
            b.kernel, f"`{b.formula()}`", b.condition, b.measured or "", f"`{b.key}`")) + " |")
    return "\n".join(rows) + "\n"


def _num(x):
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _time(seconds):
    if seconds < 1e-6:
        return f"{seconds * 1e9:.0f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"


def bench_tables(path):
    """Markdown of the main job's results (bench.json as ``python -m skelsimd bench --out``
    writes it)."""
    if not os.path.exists(path):
        return ("*No benchmark JSON at build time: run `python -m skelsimd bench --out DIR` and "
                "build with `SKELSIMD_BENCH_JSON=DIR/bench.json`.*\n")
    with open(path, encoding="utf-8") as f:
        return render_bench(json.load(f))


def render_bench(data):
    """One row per workload: ns per unit on every SIMD variant (best first), the NumPy
    formulation and the physical limit, and the best variant's ratios; extra formulations timed in
    the same run follow their workload as "... name" rows. Single calls show the whole call."""
    m = data.get("machine", {})
    isas = list(reversed(m.get("isa_supported", [])))
    rows, order = {}, []
    for r in data["results"]:
        if r["title"] not in rows:
            rows[r["title"]] = {}
            order.append(r["title"])
        rows[r["title"]][r["variant"]] = r
    limits = ("memcpy", "traffic")
    best = isas[0] if isas else "scalar"
    head = ["workload", "unit"] + isas + ["NumPy", "limit", f"{best} vs NumPy", f"{best} vs scalar"]
    out = [f"Machine: {m.get('cpu', '?')}, {m.get('cores', '?')} cores, Python {m.get('python', '?')}, "
           f"NumPy {m.get('numpy', '?')}; variants {', '.join(isas)}"
           + (" (a `--quick` run: noisy)" if data.get("quick") else "") + ".", "",
           "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for title in order:
        v = rows[title]
        one_call = any(k in title for k in ("per call", " 1 x ", "one pose", "one-off", " 64"))
        def cell(r):
            if r is None:
                return ""
            return _time(r["seconds_per_call"]) if one_call else _num(r["ns_per_unit"])
        any_r = next(iter(v.values()))
        unit = "whole call" if one_call else f"ns/{any_r['unit']}"
        lim = next((v[k] for k in limits if k in v), None)
        top = v.get(best)
        vs_np = f"{top['speedup_vs_numpy']:.1f}x" if top and "speedup_vs_numpy" in top else ""
        vs_sc = f"{top['speedup_vs_scalar']:.2f}x" if top and "speedup_vs_scalar" in top else ""
        out.append("| " + " | ".join(_cell(c) for c in [title, unit] + [cell(v.get(i)) for i in isas]
                                     + [cell(v.get("numpy")), cell(lim), vs_np, vs_sc]) + " |")
        for extra, r in v.items():
            if extra in isas or extra == "numpy" or extra in limits:
                continue
            out.append("| " + " | ".join(_cell(c) for c in [f"... {extra}", unit, cell(r)]
                                         + [""] * (len(head) - 3)) + " |")
    comp = data.get("reports", {}).get("compress")
    if comp:
        out += ["", f"Compression of the test clips beside {comp.get('acl_version', 'ACL')}:", "",
                "| clip | J | F | precision | bytes | max error | ratio | ACL bytes | ACL error | ms |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for r in comp["rows"]:
            out.append("| " + " | ".join(str(c) for c in (
                r["clip"], r["joints"], r["frames"], r["precision"], f"{r['bytes']:,}",
                f"{r['max_error']:.7f}", f"{r['ratio']:.1f}", f"{r['acl_bytes']:,}",
                r["acl_max_error"], f"{r['compress_ms']:.1f}")) + " |")
    return "\n".join(out) + "\n"


def write_all(directory, bench_json):
    os.makedirs(directory, exist_ok=True)
    pages = {"bounds_table.md": bounds_table(), "bench_tables.md": bench_tables(bench_json)}
    for name, text in pages.items():
        path = os.path.join(directory, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:   # unchanged files keep their time stamps (no needless rebuilds)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
