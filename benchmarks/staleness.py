"""Which benchmark rows were made by code older than their method's current code
(development tooling of the git checkout: not part of the installed package).

A row records the commit that made it (:mod:`hyperclust.bench.provenance`); a method's code
is the module defining its estimator and the hyperclust modules it imports
(:func:`method_source_files`). :func:`provenance_marks` compares the two in the git history,
so that the report (:mod:`hyperclust.bench.report`, which loads this file through
:func:`hyperclust.bench.marks.checkout_marks` when hyperclust runs from this checkout) can
mark stale cells. Only changes of code count: a commit that edits docstrings, comments or
layout alone does not (:func:`code_signature`, :func:`last_code_change`).
"""

from __future__ import annotations

import functools
from pathlib import Path

from hyperclust.bench.aggregate import is_peer
from hyperclust.bench.marks import STALE, UNKNOWN, group_marks
from hyperclust.bench.provenance import git, package_root

__all__ = ["method_source_files", "provenance_marks", "code_signature", "last_code_change",
           "module_moves", "module_of_path", "MODULE_MOVES"]
#: hyperclust modules whose changes do not count as changes of a method's code: the
#: benchmark machinery, readers, datasets, the CLI, the thread policy (fit-wide and per
#: kernel: it only lowers thread counts, and the stored rows ran on one thread), package
#: __init__s.
_NOT_METHOD_CODE = ("hyperclust.bench", "hyperclust.io", "hyperclust.datasets",
                    "hyperclust.cli", "hyperclust.runtime", "hyperclust.threads",
                    "hyperclust.kernel_threads")


def _provider_module(method: str) -> str | None:
    """The module defining ``method``'s estimator (without instantiating it)."""
    if is_peer(method):
        return "hyperclust.bench.peers"
    if ":" in method:
        return method.split(":", 1)[0]
    from hyperclust.cluster.registry import provider_module

    return provider_module(method)


def _module_imports(name: str) -> tuple[str | None, list[str]]:
    """``(file, hyperclust modules it imports)`` by parsing the module's source (imports
    inside functions included; ``from pkg import sub`` counts ``pkg.sub`` when a module)."""
    import ast
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None, []
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None, []
    is_pkg = spec.submodule_search_locations is not None
    package = name if is_pkg else name.rpartition(".")[0]
    try:
        tree = ast.parse(Path(spec.origin).read_text())
    except (OSError, SyntaxError):
        return spec.origin, []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            found.append(base)
            for a in node.names:
                sub = f"{base}.{a.name}"
                try:
                    if importlib.util.find_spec(sub) is not None:
                        found.append(sub)
                except (ImportError, ValueError):
                    pass
    return spec.origin, [f for f in found if f == "hyperclust" or f.startswith("hyperclust.")]


def _methods_built_by_name(method: str) -> list[str]:
    """The registered methods ``method`` builds by their registry names, which no import
    statement shows: ``auto``'s candidates
    (:data:`hyperclust.cluster.candidates.CANDIDATE_TABLE`)."""
    if method != "auto":
        return []
    from hyperclust.cluster.candidates import CANDIDATE_TABLE

    return list(CANDIDATE_TABLE)


def method_source_files(method: str) -> list[str] | None:
    """Files whose changes count as changes of ``method``'s code (a documented
    approximation): the module defining its estimator (``METHODS`` provider, the peers
    module, or the ``module`` of ``module:factory``) and those of the methods it builds by
    name (``auto``'s candidates) and, transitively, every hyperclust module imported from
    them, except the benchmark machinery, readers, datasets, CLI, thread policy and package
    ``__init__`` files. None when the provider cannot be found.

    Examples
    --------
    >>> files = method_source_files("spectral-zhou")
    >>> any(f.endswith("cluster/spectral.py") for f in files)
    True
    >>> any("/bench/" in f for f in files)   # the benchmark machinery does not count
    False
    >>> any(f.endswith("cluster/ahcka.py") for f in method_source_files("auto"))
    True
    """
    root = _provider_module(method)
    if root is None:
        return None
    roots = [root] + [_provider_module(m) for m in _methods_built_by_name(method)]
    files, seen, todo = set(), set(), [r for r in roots if r is not None]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path, imports = _module_imports(name)
        if path is None:
            continue
        excluded = name not in roots and (name.startswith(_NOT_METHOD_CODE)
                                     or path.endswith("__init__.py"))
        if not excluded:
            files.add(path)
            todo += imports
    return sorted(files)


#: The committed table of module moves: ``old.dotted.name new.dotted.name`` per line.
MODULE_MOVES = Path(__file__).with_name("module_moves.txt")


def module_moves(path=MODULE_MOVES) -> dict:
    """``{old dotted module name: new dotted name}`` from a moves table (one ``old new`` pair
    a line, ``#`` starts a comment); empty when the file is missing.

    Examples
    --------
    >>> module_moves("no/such/table.txt")
    {}
    """
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return {}
    pairs = [line.split("#", 1)[0].split() for line in lines]
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2}


def module_of_path(path: str) -> tuple[str, bool]:
    """``(dotted module name, is a package)`` of a repository path: the part after the
    first ``src/`` folder (the whole path without one), ``.py`` and ``__init__`` dropped.

    Examples
    --------
    >>> module_of_path("src/hyperclust/operators/eigensolvers.py")
    ('hyperclust.operators.eigensolvers', False)
    >>> module_of_path("src/hyperclust/selection/__init__.py")
    ('hyperclust.selection', True)
    """
    parts = list(Path(path).with_suffix("").parts)
    if "src" in parts:
        parts = parts[parts.index("src") + 1:]
    is_package = bool(parts) and parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _canonical_import(node, module: str, is_package: bool, moves: dict) -> list:
    """``node`` (an import statement) as absolute one-name imports of each module's current
    name, each binding the name the code uses: so that a module's move and the rewritten
    import lines of its importers leave the syntax tree unchanged."""
    import ast

    if isinstance(node, ast.Import):
        return [ast.Import(names=[ast.alias(name=moves.get(a.name, a.name), asname=a.asname)])
                for a in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    out = []
    for a in node.names:
        full = moves.get(f"{base}.{a.name}")
        parent, name = full.rpartition(".")[::2] if full else (moves.get(base, base), a.name)
        out.append(ast.ImportFrom(module=parent, level=0,
                                  names=[ast.alias(name=name, asname=a.asname or a.name)]))
    return out


def code_signature(text: str, path: str | None = None, moves: dict | None = None) -> str:
    r"""What of a Python source counts as code: its syntax tree without docstrings (comments
    and layout are not in the tree); the text itself when it does not parse. With the file's
    repository ``path``, import statements are made absolute and name each module by its
    current name (``moves``: old dotted name -> new, :func:`module_moves`), so that moving a
    module and rewriting the imports that name it is not a change of code.

    Examples
    --------
    >>> a = "def f(x):\n    'Old words.'\n    return x + 1  # why\n"
    >>> b = "def f(x):\n    'New words, longer.'\n\n    return x + 1\n"
    >>> code_signature(a) == code_signature(b), code_signature(a) == code_signature(a + "y = 2")
    (True, False)
    >>> moves = {"pkg.old": "pkg.sub.new"}
    >>> old = code_signature("from .old import f\n", "src/pkg/a.py", moves)
    >>> old == code_signature("from pkg.sub.new import f\n", "src/pkg/a.py", moves)
    True
    """
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text
    module, is_package = module_of_path(path) if path else ("", False)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        for field in ("body", "orelse", "finalbody") if path is not None else ():
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                setattr(node, field, [new for stmt in stmts for new in (
                    _canonical_import(stmt, module, is_package, moves or {})
                    if isinstance(stmt, (ast.Import, ast.ImportFrom)) else [stmt])])
    return ast.dump(tree)


@functools.lru_cache(maxsize=None)
def _paths_in_history(repo: str, head: str, name: str) -> tuple[str, ...]:
    """Every path the file at repository path ``name`` had in the history of ``head``
    (``git log --follow``), newest first."""
    rc, out = git(["log", "--follow", "--name-only", "--format=", head, "--", name], repo)
    paths = [name] + (out.split() if rc == 0 and out else [])
    return tuple(dict.fromkeys(paths))


def _changed_pairs(commit: str, paths, repo) -> list[tuple[str | None, str | None]] | None:
    """``(path before, path after)`` of each of ``paths`` that ``commit`` changed against its
    first parent, renames followed (``git diff-tree -M``; None on a side where the file did
    not exist); None when git does not answer."""
    rc, out = git(["diff-tree", "--root", "--no-commit-id", "--name-status", "-r", "-M", "-m",
                   "--first-parent", commit, "--", *paths], repo)
    if rc != 0 or out is None:
        return None
    pairs = []
    for line in out.splitlines():
        status, *names = line.split("\t")
        if status.startswith(("R", "C")):
            pairs.append((names[0] if status[0] == "R" else None, names[1]))
        else:
            pairs.append((None if status == "A" else names[0],
                          None if status == "D" else names[0]))
    return pairs


def _changes_code(commit: str, before: str | None, after: str | None, repo, moves) -> bool:
    """Does ``commit`` change the code of the file (moved from ``before`` to ``after``)?"""
    if before is None or after is None:
        return True
    rc_new, new = git(["show", f"{commit}:{after}"], repo)
    rc_old, old = git(["show", f"{commit}^:{before}"], repo)
    return rc_new != 0 or rc_old != 0 or \
        code_signature(new, after, moves) != code_signature(old, before, moves)


def last_code_change(files, repo, max_commits: int = 200, moves=None) -> str | None:
    """The newest commit (``git log`` order) that changed the *code* of any of ``files``,
    following each file through its moves: commits that only edit docstrings, comments or
    layout, or only move a module and rewrite the imports that name it (``moves``, default
    the committed table :data:`MODULE_MOVES`; :func:`code_signature`), are passed over, so
    that a corrected example or a moved module does not make every benchmark row stale.
    None without history.

    Examples
    --------
    >>> last_code_change(["no/such/file.py"], ".") is None
    True
    """
    moves = module_moves() if moves is None else moves
    rc, head = git(["rev-parse", "HEAD"], repo)
    paths = []
    for f in files:
        rc, name = git(["ls-files", "--full-name", "--", str(f)], repo)
        if rc == 0 and name:
            paths += _paths_in_history(str(Path(repo).resolve()), head or "HEAD",
                                       name.splitlines()[0])
    paths = list(dict.fromkeys(paths))
    rc, out = git(["log", f"-{int(max_commits)}", "--format=%H", "--", *paths], repo) \
        if paths else (None, None)
    if rc != 0 or not out:
        return None
    commits = out.split()
    for commit in commits:
        pairs = _changed_pairs(commit, paths, repo)
        if pairs is None or any(_changes_code(commit, before, after, repo, moves)
                                for before, after in pairs):
            return commit
    return commits[-1]


def provenance_marks(runs, repo=None, sources=None) -> dict:
    """Which groups of runs were made by code older than the method's current code.

    A run is **stale** when its recorded ``commit`` is not a descendant of (or equal to) the
    last commit that touched the method's source files (:func:`method_source_files`), and of
    **unknown provenance** when it has no commit or one this repository does not know.

    Parameters
    ----------
    runs : list of dict
        Records with ``dataset, protocol, method`` and optionally ``commit``.
    repo : path, optional
        The git checkout to judge against; default the one holding the imported hyperclust.
        Without a git checkout only missing commits are marked.
    sources : dict, optional
        ``{method: [file, ...]}`` overriding :func:`method_source_files`.

    Returns
    -------
    dict
        The marks of each group (:func:`hyperclust.bench.marks.group_marks`), ``touched``
        being the last commit of the method's code (tested in
        ``tests/test_bench_provenance.py``).
    """
    if repo is None:
        rc, top = git(["rev-parse", "--show-toplevel"], package_root())
        repo = top if rc == 0 and top else None
    touched_cache, ancestor_cache = {}, {}

    def touched(method):
        if method not in touched_cache:
            files = (sources or {}).get(method) if sources and method in sources \
                else method_source_files(method)
            touched_cache[method] = last_code_change(files, repo) \
                if repo is not None and files else None
        return touched_cache[method]

    def status(run):
        commit = run.get("commit")
        if not commit:
            return UNKNOWN
        last = touched(run["method"])
        if repo is None or last is None:
            return None
        key = (last, commit)
        if key not in ancestor_cache:
            rc, _ = git(["merge-base", "--is-ancestor", last, commit], repo)
            ancestor_cache[key] = {0: None, 1: STALE}.get(rc, UNKNOWN)
        return ancestor_cache[key]

    return group_marks(runs, status, lambda method: touched_cache.get(method))
