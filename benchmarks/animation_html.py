"""Time to render a clip animation to inline HTML: ``Clip.animate()`` and its player
(``ClipAnimation.to_html``, what Jupyter shows) for a 1000-frame clip, against matplotlib's own
``to_jshtml`` (a PNG per frame) on a shorter excerpt, extrapolated per frame.

    python benchmarks/animation_html.py [--frames 1000] [--jshtml-frames 40]
"""
import argparse
import time
import warnings

import skelsimd as S


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--jshtml-frames", type=int, default=40)
    args = ap.parse_args()
    base = S.data.load_example()
    clip = base
    while clip.frames < args.frames:
        clip = clip.concatenate(base[::-1] if clip.frames // base.frames % 2 else base)
    clip = clip[:args.frames]
    import matplotlib  # noqa: F401  (imported before timing: a one-off cost of the first picture)
    for views in (("front", "side"), ("front", "side", "top")):
        t0 = time.perf_counter()
        anim = clip.animate(views=views)
        t1 = time.perf_counter()
        html = anim._repr_html_()
        t2 = time.perf_counter()
        print(f"{clip.frames} frames, {len(views)} views: animate() {t1 - t0:.3f} s, "
              f"inline HTML {t2 - t1:.3f} s, total {t2 - t0:.3f} s, {len(html) / 1e6:.2f} MB")
    short = clip[:args.jshtml_frames]
    anim = short.animate()
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        html = anim.to_jshtml()
    dt = time.perf_counter() - t0
    print(f"matplotlib to_jshtml: {short.frames} frames {dt:.2f} s ({dt / short.frames * 1e3:.0f} "
          f"ms/frame, {len(html) / short.frames / 1e3:.0f} KB/frame): {args.frames} frames would "
          f"take ~{dt / short.frames * args.frames:.0f} s, {len(html) / short.frames * args.frames / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
