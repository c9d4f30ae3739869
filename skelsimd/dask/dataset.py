"""Motion datasets on Dask: many motion files -> per-clip work -> one Zarr group per clip.

The pipeline, each stage usable on its own::

    paths = find_motion_files("cmu/")                  # a directory (recursive), a glob or a list
    clips = read_clips(paths)                          # dask bag of ClipItem (or ClipFailure)
    clips = clips.map(apply_steps, steps)              # per-clip work, a list of steps
    done = write_clips(clips, "cmu.zarr")              # dask bag of ClipSummary (or ClipFailure)
    done.compute()                                     # any dask scheduler or cluster

or all of it, with a progress bar and a report, in ``build_dataset(source, store, steps=...)``
(``python -m skelsimd dataset IN_DIR --out OUT.zarr``).

The store (Zarr format 3, zarr-python 3)
-----------------------------------------
One group per clip, named by the file's path relative to the input directory without the
reader's suffix (``01_01.bvh`` and ``01_01.bvh.gz`` -> ``01_01``; ``batch01/131_01.bvh`` ->
``batch01%2F131_01``): one flat level of groups, the path escaped by :func:`group_name` so that
no file name can address anything outside its own group (separators, ``%`` and unsafe
characters become ``%XX``, ``..`` becomes ``%2E%2E``), the same names on every run and worker
count. The group's ``source`` attribute keeps the path read. Its contents:

* ``local`` float32 ``(F, J, 8)``: the local QTS poses ``(qx, qy, qz, qw, tx, ty, tz, s)`` after
  the steps (resampled when a :class:`Resample` step ran);
* ``positions`` float32 ``(F, J, 3)``: global joint positions in the file's units (forward
  kinematics on the kernels; always written, computed from ``local`` if no step did);
* every array the steps add (:class:`RootFeatures`: ``rel_positions``, ``rel_velocities``,
  ``heading``, ``heading_velocity``; :class:`Compress`: ``compressed``);
* attributes ``fps``, ``frame_time``, ``names``, ``parents`` (``-1`` for a root), ``source`` (the
  path read) and what the steps add (``resampled_from_fps``, ``up``, ``forward``,
  ``compression``).

Arrays are chunked along frames (``chunk_frames`` frames per chunk, 4096 by default) with Zarr's
default compression. The root group's attributes record the run: ``skelsimd_version``,
``steps``, ``clips`` (how many groups were written) and ``failed`` (``{"path", "error"}`` of every
file that was not written).

Failures
--------
Nothing is dropped without a word. Every stage catches the errors of one clip and turns the clip
into a :class:`ClipFailure` (path, group name, stage, message; a BVH file that does not parse
says where: ``line 19: expected 9 channel values (frame 0), got 8``); the other clips go on and
are written. Two files whose names agree (case-insensitively, as macOS and Windows file
systems compare them) are a failure of the second (the first is written). Directories that
cannot be read and symbolic links that lead back into a directory being read are failures of
the stage "find"; other links to directories are followed. A write that fails removes exactly
the files it created.
``build_dataset`` returns a :class:`DatasetReport` of what was written and what failed.

Extending the pipeline
----------------------
* Steps: any picklable callable ``step(item) -> item`` on :class:`ClipItem` (``item.clip`` the
  :class:`skelsimd.Clip`, ``item.arrays`` the arrays to write, ``item.attrs`` the attributes);
  a ``name`` attribute names it in failure reports. Steps that change the timing or the poses
  (resampling, retargeting) come before steps that derive arrays. :class:`Compress` stores a
  compressed clip's bytes as the ``uint8`` array ``compressed`` and its settings and measured
  error as the attribute ``compression``.
* Readers: ``readers={".suffix": callable(path) -> skelsimd.Clip}`` for other motion formats;
  the default reads ``.bvh`` and ``.bvh.gz`` with :func:`skelsimd.load_bvh`, ``.gltf`` and
  ``.glb`` with :func:`skelsimd.io.gltf.load_gltf_clip` (the file's first clip: its first
  animation with the first skin that animation drives) and compressed
  clips (``.skc``, ``CompressedClip.to_bytes()``) with :func:`load_compressed`. Readers and steps are passed with the tasks, so they work on local
  processes and on distributed workers alike (they must be importable there).

Where the pieces live
---------------------
This module is the Dask side: the bags, the progress bar, :func:`build_dataset`. The records,
readers, steps and file discovery need only NumPy (:mod:`skelsimd.dataset`, importable without
the extra); the Zarr layout (group names, a clip's group, the store checks) is
:mod:`skelsimd.io.zarr_store`. Every name listed here imports from this module too.

Examples
--------
>>> from skelsimd.dask.dataset import GlobalPositions, group_name
>>> group_name("batch01/131_01")
'batch01%2F131_01'
>>> GlobalPositions()
GlobalPositions(precision='float32')
"""
from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO, cast

try:
    import dask.bag as db
    from dask.base import compute
    from dask.callbacks import Callback
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError("skelsimd.dask needs the optional dependencies of the [dask] extra: "
                      "pip install 'skelsimd[dask]'") from exc

from .. import __version__
from ..parallel import calling_thread_only
# The steps, records and readers (NumPy only) and the Zarr layout, re-exported: every name of
# this module's pipeline imports from here.
from ..dataset import (COMPRESSED_SUFFIX, DEFAULT_READERS, ClipFailure, ClipItem,  # noqa: F401
                       Compress, DatasetReport, GlobalPositions, Resample, RootFeatures,
                       _describe, _discover, _named, _read_entry, _with_positions, apply_steps,
                       clip_name, default_steps, find_motion_files, load_compressed,
                       process_clip, read_clip)
from ..io.zarr_store import (MAX_NAME_BYTES, ClipSummary, _is_zarr_store,  # noqa: F401
                             _prepare_store, _write_clip_async, check_group_name, group_name)

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ..dataset import _Entry, _Readers, _Source
    from ..dataset import _Step as _Step     # the type of a step (re-exported for the CLI)

    _Bag = Any      # a dask bag (dask is typed only in part)
    _Result = ClipSummary | ClipFailure

__all__ = [
    "ClipItem", "ClipFailure", "ClipSummary", "DatasetReport",
    "Resample", "GlobalPositions", "RootFeatures", "Compress", "default_steps",
    "load_compressed", "COMPRESSED_SUFFIX",
    "DEFAULT_READERS", "find_motion_files", "clip_name", "group_name", "check_group_name",
    "MAX_NAME_BYTES", "read_clip", "apply_steps",
    "process_clip", "read_clips", "write_clips", "write_clip", "build_dataset",
]


# --- writing -------------------------------------------------------------------------------------

async def _write_items_async(store: Any, items: list[ClipItem | ClipFailure],
                             chunk_frames: int) -> list[_Result]:
    """Write a partition's clips one after the other; a clip's error becomes its failure."""
    from zarr.api.asynchronous import open_group

    target = None
    out: list[_Result] = []
    for item in items:
        if isinstance(item, ClipFailure):
            out.append(item)
            continue
        try:
            if target is None:
                target = (await open_group(store=store, mode="r+")).store
            # (a clip whose positions fail reaches the write as a failure, which fails there)
            ready = cast(ClipItem, _with_positions(item))
            out.append(await _write_clip_async(target, ready, chunk_frames))
        except Exception as exc:
            out.append(ClipFailure(item.path, item.name, "write", _describe(exc)))
    return out


def write_clip(store: Any, item: ClipItem,
               chunk_frames: int = 4096) -> ClipSummary | ClipFailure:
    """Write one :class:`ClipItem` (``positions`` computed if missing) as the group
    ``item.name`` of the existing Zarr store ``store``; returns its :class:`ClipSummary`, or a
    :class:`ClipFailure` (stage "write") when the write fails (the group is then removed)."""
    return _write_partition([item], _store_path(store), chunk_frames)[0]


def _write_partition(items: Iterable[ClipItem | ClipFailure], store: Any,
                     chunk_frames: int) -> list[_Result]:
    from zarr.core.sync import sync     # runs a coroutine on Zarr's own event loop

    results: list[_Result] = sync(_write_items_async(store, list(items), chunk_frames))
    return results


def write_clips(clips: _Bag, store: Any, *, chunk_frames: int = 4096) -> _Bag:
    """Lazily write a bag of :class:`ClipItem` into the Zarr store ``store`` (a path or URL the
    workers can reach; the root group is created now when missing), one group per clip; the
    result is a bag of :class:`ClipSummary` and :class:`ClipFailure` (write errors included).
    Clips without ``positions`` get them computed before writing."""
    import zarr

    zarr.open_group(_store_path(store), mode="a")
    return clips.map_partitions(_write_partition, _store_path(store), chunk_frames)


def _store_path(store: Any) -> Any:
    return os.fspath(store) if isinstance(store, os.PathLike) else store


# --- the bag -------------------------------------------------------------------------------------

def default_partition_size(count: int) -> int:
    """Clips per task: 1 for small sets (balance), up to 8 for thousands (fewer tasks)."""
    return max(1, min(8, count // 128))


def read_clips(source: _Source, *, readers: _Readers | None = None,
               partition_size: int | None = None) -> _Bag:
    """A dask bag of the motion files of ``source`` (see :func:`find_motion_files`), read lazily
    into :class:`ClipItem` (a file that does not read is a :class:`ClipFailure` element), in
    the order of the files. ``partition_size`` clips per partition (default: 1 per clip for up
    to 255 files, up to 8 for thousands)."""
    readers = DEFAULT_READERS if readers is None else dict(readers)
    found, problems = _discover(source, readers)
    entries = _named(found, readers, problems)
    if not entries:
        raise FileNotFoundError(f"{source}: no motion files ({', '.join(sorted(readers))})")
    size = partition_size or default_partition_size(len(entries))
    return db.from_sequence(entries, partition_size=size).map(_read_entry, readers)  # type: ignore[no-untyped-call]  # dask is unannotated


# --- running -------------------------------------------------------------------------------------

class _Progress:
    """A progress bar over clips (tqdm when installed, else a line per 10%) that prints every
    failure as it arrives."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.results: list[list[_Result]] = []  # the partition results seen, for an interrupted run
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.done = 0
        self.bar: Any = None
        self.next_line = 0.1
        if enabled:
            try:
                from tqdm import tqdm
                self.bar = tqdm(total=total, unit="clip", file=self.stream, dynamic_ncols=True)
            except ImportError:
                self.bar = None

    def update(self, results: list[_Result]) -> None:
        self.results.append(results)
        if self.enabled:
            for r in results:
                if isinstance(r, ClipFailure):
                    self.write(f"FAILED {r}")
        self.done += len(results)
        if self.bar is not None:
            self.bar.update(len(results))
        elif self.enabled and self.done >= self.next_line * self.total:
            print(f"{self.done}/{self.total} clips", file=self.stream, flush=True)
            while self.next_line * self.total <= self.done:
                self.next_line += 0.1

    def write(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class _LocalProgress(Callback):
    """Feeds _Progress from the local schedulers (threads, processes, synchronous)."""

    def __init__(self, keys: Iterable[Any], progress: _Progress) -> None:
        # (dask.callbacks is not annotated)
        super().__init__()  # type: ignore[no-untyped-call]
        self.keys = set(keys)
        self.progress = progress

    def _posttask(self, key: Any, result: Any, dsk: Any, state: Any, id: Any) -> None:
        if key in self.keys:
            self.keys.discard(key)
            self.progress.update(result)


def _partition_entries(entries: list[_Entry], size: int) -> list[list[_Entry]]:
    return [entries[i:i + size] for i in range(0, len(entries), size)]


def _failed_partition(entries: Iterable[_Entry], exc: BaseException) -> list[_Result]:
    out: list[_Result] = []
    for e in entries:
        if isinstance(e, ClipFailure):
            out.append(e)
        else:
            out.append(ClipFailure(e[1], e[0], "task", _describe(exc)))
    return out


def _apply_steps_on_this_thread(item: ClipItem | ClipFailure,
                                steps: Sequence[_Step]) -> ClipItem | ClipFailure:
    """apply_steps with skelsimd's calls on the Dask worker's thread alone: the workers are
    already one per CPU (threads or processes), so the pool would oversubscribe them."""
    with calling_thread_only():
        return apply_steps(item, steps)


def build_dataset(source: _Source, store: Any, *, steps: Sequence[_Step] | None = None,
                  scheduler: Any = "processes", workers: int | None = None,
                  progress: bool = True, overwrite: bool = False,
                  readers: _Readers | None = None, partition_size: int | None = None,
                  chunk_frames: int = 4096, resume: bool = False) -> DatasetReport:
    """Read every motion file of ``source``, run ``steps`` on each clip and write one Zarr group
    per clip into ``store``; returns a :class:`DatasetReport`.

    Parameters
    ----------
    source : path, glob pattern or list of them (see :func:`find_motion_files`)
    store : str or os.PathLike
        The Zarr store to create (a directory path, or a URL the workers reach; an empty
        directory is used as it is). An existing Zarr store is a FileExistsError unless
        ``overwrite=True``, which replaces it; anything else there (a file, a directory that is
        not a Zarr store) is never removed, overwrite or not: FileExistsError.
    steps : list of callables, default :func:`default_steps` (positions and root features)
        Per-clip work, in order (see the module docstring); ``positions`` are always written.
    scheduler : "processes" (default), "threads", "sync", a ``dask.distributed.Client``, or the
        address of a distributed scheduler (``tcp://host:8786``; a ``.json`` path is a
        scheduler file)
    workers : int, optional
        Worker processes or threads of the local schedulers (default: one per core); ignored
        on a cluster, which has its own.
    progress : bool
        A progress bar on stderr (tqdm when installed) that prints each failure as it happens
        (False: nothing is printed; the report still lists every failure).
    resume : bool
        Continue a run into an existing store (a local directory): groups that are complete
        (their ``zarr.json`` exists: it is written last) are skipped, the files of incomplete
        ones (a run stopped while writing them) are removed and written again.

    A KeyboardInterrupt (Ctrl-C) stops the run: the report returned has ``interrupted=True``
    and lists the clips written (each complete); the store's attributes record them.
    """
    t0 = time.perf_counter()
    readers = DEFAULT_READERS if readers is None else dict(readers)
    steps = default_steps() if steps is None else list(steps)
    store = _store_path(store)
    found, problems = _discover(source, readers)
    entries = _named(found, readers, problems)
    if not found:
        raise FileNotFoundError(f"{source}: no motion files ({', '.join(sorted(readers))})")

    import zarr

    skipped: list[str] = []
    if resume:
        if overwrite:
            raise ValueError("resume and overwrite: choose one (overwrite replaces the store, "
                             "resume continues it)")
        entries, skipped = _resume_entries(store, entries)
        root = zarr.open_group(store, mode="r+")
    else:
        root = zarr.open_group(store, mode=_prepare_store(store, overwrite))
    root.attrs.update({"skelsimd_version": __version__, "steps": [repr(s) for s in steps]})
    if not entries:
        return DatasetReport(str(store), [], [], time.perf_counter() - t0, skipped)

    size = partition_size or default_partition_size(len(entries))
    bag = (db.from_sequence(entries, partition_size=size)  # type: ignore[no-untyped-call]  # dask is unannotated
           .map(_read_entry, readers)
           .map(_apply_steps_on_this_thread, steps)
           .map_partitions(_write_partition, store, chunk_frames))
    parts = _partition_entries(entries, size)
    assert bag.npartitions == len(parts)

    bar = _Progress(len(entries), progress)
    interrupted = False
    try:
        results = _run(bag, parts, scheduler, workers, bar)
    except KeyboardInterrupt:
        # what the progress bar saw complete (a partition's clips are each complete: a write
        # that was cut removes its own files, or leaves a group without zarr.json that
        # resume=True removes)
        interrupted = True
        results = bar.results
    finally:
        bar.close()
    flat = [r for part in results for r in part]
    written = [r for r in flat if isinstance(r, ClipSummary)]
    failed = [r for r in flat if isinstance(r, ClipFailure)]
    previous = root.attrs.get("clips", 0) if resume else 0
    root.attrs.update({"clips": len(written) + (previous if isinstance(previous, int) else 0),
                       "interrupted": interrupted,
                       "failed": [{"path": f.path, "stage": f.stage, "error": f.error}
                                  for f in failed]})
    return DatasetReport(str(store), written, failed, time.perf_counter() - t0, skipped,
                         interrupted)


def _resume_entries(store: Any, entries: list[_Entry]) -> tuple[list[_Entry], list[str]]:
    """(entries still to write, names of complete groups) of a run resumed into the local
    store ``store``: a group is complete when its zarr.json exists (written last); the files
    of an incomplete group are removed (its directory, inside the store: the name was checked
    to be one safe component)."""
    import shutil

    if not isinstance(store, str) or "://" in store:
        raise ValueError(f"resume: expected a local directory store, got {store!r}")
    if not (os.path.isdir(store) and _is_zarr_store(store)):
        raise FileNotFoundError(f"{store}: no Zarr store to resume (run without --resume to "
                                f"create it)")
    todo: list[_Entry] = []
    done: list[str] = []
    for e in entries:
        if isinstance(e, ClipFailure):
            todo.append(e)
            continue
        name = check_group_name(e[0])
        group = os.path.join(store, name)
        if os.path.isfile(os.path.join(group, "zarr.json")):
            done.append(name)
            continue
        if os.path.isdir(group) and not os.path.islink(group):
            shutil.rmtree(group)        # a group cut mid-write: written again
        todo.append(e)
    return todo, done


def _run(bag: _Bag, parts: list[list[_Entry]], scheduler: Any, workers: int | None,
         bar: _Progress) -> list[list[_Result]]:
    """Compute the bag's partitions, feeding the progress bar; returns the list of partition
    results in order (a partition whose task failed as a whole becomes failures)."""
    if isinstance(scheduler, str) and scheduler in ("threads", "processes", "sync", "synchronous"):
        keys = bag.__dask_keys__()
        with _LocalProgress(keys, bar):
            (results,) = compute(bag.to_delayed(), scheduler=scheduler, num_workers=workers)  # type: ignore[no-untyped-call]  # dask is unannotated
        return list(results)

    from distributed import Client, as_completed

    own = None
    if isinstance(scheduler, Client):
        client = scheduler
    elif isinstance(scheduler, str):
        if scheduler.endswith(".json"):
            client = own = Client(scheduler_file=scheduler)  # type: ignore[no-untyped-call]  # dask is unannotated
        else:
            client = own = Client(scheduler)  # type: ignore[no-untyped-call]  # dask is unannotated
    else:
        raise ValueError(f"scheduler: expected 'processes', 'threads', 'sync', a "
                         f"distributed.Client or a scheduler address, got {scheduler!r}")
    try:
        futures = client.compute(bag.to_delayed())  # type: ignore[no-untyped-call]  # dask is unannotated
        index = {f.key: i for i, f in enumerate(futures)}
        results = [None] * len(futures)
        for fut in as_completed(futures):  # type: ignore[no-untyped-call]  # dask is unannotated
            i = index[fut.key]
            if fut.status == "error":
                results[i] = _failed_partition(parts[i], fut.exception())
            else:
                results[i] = fut.result()
            bar.update(results[i])
            fut.release()
        return results
    finally:
        if own is not None:
            own.close()  # type: ignore[no-untyped-call]  # dask is unannotated
