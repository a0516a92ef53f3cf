"""Masks: rewrite the volatile parts of a decoded reply before two replies are compared.

A mask never hides a difference of type or shape: it replaces values inside scalars (or
reorders elements), then the masked trees are re-encoded and compared as bytes.

  ids            stream IDs (digits-digits) inside strings become <ID>
  ints           every integer reply becomes <INT>
  range:LO:HI    integer replies within LO..HI become <IN-RANGE> (others stay, so they differ)
  numbers        every run of digits inside strings becomes <N>
  strings        every string (simple, bulk, verbatim) becomes <STR>
  shape          every scalar value becomes <X>: only types and structure are compared
  fields:a,b     in maps, and in RESP2 flat key/value arrays, the value after key a or b
                 becomes <MASKED> (e.g. fields:id,version for HELLO)
  drop:a,b       in maps and RESP2 flat key/value arrays, the pairs with key a or b are removed
                 (the one mask that changes a shape: for fields one side has by version and no
                 golden reply can be recorded yet, e.g. XINFO STREAM's IDMP fields of 8.6)
  regex:PATTERN  every match of PATTERN inside strings and errors becomes <RE>
  sort           elements of every array/set that holds only scalars are sorted (KEYS, SCAN)
  column:N       in every array whose elements are all arrays, element N (0-based) of each
                 scalar-holding inner array becomes <COL> (XPENDING's idle column is column:2)
"""

from __future__ import annotations

import copy
import re

from .resp import Reply, encode

_ID_RE = re.compile(rb"\b\d+-\d+\b")
_NUM_RE = re.compile(rb"\d+")
STRING_KINDS = ("+", "$", "=")


def _walk(node: Reply, fn) -> None:
    fn(node)
    if node.attrs is not None:
        _walk(node.attrs, fn)
    if node.items is not None:
        for item in node.items:
            _walk(item, fn)


def _sub_strings(node: Reply, pattern: re.Pattern, repl: bytes, errors: bool = False) -> None:
    kinds = STRING_KINDS + (("-", "!") if errors else ())

    def fn(n: Reply) -> None:
        if n.kind in kinds and n.text is not None and not n.null:
            if n.kind == "=" and len(n.text) >= 4:
                n.text = n.text[:4] + pattern.sub(repl, n.text[4:])
            else:
                n.text = pattern.sub(repl, n.text)

    _walk(node, fn)


def _mask_fields(node: Reply, names: set[bytes]) -> None:
    def fn(n: Reply) -> None:
        if n.items is None:
            return
        pairs = n.kind in ("%", "|") or (n.kind == "*" and len(n.items) % 2 == 0)
        if not pairs:
            return
        for i in range(0, len(n.items) - 1, 2):
            key = n.items[i]
            if key.kind in ("+", "$") and key.text in names:
                value = n.items[i + 1]
                if value.items is None and not value.null and value.kind != "_":
                    # Keep the type: only the value is volatile.
                    n.items[i + 1] = Reply(value.kind, b"<MASKED>", attrs=value.attrs)
                else:
                    n.items[i + 1] = Reply("+", b"<MASKED>")

    _walk(node, fn)


def _drop_fields(node: Reply, names: set[bytes]) -> None:
    def fn(n: Reply) -> None:
        if n.items is None:
            return
        pairs = n.kind in ("%", "|") or (n.kind == "*" and len(n.items) % 2 == 0)
        if not pairs:
            return
        kept = []
        for i in range(0, len(n.items) - 1, 2):
            key = n.items[i]
            if key.kind in ("+", "$") and key.text in names:
                continue
            kept += n.items[i:i + 2]
        n.items = kept

    _walk(node, fn)


def _sort_scalars(node: Reply) -> None:
    def fn(n: Reply) -> None:
        if n.items is None or n.kind not in ("*", "~"):
            return
        if all(i.items is None for i in n.items):
            n.items.sort(key=encode)

    _walk(node, fn)


def apply_masks(node: Reply, masks: list[str]) -> Reply:
    """A masked deep copy of `node`."""
    if not masks:
        return node
    node = copy.deepcopy(node)
    for mask in masks:
        if mask == "ids":
            _sub_strings(node, _ID_RE, b"<ID>")
        elif mask == "numbers":
            _sub_strings(node, _NUM_RE, b"<N>")
        elif mask == "ints":
            _walk(node, lambda n: setattr(n, "text", b"<INT>") if n.kind == ":" else None)
        elif mask.startswith("range:"):
            _, lo, hi = mask.split(":")
            lo_i, hi_i = int(lo), int(hi)

            def in_range(n: Reply, lo_i=lo_i, hi_i=hi_i) -> None:
                # an earlier mask may have replaced the number already (fields:, ints)
                if n.kind == ":" and n.text is not None and n.text.lstrip(b"-").isdigit() \
                        and lo_i <= int(n.text) <= hi_i:
                    n.text = b"<IN-RANGE>"

            _walk(node, in_range)
        elif mask == "strings":
            def strings(n: Reply) -> None:
                if n.kind in STRING_KINDS and n.text is not None and not n.null:
                    n.text = n.text[:4] + b"<STR>" if n.kind == "=" else b"<STR>"

            _walk(node, strings)
        elif mask == "shape":
            def shape(n: Reply) -> None:
                if n.items is None and n.text is not None and not n.null and n.kind != "_":
                    n.text = b"<X>"
                    n.chunks = None

            _walk(node, shape)
        elif mask.startswith("fields:"):
            names = {f.encode() for f in mask[len("fields:"):].split(",") if f}
            _mask_fields(node, names)
        elif mask.startswith("drop:"):
            _drop_fields(node, {f.encode() for f in mask[len("drop:"):].split(",") if f})
        elif mask.startswith("regex:"):
            _sub_strings(node, re.compile(mask[len("regex:"):].encode()), b"<RE>", errors=True)
        elif mask.startswith("column:"):
            col = int(mask[len("column:"):])

            def column(n: Reply, col=col) -> None:
                if n.items is None or n.kind != "*" or not n.items:
                    return
                if all(i.items is not None and i.kind == "*" for i in n.items):
                    for row in n.items:
                        if col < len(row.items) and row.items[col].items is None:
                            row.items[col] = Reply(row.items[col].kind, b"<COL>")

            _walk(node, column)
        elif mask == "sort":
            _sort_scalars(node)
        else:
            raise ValueError(f"unknown mask {mask!r}")
    return node
