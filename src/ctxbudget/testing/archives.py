"""The fake ``Archive`` (and its async twin) for tests of compaction and enforcement."""

from __future__ import annotations

from dataclasses import dataclass, field

from ctxbudget.archives import Original
from ctxbudget.errors import LocatorError

__all__ = ["AsyncFakeArchive", "FakeArchive"]

_PREFIX = "fake://archive/"


@dataclass
class FakeArchive:
    """Keeps originals in memory; locators are ``fake://archive/<n>``.

    ``fail_with`` makes every ``store`` raise it.
    """

    originals: list[Original] = field(default_factory=list)
    fail_with: BaseException | None = None

    def store(self, original: Original) -> str:
        """Remember ``original``; its locator."""
        if self.fail_with is not None:
            raise self.fail_with
        self.originals.append(original)
        return f"{_PREFIX}{len(self.originals) - 1}"

    def retrieve(self, locator: str) -> Original:
        """The original stored under ``locator``."""
        index = locator.removeprefix(_PREFIX)
        if not locator.startswith(_PREFIX) or not index.isdigit():
            raise LocatorError(f"{locator!r} is not a fake archive locator")
        if int(index) >= len(self.originals):
            raise LocatorError(f"nothing is stored under {locator!r}")
        return self.originals[int(index)]


@dataclass
class AsyncFakeArchive:
    """``FakeArchive`` for async hosts; ``inner`` holds the originals."""

    inner: FakeArchive = field(default_factory=FakeArchive)

    async def store(self, original: Original) -> str:
        """Same as ``FakeArchive.store``."""
        return self.inner.store(original)

    async def retrieve(self, locator: str) -> Original:
        """Same as ``FakeArchive.retrieve``."""
        return self.inner.retrieve(locator)
