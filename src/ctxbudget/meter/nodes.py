"""Surface nodes and the persistent vector that holds them.

The fold appends one node per surface append and hands the same vector to every
``Measurement``. The vector is immutable and shares structure between versions
(a 32-way trie with a tail, as Clojure's ``PersistentVector``): appending copies
at most one 32-slot tail and one trie path, so measuring after an append costs
the same on a 100-node and a 10,000-node surface, and older snapshots never change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, overload

__all__ = ["Node", "NodeVector"]

_BITS: Final = 5
_WIDTH: Final = 1 << _BITS
_MASK: Final = _WIDTH - 1


@dataclass(frozen=True, slots=True)
class Node:
    """One model-visible event on the surface and its estimated price."""

    seq: int
    tokens: int


class NodeVector(Sequence[Node]):
    """An immutable sequence of ``Node`` with cheap ``appended`` (structure shared)."""

    __slots__ = ("_count", "_root", "_shift", "_tail")

    _count: int
    _shift: int
    _root: tuple[Any, ...]
    _tail: tuple[Node, ...]

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        items = list(nodes)
        full = 0 if not items else ((len(items) - 1) >> _BITS) << _BITS
        level: list[Any] = [tuple(items[i : i + _WIDTH]) for i in range(0, full, _WIDTH)]
        shift = _BITS
        while len(level) > _WIDTH:
            level = [tuple(level[i : i + _WIDTH]) for i in range(0, len(level), _WIDTH)]
            shift += _BITS
        self._set(len(items), shift, tuple(level), tuple(items[full:]))

    def _set(self, count: int, shift: int, root: tuple[Any, ...], tail: tuple[Node, ...]) -> None:
        object.__setattr__(self, "_count", count)
        object.__setattr__(self, "_shift", shift)
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_tail", tail)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"NodeVector is immutable; cannot set {name!r}")

    @classmethod
    def _of(
        cls, count: int, shift: int, root: tuple[Any, ...], tail: tuple[Node, ...]
    ) -> NodeVector:
        vector = cls.__new__(cls)
        vector._set(count, shift, root, tail)
        return vector

    def appended(self, node: Node) -> NodeVector:
        """A new vector with ``node`` at the end; this one is unchanged."""
        count, shift, root = self._count, self._shift, self._root
        if count - self._tail_offset() < _WIDTH:
            return self._of(count + 1, shift, root, (*self._tail, node))
        if (count >> _BITS) > (1 << shift):  # the trie is full: grow a level
            root, shift = (root, _path(shift, self._tail)), shift + _BITS
        else:
            root = _push_tail(count, shift, root, self._tail)
        return self._of(count + 1, shift, root, (node,))

    def replaced(self, first: int, last: int, node: Node) -> NodeVector:
        """A new vector with positions ``first``..``last`` (inclusive) replaced by ``node``.

        Rebuilds the trie (O(n)); replacements are rare (compaction), appends are not.
        """
        items = list(self)
        items[first : last + 1] = [node]
        return NodeVector(items)

    def _tail_offset(self) -> int:
        return 0 if self._count < _WIDTH else ((self._count - 1) >> _BITS) << _BITS

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Node: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Node, ...]: ...

    def __getitem__(self, index: int | slice) -> Node | tuple[Node, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("NodeVector index out of range")
        offset = self._tail_offset()
        if index >= offset:
            return self._tail[index - offset]
        branch: Any = self._root
        for level in range(self._shift, 0, -_BITS):
            branch = branch[(index >> level) & _MASK]
        node: Node = branch[index & _MASK]
        return node

    def __iter__(self) -> Iterator[Node]:
        yield from _leaves(self._root, self._shift)
        yield from self._tail

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"NodeVector({list(self)!r})"

    # Immutable: copies may share, and pickling rebuilds from the nodes.
    def __copy__(self) -> NodeVector:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> NodeVector:
        return self

    def __reduce__(self) -> tuple[type[NodeVector], tuple[tuple[Node, ...]]]:
        return (NodeVector, (tuple(self),))


def _path(level: int, leaf: tuple[Node, ...]) -> Any:
    return leaf if level == 0 else (_path(level - _BITS, leaf),)


def _push_tail(count: int, level: int, parent: tuple[Any, ...], tail: tuple[Node, ...]) -> Any:
    index = ((count - 1) >> level) & _MASK
    if level == _BITS:
        child: Any = tail
    elif index < len(parent):
        child = _push_tail(count, level - _BITS, parent[index], tail)
    else:
        child = _path(level - _BITS, tail)
    return (*parent[:index], child, *parent[index + 1 :])


def _leaves(branch: tuple[Any, ...], level: int) -> Iterator[Node]:
    if level == 0:
        yield from branch
        return
    for child in branch:
        yield from _leaves(child, level - _BITS)
