"""The demo's scripted agent session, written for this package (no corpus text).

A developer asks a coding agent, half in Chinese and half in English, to fix
negative stock counts in a small inventory service. The agent lists files,
reads code, greps, edits and runs tests over five user turns. Tool outputs are
generated from small templates so the session is long enough to fill a small
context window, yet the module stays readable and the run deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "MODEL",
    "PASTED_LOG_TURN",
    "SCRIPT",
    "SYSTEM_PROMPT",
    "TOOLS",
    "ModelCall",
    "ToolUse",
    "UserTurn",
]

MODEL: Final = "gpt-4o-mini"
"""The model name the scripted requests carry (nothing is sent anywhere)."""

SYSTEM_PROMPT: Final = """## Identity
You are Kestrel, a careful coding agent working in the `stockroom` repository.
你是一名严谨的编程助手:先读代码,再动手修改,每一步都要说明理由。

## Current Working State
Branch: fix/negative-stock. Python 3.11, PostgreSQL 16, pytest.

## Safety Boundaries
Never push to a remote. Never run migrations against production.
不要删除工作区以外的任何文件。

## Style notes
Small commits, one concern each. Explain why, not what. Keep the public API stable.
"""

TOOLS: Final[tuple[dict[str, Any], ...]] = (
    {
        "type": "function",
        "function": {
            "name": "list_dir",
            "description": "List the files under a directory of the repository.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file of the repository.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "grep",
            "description": "Search the repository for a regular expression.",
            "parameters": {
                "type": "object",
                "properties": {"pattern": {"type": "string"}},
                "required": ["pattern"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "edit_file",
            "description": "Replace text in a file; returns the diff.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                },
                "required": ["path", "old", "new"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "run",
            "description": "Run a shell command in the repository (tests, linters, git).",
            "parameters": {
                "type": "object",
                "properties": {"command": {"type": "string"}},
                "required": ["command"],
            },
        },
    },
)


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One tool call the agent makes and the output it gets back."""

    name: str
    arguments: dict[str, str]
    output: str


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call: the text the model writes and the tools it calls (maybe none)."""

    text: str
    tools: tuple[ToolUse, ...] = ()


@dataclass(frozen=True, slots=True)
class UserTurn:
    """A user message and the model calls that answer it."""

    user: str
    calls: tuple[ModelCall, ...]


# -- generated tool outputs -------------------------------------------------------------------

_MODULES: Final = ("reserve", "orders", "db", "pricing", "audit", "api", "cli", "settings")


def _listing() -> str:
    lines = ["stockroom/", "  pyproject.toml", "  README.md", "  CHANGELOG.md", "  inventory/"]
    lines += [f"    {name}.py" for name in _MODULES]
    lines += ["  tests/"]
    lines += [f"    test_{name}.py" for name in _MODULES]
    lines += ["  migrations/"]
    lines += [f"    {n:04d}_{step}.sql" for n, step in enumerate(_MIGRATIONS, 1)]
    return "\n".join(lines)


_MIGRATIONS: Final = (
    "create_items",
    "create_orders",
    "add_reserved_column",
    "index_orders_by_item",
    "add_audit_log",
    "add_price_history",
)


def _function(module: str, name: str, doc: str, body: tuple[str, ...]) -> str:
    lines = [f"def {name}(conn: Connection, item_id: int, quantity: int) -> int:"]
    lines.append(f'    """{doc}"""')
    lines += [f"    {line}" for line in body]
    return "\n".join(lines) + "\n"


_BUG_NOTE: Final = "读取和更新之间没有加锁:两个请求可能同时通过检查"
_FIXED_NOTE: Final = "行锁保证检查与更新原子执行"


def _source(module: str, bug: bool) -> str:
    header = [
        f'"""{module}: part of the stockroom inventory service."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "from dataclasses import dataclass",
        "",
        "from inventory.db import Connection, transaction",
        "",
        "log = logging.getLogger(__name__)",
        "",
    ]
    read = (
        "row = conn.fetch_one('SELECT stock, reserved FROM items WHERE id = %s', item_id)",
        "if row is None:",
        "    raise LookupError(f'no item {item_id}')",
    )
    check = ("if row.stock - row.reserved < quantity:", "    raise OutOfStock(item_id, quantity)")
    lock = "FOR UPDATE" if not bug else ""
    update = (
        f"# {_BUG_NOTE if bug else _FIXED_NOTE}",
        f"conn.execute('UPDATE items SET reserved = reserved + %s WHERE id = %s {lock}',",
        "             quantity, item_id)",
        "log.info('reserved %s of item %s', quantity, item_id)",
        "return row.stock - row.reserved - quantity",
    )
    functions = [
        _function(
            module,
            "reserve",
            "Hold `quantity` units of an item for an order.",
            read + check + update,
        ),
        _function(module, "release", "Give back units held for a cancelled order.", read + update),
        _function(module, "restock", "Add delivered units to the stock count.", read + update),
    ]
    extras = [
        "@dataclass(frozen=True)",
        "class OutOfStock(Exception):",
        '    """Raised when an order asks for more than is free; 库存不足时抛出。"""',
        "",
        "    item_id: int",
        "    quantity: int",
        "",
    ]
    return "\n".join(header + extras) + "\n\n" + "\n\n".join(functions)


def _test_log(names: tuple[str, ...], failing: str | None, seconds: float) -> str:
    lines = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.11.9, pytest-8.3.2, pluggy-1.5.0",
        "rootdir: /work/stockroom",
        f"collected {len(names) * 6} items",
        "",
    ]
    for name in names:
        for case in ("basic", "zero", "many", "unknown_item", "twice", "after_release"):
            outcome = "FAILED" if failing == f"{name}::{case}" else "PASSED"
            lines.append(f"tests/test_{name}.py::test_{name}_{case} {outcome}")
    if failing:
        module, case = failing.split("::")
        lines += [
            "",
            "=================================== FAILURES ===================================",
            f"___________________________ test_{module}_{case} ___________________________",
            "",
            "    def test_reserve_twice(conn, item):",
            "        with ThreadPool(2) as pool:",
            "            pool.map(lambda _: reserve(conn, item.id, 3), range(2))",
            ">       assert stock_of(conn, item.id) >= 0",
            "E       assert -1 >= 0",
            "E        +  where -1 = stock_of(<Connection>, 17)",
            "",
            f"tests/test_{module}.py:48: AssertionError",
            f"FAILED tests/test_{module}.py::test_{module}_{case} - assert -1 >= 0",
        ]
    total = len(names) * 6
    failed = 1 if failing else 0
    summary = f"{total - failed} passed" + (f", {failed} failed" if failed else "")
    lines.append(f"========================= {summary} in {seconds:.2f}s =========================")
    return "\n".join(lines)


_UPDATE_SQL: Final = "UPDATE items SET reserved = reserved + %s WHERE id = %s"


def _grep(pattern: str) -> str:
    hits = []
    for n, module in enumerate(_MODULES):
        for line in (12 + 7 * n, 31 + 5 * n):
            hits.append(f"inventory/{module}.py:{line}:    conn.execute({_UPDATE_SQL!r}, ...)")
    return f"{len(hits)} matches for {pattern!r}\n" + "\n".join(hits)


def _diff(path: str, old: str, new: str, context: int) -> str:
    lines = [f"--- a/{path}", f"+++ b/{path}", f"@@ -{context},7 +{context},9 @@"]
    lines += [
        f" {line}"
        for line in ("def reserve(conn, item_id, quantity):", "    with transaction(conn):")
    ]
    lines += [
        f"-{old}",
        f"+{new}",
        "+    # 先加行锁,再检查库存:并发请求会排队,而不是同时通过检查",
        " return remaining",
    ]
    return "\n".join(lines)


def _lint_log() -> str:
    lines = [f"ruff check inventory/{m}.py ... ok" for m in _MODULES]
    lines += [f"mypy --strict inventory/{m}.py ... Success: no issues found" for m in _MODULES]
    return "\n".join(lines)


def _git_diff() -> str:
    parts = [
        _diff(
            f"inventory/{m}.py",
            "    row = conn.fetch_one(SELECT_STOCK, item_id)",
            "    row = conn.fetch_one(SELECT_STOCK + ' FOR UPDATE', item_id)",
            20 + i,
        )
        for i, m in enumerate(("reserve", "orders", "api"))
    ]
    return "\n".join(parts) + "\n" + _source("test_concurrency", bug=False)


def _read(path: str, bug: bool = True) -> ToolUse:
    module = path.rsplit("/", 1)[-1].removesuffix(".py")
    return ToolUse("read_file", {"path": path}, _source(module, bug))


def _run(command: str, output: str) -> ToolUse:
    return ToolUse("run", {"command": command}, output)


SCRIPT: Final[tuple[UserTurn, ...]] = (
    UserTurn(
        "我们的库存服务在高并发下会出现负库存。请先看看 inventory/reserve.py,找出原因,"
        "然后修复并补上测试。",
        (
            ModelCall("我先看一下仓库结构。", (ToolUse("list_dir", {"path": "."}, _listing()),)),
            ModelCall("Reading the reservation code first.", (_read("inventory/reserve.py"),)),
            ModelCall(
                "The check and the update are two statements; let me see where else that happens.",
                (
                    ToolUse(
                        "grep",
                        {"pattern": "UPDATE items SET reserved"},
                        _grep("UPDATE items SET reserved"),
                    ),
                ),
            ),
            ModelCall(
                "先跑一下现有测试,确认问题能复现。",
                (_run("pytest -q tests", _test_log(_MODULES, "reserve::twice", 4.81)),),
            ),
            ModelCall(
                "找到原因了:`reserve` 先读库存再更新,两步之间没有锁。两个并发请求都能通过检查,"
                "于是库存变成负数。The fix is a row lock (SELECT ... FOR UPDATE) inside the "
                "transaction, so the second request waits for the first."
            ),
        ),
    ),
    UserTurn(
        "Good catch. Please fix it with a row lock, and keep the public API unchanged.",
        (
            ModelCall(
                "Let me read the database helpers to see how transactions are opened.",
                (_read("inventory/db.py"),),
            ),
            ModelCall(
                "订单模块也调用了同样的更新语句,我也看一下。", (_read("inventory/orders.py"),)
            ),
            ModelCall(
                "Adding FOR UPDATE to the read in reserve().",
                (
                    ToolUse(
                        "edit_file",
                        {
                            "path": "inventory/reserve.py",
                            "old": "SELECT_STOCK",
                            "new": "SELECT_STOCK + ' FOR UPDATE'",
                        },
                        _diff(
                            "inventory/reserve.py",
                            "    row = conn.fetch_one(SELECT_STOCK, item_id)",
                            "    row = conn.fetch_one(SELECT_STOCK + ' FOR UPDATE', item_id)",
                            20,
                        ),
                    ),
                ),
            ),
            ModelCall(
                "Running the reservation tests again.",
                (_run("pytest -q tests/test_reserve.py", _test_log(("reserve",), None, 0.92)),),
            ),
            ModelCall("修好了:reserve 现在在事务内先加行锁再检查,公共接口没有变化。"),
        ),
    ),
    UserTurn(
        "再加一个并发测试:100 个线程同时下单,库存不能小于 0。Also check the API layer.",
        (
            ModelCall("Reading the API layer first.", (_read("inventory/api.py"),)),
            ModelCall(
                "API 层直接调用 reserve,不需要改。现在写并发测试。",
                (
                    ToolUse(
                        "edit_file",
                        {"path": "tests/test_concurrency.py", "old": "", "new": "test"},
                        _source("test_concurrency", bug=False),
                    ),
                ),
            ),
            ModelCall(
                "Running the new test 20 times to be sure it is stable.",
                (
                    _run(
                        "pytest -q tests/test_concurrency.py --count 20",
                        _test_log(("concurrency",) * 3, None, 12.4),
                    ),
                ),
            ),
            ModelCall(
                "The pricing module also writes stock; checking it.",
                (_read("inventory/pricing.py"),),
            ),
            ModelCall(
                "And the audit log, which records every reservation.",
                (_read("inventory/audit.py"),),
            ),
            ModelCall("并发测试通过了 20 次,pricing 和 audit 模块不直接改库存,不需要修改。"),
        ),
    ),
    UserTurn(
        "Run the whole suite and the linters, then write the PR description. 中英文各一段。",
        (
            ModelCall("Running everything.", (_run("pytest -q", _test_log(_MODULES, None, 7.35)),)),
            ModelCall(
                "Now the linters.", (_run("ruff check . && mypy --strict inventory", _lint_log()),)
            ),
            ModelCall(
                "Collecting the full diff for the description.",
                (_run("git diff main", _git_diff()),),
            ),
            ModelCall(
                "Checking the changelog format.",
                (ToolUse("read_file", {"path": "CHANGELOG.md"}, _source("changelog", bug=False)),),
            ),
            ModelCall(
                "PR: Fix negative stock under concurrent orders. `reserve` read the stock and "
                "updated it in two statements without a lock, so two concurrent orders could "
                "both pass the check. It now locks the item row (SELECT ... FOR UPDATE) inside "
                "the transaction. Adds a 100-thread concurrency test.\n\n"
                "修复并发下单导致负库存的问题:reserve 先读后写且没有加锁,两个并发订单可能同时"
                "通过检查。现在在事务内对商品行加锁,并新增 100 线程并发测试。"
            ),
        ),
    ),
)
"""The session, turn by turn."""


def _pasted_log() -> str:
    blocks = [_test_log(_MODULES, "reserve::twice", 4.81 + n) for n in range(9)]
    return "\n".join(blocks)


PASTED_LOG_TURN: Final = (
    "CI 又挂了,下面是完整的构建日志,帮我看看 / CI failed again, full build log below:\n\n"
    + _pasted_log()
)
"""A last user message with a huge pasted log: more than any budget can hold as pending."""
