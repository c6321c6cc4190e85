"""Rewound conversations in Claude Code session logs: which records were abandoned.

Records link to their parent (``parentUuid``; across a compaction boundary,
``logicalParentUuid``). Rewinding a conversation and sending a new prompt gives
the record before the old prompt a second child, so the log holds two branches
and the model only ever saw one of them at a time. The branch continued last
(the one holding the last record of the thread) is kept; a branch that another
prompt replaced is dropped. Only such forks count: a record with a second child
that is not a user's prompt (a progress note, a hook summary) forks nothing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["abandoned_records"]


def _is_prompt(record: Mapping[str, Any]) -> bool:
    """True for a user record the user typed (not tool results, not meta notes)."""
    if record.get("type") != "user" or record.get("isMeta"):
        return False
    message = record.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content
    )


def abandoned_records(records: Iterable[Mapping[str, Any]]) -> set[str]:
    """The uuids of main-thread records on branches a rewind abandoned."""
    by_uuid: dict[str, Mapping[str, Any]] = {}
    parent: dict[str, str] = {}
    children: dict[str, list[str]] = defaultdict(list)
    last = None
    for record in records:
        uuid = record.get("uuid")
        if not isinstance(uuid, str) or record.get("isSidechain") or uuid in by_uuid:
            continue
        by_uuid[uuid] = record
        up = record.get("parentUuid") or record.get("logicalParentUuid")
        if isinstance(up, str):
            parent[uuid] = up
            children[up].append(uuid)
        last = uuid
    active: set[str] = set()
    node = last
    while node is not None and node not in active:
        active.add(node)
        node = parent.get(node)
    dropped: set[str] = set()
    for fork in active:
        kids = children.get(fork, ())
        if not any(k in active and _is_prompt(by_uuid[k]) for k in kids):
            continue  # the conversation did not restart here with a new prompt
        for kid in kids:
            if kid not in active and _is_prompt(by_uuid[kid]):
                dropped |= _subtree(kid, children)
    return dropped


def _subtree(root: str, children: Mapping[str, list[str]]) -> set[str]:
    found, todo = set(), [root]
    while todo:
        node = todo.pop()
        if node not in found:
            found.add(node)
            todo.extend(children.get(node, ()))
    return found
