"""numba's on-disk cache of the compiled kernels, emptied when any kernel's source changes.

numba keys a cached function by its own source file (its time stamp and size), but a
kernel that calls another module's compiled function carries that function's machine
code in its own cache entry: the row kernel (`bots/fastnet.py`) holds the encoder
(`bots/fastencode.py`), the rollout kernel holds both and the play generator
(`fastgen/kernel.py`). After an edit of the encoder alone, the row kernel's entry would
still load, with the old encoder inside it: other figures, or writes past the end of an
array whose layout changed. `check` compares a digest of every kernel module's source
with the one recorded beside the caches when they were last checked and, where they
differ, deletes those modules' cache files, so that every kernel compiles afresh.

An installed release changes all its files at once, so numba's own keys see it; a
checkout that changes one module (a pull, an edit) is the case this guards. It looks in
the three places numba may keep the caches of a module: beside it (`__pycache__`), under
``$NUMBA_CACHE_DIR``, and in the user's cache folder.

Every kernel module calls `check()` before it compiles anything; the first call in a
process does the work, the others return at once.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent

KERNEL_MODULES = (
    "bots/bearoff_cube.py",
    "bots/bearoff_kernel.py",
    "bots/bearoff_match.py",
    "bots/fastencode.py",
    "bots/fastnet.py",
    "bots/gnubg_inputs.py",
    "bots/prune.py",
    "bots/replykernel.py",
    "bots/rolloutkernel.py",
    "fastgen/kernel.py",
)
"""The modules with compiled functions, relative to the package (a test checks that every
module that compiles with numba is listed)."""

STAMP = "jacquetd-kernels.sha256"
"""The file, in each cache folder, that records the digest its caches were made from."""

_checked = False


def digest(root: Path, modules: Iterable[str]) -> str:
    """SHA-256 of the modules' names and sources (a module missing counts as empty)."""
    h = hashlib.sha256()
    for name in sorted(modules):
        h.update(name.encode() + b"\0")
        with contextlib.suppress(OSError):
            h.update((root / name).read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def cache_folders(source_dir: Path) -> list[Path]:
    """Where numba may keep the caches of the modules of `source_dir`, the one it will
    write first: under ``$NUMBA_CACHE_DIR`` when set, beside the modules
    (``__pycache__``) when that folder can be written, and the user's numba cache
    folder (numba's own rule for naming a module folder's place in the first and last)."""
    in_tree = source_dir / "__pycache__"
    try:  # numba's own naming, from its internals (untyped)
        from numba.core.caching import _CacheLocator
        from numba.misc.appdirs import AppDirs

        locate: Any = _CacheLocator.get_suitable_cache_subpath
        dirs: Any = AppDirs
        sub = str(locate(str(source_dir / "x.py")))
        user = Path(dirs(appname="numba", appauthor=False).user_cache_dir) / sub
    except Exception:  # numba missing (nothing compiled) or its internals moved: beside
        return [in_tree]  # the modules alone, numba's default place
    chosen = os.environ.get("NUMBA_CACHE_DIR")
    if chosen:
        return [Path(chosen) / sub, in_tree, user]
    writable = os.access(in_tree if in_tree.is_dir() else source_dir, os.W_OK)
    return [in_tree, user] if writable else [user, in_tree]


def clear_stale(root: Path, modules: Sequence[str],
                folders: dict[str, list[Path]] | None = None) -> list[Path]:
    """Delete the numba cache files (``<module>.*.nbi`` and ``.nbc``) of `modules` (paths
    relative to `root`) in every cache folder whose recorded digest is not that of the
    modules' sources now, and record the new digest there. `folders` maps a source
    folder (relative to `root`) to its cache folders, the one numba writes first
    (made here if missing, so that the caches numba writes next are known to be of
    these sources) (default: `cache_folders`). Returns the files deleted."""
    want = digest(root, modules)
    by_dir: dict[str, list[str]] = {}
    for name in modules:
        parent, _, filename = name.rpartition("/")
        by_dir.setdefault(parent, []).append(filename.removesuffix(".py"))
    deleted: list[Path] = []
    for parent, stems in by_dir.items():
        places = (folders or {}).get(parent) or cache_folders(root / parent)
        for k, place in enumerate(places):
            stamp = place / STAMP
            with contextlib.suppress(OSError):
                if stamp.read_text().strip() == want:
                    continue
            if k == 0:
                with contextlib.suppress(OSError):
                    place.mkdir(parents=True, exist_ok=True)
            if not place.is_dir():
                continue
            for stem in stems:
                for pattern in (f"{stem}.*.nbi", f"{stem}.*.nbc"):
                    for cached in place.glob(pattern):
                        with contextlib.suppress(OSError):  # another process took it
                            cached.unlink()
                            deleted.append(cached)
            with contextlib.suppress(OSError):  # a folder this process cannot write
                stamp.write_text(want + "\n")
    return deleted


def check() -> None:
    """`clear_stale` of the package's kernel modules, once a process."""
    global _checked
    if _checked:
        return
    _checked = True
    clear_stale(PACKAGE, KERNEL_MODULES)
