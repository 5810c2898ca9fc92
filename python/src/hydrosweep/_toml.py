"""A small TOML writer for study dicts (hydrosweep.run / stability with a dict).

Covers what a study file holds: tables, nested tables, arrays of tables
([[grid]], [[factor]]), strings, booleans, integers, floats and arrays of
those. Keys are written bare when TOML allows it and quoted otherwise, so a
dotted parameter name such as "friction.coulomb_force" stays one key (the
study parser treats a quoted dotted name and nested tables alike). Floats are
written with Python's repr, the shortest text that reads back to the same
double; nan and inf are written as TOML's nan and inf (the study parser then
rejects them with its usual message).
"""
import math
import numbers
import re

__all__ = ["dumps"]

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _key(k):
    if not isinstance(k, str):
        raise TypeError(f"study keys must be strings, not {type(k).__name__} ({k!r})")
    return k if _BARE_KEY.match(k) else _string(k)


def _string(s):
    out = []
    for c in s:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _is_table(v):
    return hasattr(v, "keys") and hasattr(v, "items")


def _as_list(v):
    """v as a list if it is a sequence value (list, tuple, numpy array), else None."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if hasattr(v, "tolist") and hasattr(v, "ndim") and getattr(v, "ndim", 0) >= 1:
        return v.tolist()
    return None


def _value(v, where):
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return "true" if v else "false"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        x = float(v)
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    seq = _as_list(v)
    if seq is not None:
        if any(_is_table(e) for e in seq):
            return "[" + ", ".join(_inline_table(e, where) for e in seq) + "]"
        return "[" + ", ".join(_value(e, where) for e in seq) + "]"
    if _is_table(v):
        return _inline_table(v, where)
    raise TypeError(f"{where}: cannot write a {type(v).__name__} ({v!r}) to TOML "
                    "(use str, bool, int, float, lists or dicts)")


def _inline_table(t, where):
    if not _is_table(t):
        raise TypeError(f"{where}: an array mixes tables and values")
    return "{" + ", ".join(f"{_key(k)} = {_value(v, where)}" for k, v in t.items()) + "}"


def _is_table_array(v):
    seq = _as_list(v)
    return seq is not None and len(seq) > 0 and all(_is_table(e) for e in seq)


def _emit(table, path, lines):
    where = ".".join(path) or "study"
    simple = [(k, v) for k, v in table.items() if not _is_table(v) and not _is_table_array(v)]
    tables = [(k, v) for k, v in table.items() if _is_table(v)]
    arrays = [(k, v) for k, v in table.items() if _is_table_array(v)]
    for k, v in simple:
        lines.append(f"{_key(k)} = {_value(v, where + '.' + str(k))}")
    for k, v in tables:
        sub = path + [_key(k)]
        # A table with only sub-tables needs no header of its own.
        if any(not _is_table(x) for x in v.values()) or not v:
            lines.append("")
            lines.append("[" + ".".join(sub) + "]")
        _emit(v, sub, lines)
    for k, v in arrays:
        sub = path + [_key(k)]
        for element in _as_list(v):
            lines.append("")
            lines.append("[[" + ".".join(sub) + "]]")
            _emit(element, sub, lines)


def dumps(study):
    """The TOML text of a study dict (tables as dicts, [[grid]] as a list of dicts)."""
    if not _is_table(study):
        raise TypeError(f"a study dict must be a mapping, not {type(study).__name__}")
    lines = []
    _emit(study, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"
