"""What ``compact`` (lab 4, going further) works with: the request a summarizer gets, a cancellation
token, and scripted, offline summarizers.

A real agent asks a model for the summary: a slow call, often ``async``, that the user may cancel. The
workbook never calls a model. A ``ScriptedSummarizer`` plays a script instead (reply with this summary,
or fail with this error), records every request it gets, and can act while it works (cancel a token,
scribble on its request); ``AsyncScriptedSummarizer`` plays the same script as a coroutine that is
awaited a few times before it replies, as a streamed reply would be.

``CancellationToken`` is how a caller says "stop": ``compact`` looks at it before summarizing, after the
summarizer returns and just before appending; ``await_cancellable`` watches it while an ``async``
summarizer is awaited. A cancelled operation raises ``CompactionError`` with code ``cancelled``.
"""

from __future__ import annotations

import asyncio
import copy
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ..records import Entry
from .errors import CompactionError

T = TypeVar("T")
STREAM_STEPS = 3
"""How many times an ``AsyncScriptedSummarizer`` yields to the event loop before it replies."""


@dataclass(frozen=True)
class SummaryRequest:
    """What a summarizer is asked, all copies it may keep: ``messages``, the message entries to compact
    (path order); ``previous_summary``, the latest compaction's seven-field summary (or None);
    ``first_kept_entry_id``, where the kept messages start; ``summary_max_tokens``, what the summary may
    cost, priced as the message a resumed context shows it as (``resumption.summary_message``)."""

    messages: tuple[Entry, ...]
    previous_summary: dict[str, Any] | None
    first_kept_entry_id: str
    summary_max_tokens: float


class CancellationToken:
    """A flag a caller sets once (``cancel()``) and an operation reads (``cancelled``), from any thread.

    ``on_cancel(callback)`` runs ``callback`` when the token is cancelled (at once if it already is) and
    returns a function that unregisters it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancelled = False
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        """True once ``cancel()`` has been called."""
        return self._cancelled

    def cancel(self) -> None:
        """Cancel: set the flag and run the registered callbacks (only the first call does anything)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run ``callback`` on cancellation (now, if already cancelled); return its unregister function."""
        with self._lock:
            if not self._cancelled:
                self._callbacks.append(callback)
                return lambda: self._forget(callback)
        callback()
        return lambda: None

    def _forget(self, callback: Callable[[], None]) -> None:
        with self._lock:
            if callback in self._callbacks:
                self._callbacks.remove(callback)


def await_cancellable(awaitable: Awaitable[T], cancel: CancellationToken) -> T:
    """Await ``awaitable`` to its result while watching ``cancel``; for a plain function's caller.

    It runs on a private event loop in a worker thread, so it works where a loop is already running
    (a notebook's kernel). If ``cancel`` is cancelled before or while it runs, the awaited task is
    cancelled and ``CompactionError`` (code ``cancelled``) is raised; what the awaitable raises comes through.
    """

    async def watched() -> T:
        task = asyncio.ensure_future(awaitable)
        loop = asyncio.get_running_loop()
        forget = cancel.on_cancel(lambda: loop.call_soon_threadsafe(task.cancel))
        try:
            return await task
        except asyncio.CancelledError:
            if cancel.cancelled:
                raise CompactionError("cancelled: while the summarizer was awaited", code="cancelled") from None
            raise
        finally:
            forget()

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="summarizer") as pool:
        return pool.submit(asyncio.run, watched()).result()


class ScriptedSummarizer:
    """An offline summarizer that plays a script: a plain function of a ``SummaryRequest``.

    Each call records a deep copy of its request in ``requests``, runs ``on_request(request)`` if given
    (to cancel a token or change the request, as a careless summarizer might), then raises
    ``RuntimeError(error)`` if ``error`` is given, else returns a deep copy of ``reply``. ``finished``
    counts the calls that got as far as replying.
    """

    def __init__(
        self, reply: Any = None, *, error: str | None = None, on_request: Callable[[SummaryRequest], None] | None = None
    ) -> None:
        self.reply, self.error, self.on_request = reply, error, on_request
        self.requests: list[SummaryRequest] = []
        self.finished = 0

    def __call__(self, request: SummaryRequest) -> Any:
        self._start(request)
        return self._finish()

    def _start(self, request: SummaryRequest) -> None:
        self.requests.append(copy.deepcopy(request))
        if self.on_request is not None:
            self.on_request(request)

    def _finish(self) -> Any:
        if self.error is not None:
            raise RuntimeError(self.error)
        self.finished += 1
        return copy.deepcopy(self.reply)


class AsyncScriptedSummarizer(ScriptedSummarizer):
    """The same script as an ``async`` summarizer: calling it returns a coroutine, which starts (records the
    request, runs ``on_request``), yields to the event loop ``STREAM_STEPS`` times, then replies or raises."""

    async def __call__(self, request: SummaryRequest) -> Any:
        self._start(request)
        for _ in range(STREAM_STEPS):
            await asyncio.sleep(0)
        return self._finish()
