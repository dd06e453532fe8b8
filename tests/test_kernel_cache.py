"""The guard of numba's kernel caches (`jacquetd.kernel_cache`): a change of any kernel
module's source empties the caches of all of them, and nothing else is touched."""

from __future__ import annotations

import ast
from pathlib import Path

from jacquetd import kernel_cache

PACKAGE = Path(kernel_cache.__file__).resolve().parent


def _tree(root: Path) -> tuple[list[str], dict[str, list[Path]]]:
    """Two kernel modules in two folders, their caches in two places each."""
    (root / "bots").mkdir()
    (root / "gen").mkdir()
    (root / "bots" / "caller.py").write_text("def f(): pass\n")
    (root / "gen" / "callee.py").write_text("def g(): pass\n")
    folders = {"bots": [root / "bots" / "__pycache__", root / "elsewhere-bots"],
               "gen": [root / "gen" / "__pycache__", root / "elsewhere-gen"]}
    for places in folders.values():
        for place in places:
            place.mkdir()
    return ["bots/caller.py", "gen/callee.py"], folders


def _fill(folders: dict[str, list[Path]]) -> list[Path]:
    files = []
    for parent, places in folders.items():
        stem = "caller" if parent == "bots" else "callee"
        for place in places:
            for name in (f"{stem}.f-1.py311.nbi", f"{stem}.f-1.py311.1.nbc"):
                (place / name).write_bytes(b"cached")
                files.append(place / name)
    return files


def test_a_changed_callee_empties_every_kernel_cache(tmp_path: Path) -> None:
    modules, folders = _tree(tmp_path)
    other = folders["bots"][0] / "search.cpython-311.pyc"
    other.write_bytes(b"bytecode")
    unrelated = folders["bots"][0] / "search.f-1.py311.nbi"  # not a listed module's
    unrelated.write_bytes(b"cached")
    first = _fill(folders)
    # no digest recorded yet: the caches may be of any source, so they go
    assert sorted(kernel_cache.clear_stale(tmp_path, modules, folders)) == sorted(first)
    again = _fill(folders)
    assert kernel_cache.clear_stale(tmp_path, modules, folders) == []  # sources unchanged
    assert all(f.exists() for f in again)
    (tmp_path / "gen" / "callee.py").write_text("def g(): return 1\n")
    # the callee changed: the caller's caches go too, in every place
    assert sorted(kernel_cache.clear_stale(tmp_path, modules, folders)) == sorted(again)
    assert other.exists() and unrelated.exists()
    want = kernel_cache.digest(tmp_path, modules)
    for places in folders.values():
        for place in places:
            assert (place / kernel_cache.STAMP).read_text().strip() == want


def test_the_folder_numba_writes_first_is_stamped_before_it_exists(tmp_path: Path) -> None:
    modules, folders = _tree(tmp_path)
    fresh = tmp_path / "not-yet"
    folders["bots"] = [fresh, folders["bots"][1]]
    kernel_cache.clear_stale(tmp_path, modules, folders)
    want = kernel_cache.digest(tmp_path, modules)
    assert (fresh / kernel_cache.STAMP).read_text().strip() == want
    # a later folder that does not exist is left alone
    missing = tmp_path / "missing"
    folders["gen"] = [folders["gen"][0], missing]
    kernel_cache.clear_stale(tmp_path, modules, folders)
    assert not missing.exists()


def test_numba_s_places_for_a_module_folder() -> None:
    folders = kernel_cache.cache_folders(PACKAGE / "bots")
    assert PACKAGE / "bots" / "__pycache__" in folders
    assert len(folders) == len(set(folders)) >= 2


def test_every_module_that_compiles_is_guarded() -> None:
    """Each module that compiles with numba is listed and calls `check()` at import,
    before its first compiled function."""
    compiling = sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                       if "njit" in p.read_text(encoding="utf-8")
                       and p.name != "kernel_cache.py")
    assert compiling == sorted(kernel_cache.KERNEL_MODULES)
    for name in compiling:
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        calls = [n.lineno for n in tree.body if isinstance(n, ast.Expr)
                 and ast.unparse(n.value) == "kernel_cache.check()"]
        assert calls, f"{name} does not call kernel_cache.check()"
        compiled = [n.lineno for n in ast.walk(tree)
                    if isinstance(n, ast.Call) and "njit" in ast.unparse(n.func)]
        assert not compiled or calls[0] < min(compiled), name


def test_numba_internals_moved_leave_the_place_beside_the_modules(monkeypatch) -> None:
    """The guard reads numba's private naming of its cache places; if a numba release
    moves it, the guard keeps to the place beside the modules instead of failing every
    kernel's import."""
    from numba.core import caching

    monkeypatch.delattr(caching._CacheLocator, "get_suitable_cache_subpath")
    assert kernel_cache.cache_folders(PACKAGE / "bots") == [PACKAGE / "bots" / "__pycache__"]
