"""The one way an entry enters any registry: checked, never silently replacing another."""

from __future__ import annotations

__all__ = ["add_entry"]


def add_entry(table: dict, name, entry, entry_type: type, kind: str, *,
              replace: bool = False) -> None:
    """Put ``entry`` (an ``entry_type``) into ``table`` under ``name``.

    Raises ``ValueError`` for an empty or taken name (unless ``replace``), ``TypeError`` for
    another type.

    Examples
    --------
    >>> table = {}
    >>> add_entry(table, "a", 1, int, "number")
    >>> add_entry(table, "a", 2, int, "number")
    Traceback (most recent call last):
    ...
    ValueError: number 'a' is already registered; pass replace=True
    """
    if not isinstance(name, str) or not name:
        raise ValueError(f"{kind} name must be a non-empty string, got {name!r}")
    if not isinstance(entry, entry_type):
        raise TypeError(f"{kind} entry must be a {entry_type.__name__}, got "
                        f"{type(entry).__name__}")
    if name in table and not replace:
        raise ValueError(f"{kind} {name!r} is already registered; pass replace=True")
    table[name] = entry
