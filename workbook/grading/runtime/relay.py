"""Calls between the grader's two processes: a lab's functions answered by the process that holds them.

When the grader judges lab N, the labs N uses (``Lab.uses``) run as the course's reference solutions in a
process of their own, the oracle (``oracle.py`` beside this module), in a sandbox of its own. The runner's package
has,
for each of those labs, a stub: the starter's module whose lab functions call ``forward``. The oracle's
package has the same kind of stub for lab N, so the reference's calls of lab N's functions come back to your
code. A function passed as an argument (an estimator of your own) is called back where it lives.

Each call crosses a pair of pipes as one JSON line of wire values (``wire.py``) and is answered with what
came back, rebuilt as fresh objects, or with the error raised, raised again as the same class with the
same message (the course's errors, ``errors.py``, and Python's own). Anything else (an argument that is
not data, a function not served, the other process gone) raises ``RelayError`` naming the function.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Collection, Iterable
from typing import Any

from compaction_lab.provided import errors
from compaction_lab.provided.labs import LABS

MAX_LINE = 64 << 20
"""Bytes of one call or answer: more is not data a lab passes (the channel is then broken)."""


class RelayError(RuntimeError):
    """A call to the other process could not be made or answered; the message names the function and why."""


_channel: Channel | None = None


def connect(read_fd: int, write_fd: int, serves: Iterable[str]) -> Channel:
    """Make this process's channel: calls come in on ``read_fd`` and go out on ``write_fd``; only the
    functions named in ``serves`` (``module.function``) are answered."""
    global _channel
    _channel = Channel(read_fd, write_fd, serves)
    return _channel


def forward(function: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Call ``function`` (``module.function`` of ``compaction_lab``) in the other process with ``args`` and
    ``kwargs``; return what it returned (fresh objects) or raise what it raised. ``RelayError`` when no
    channel is connected (a stub is only used while the grader runs)."""
    if _channel is None:
        raise RelayError(f"{function}: the course's copy of this function is only reachable while the grader runs")
    return _channel.call({"call": function}, function, args, kwargs)


class Channel:
    """One end of the pipes: ``call`` sends a call and, while waiting for its answer, answers the calls the
    other side makes (of a served function, or of a function this side passed as an argument)."""

    def __init__(self, read_fd: int, write_fd: int, serves: Iterable[str]) -> None:
        self._reader = os.fdopen(read_fd, "rb")
        self._write_fd = write_fd
        self._serves = frozenset(serves)
        self._callbacks: dict[int, Callable[..., Any]] = {}
        self._classes: dict[str, type] = {}

    def call(self, request: dict[str, Any], name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Send ``request`` (``{"call": function}`` or ``{"callback": number}``) with the arguments; answer the
        other side's calls until the answer comes; return or raise it. ``name`` names the function in errors."""
        # not at import: wire imports the lab modules, whose stubs import this module
        from compaction_lab.provided.checking import wire

        passed: list[int] = []

        def callback(function: Callable[..., Any]) -> dict[str, int]:
            number = len(self._callbacks) + 1
            while number in self._callbacks:
                number += 1
            self._callbacks[number] = function
            passed.append(number)
            return {"$callback": number}

        try:
            try:
                sent = {
                    **request,
                    "args": wire.to_wire(list(args), "args", callback),
                    "kwargs": wire.to_wire(dict(kwargs), "kwargs", callback),
                }
            except wire.WireError as error:
                raise RelayError(f"{name}: an argument cannot be sent to the course's copy ({error})") from None
            self._send(sent, name)
            while True:
                message = self._receive(name)
                if message is None:
                    raise RelayError(f"{name}: the process answering it has ended")
                if "call" in message or "callback" in message:
                    self._answer(message)
                else:
                    return self._outcome(message, name)
        finally:
            for number in passed:
                self._callbacks.pop(number, None)

    def serve(self) -> None:
        """Answer calls until the other side closes its pipe."""
        while (message := self._receive("the channel")) is not None:
            self._answer(message)

    def _answer(self, message: dict[str, Any]) -> None:
        from compaction_lab.provided.checking import wire

        name = str(message.get("call", "a function passed as an argument"))[:200]
        try:
            target = self._callbacks[message["callback"]] if "callback" in message else self._served(name)
            args, kwargs = self._read(message["args"]), self._read(message["kwargs"])
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as error:
            unread = RelayError(f"{name}: the call could not be read ({error!r:.200})")
            self._send({"raised": wire.raised(unread)}, name)
            return
        try:
            result = target(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except BaseException as error:  # noqa: BLE001 (the error is the answer)
            answer = {"raised": wire.raised(error)}
            code = getattr(error, "code", None)
            if isinstance(code, str):
                answer["raised"]["code"] = code
        else:
            try:
                answer = {"returned": wire.to_wire(result)}
            except wire.WireError as error:
                answer = {"raised": wire.raised(RelayError(f"{name}: returned what is not data ({error})"))}
        self._send(answer, name)

    def _served(self, name: str) -> Callable[..., Any]:
        if name not in self._serves:
            raise KeyError(f"{name} is not served here")
        from compaction_lab.provided.checking import wire

        return wire.resolve(name)

    def _read(self, value: Any) -> Any:
        from compaction_lab.provided.checking import wire

        if not self._classes:
            self._classes = lab_dataclasses({name.partition(".")[0] for name in self._serves})
        return wire.from_wire(value, self._classes, self._proxy)

    def _proxy(self, number: Any) -> Callable[..., Any]:
        def call_back(*args: Any, **kwargs: Any) -> Any:
            return self.call({"callback": number}, "a function passed as an argument", args, kwargs)

        return call_back

    def _outcome(self, message: dict[str, Any], name: str) -> Any:
        try:
            if "returned" in message:
                return self._read(message["returned"])
            failure = message["raised"]
            error = rebuilt_error(failure["classes"], failure["message"], failure.get("code"), name)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
            raise RelayError(f"{name}: its answer could not be read") from None
        raise error

    def _send(self, message: dict[str, Any], name: str) -> None:
        data = memoryview((json.dumps(message) + "\n").encode("utf-8"))
        try:
            while data:
                data = data[os.write(self._write_fd, data) :]
        except OSError:
            raise RelayError(f"{name}: the process answering it has ended") from None

    def _receive(self, name: str) -> dict[str, Any] | None:
        line = self._reader.readline(MAX_LINE + 1)
        if not line:
            return None
        try:
            message = json.loads(line) if len(line) <= MAX_LINE else None
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            raise RelayError(f"{name}: the other process sent what is not a call or an answer")
        return message


def lab_dataclasses(served: Collection[str] = ()) -> dict[str, type]:
    """The dataclasses the five lab modules define (``Context``, ``ResumePoint``, ...), by name: what a
    ``$dataclass`` crossing the channel may be. A name is looked up in the modules of the labs the other side
    answers first (their stubs here hold the course's classes), then in the ``served`` lab modules (answered
    here), each group in the labs' order; never in a module of the student's own, whose class names may be
    the same (a ``Context`` in ``my_helpers.py``)."""
    order = sorted(LABS, key=lambda item: item.module in served)
    found: dict[str, type] = {}
    for item in order:
        module = sys.modules.get(f"compaction_lab.{item.module}")
        if module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__:
                found.setdefault(value.__name__, value)
    return found


def rebuilt_error(classes: list[str], message: str, code: Any, function: str) -> BaseException:
    """The error the other process raised (``classes``: its class and base class names, most derived first),
    as this process raises it: the first of them that is a course error class or Python's own, with
    ``message`` (and ``code`` for a ``CompactionError``); a ``RelayError`` naming ``function`` when none is."""
    names = classes if isinstance(classes, list) else []
    for class_name in names:
        if not isinstance(class_name, str):
            continue
        if class_name == "LabNotImplementedError" and (named := errors.LabNotImplementedError.named_in(message)):
            return errors.LabNotImplementedError(*named)
        if class_name == "CompactionError":
            return errors.CompactionError(message, code if isinstance(code, str) else None)
        kind = getattr(errors, class_name, None) if class_name.endswith("Error") else None
        kind = kind or {"RelayError": RelayError}.get(class_name)
        kind = kind or getattr(builtins, class_name, None)
        if isinstance(kind, type) and issubclass(kind, Exception) and not issubclass(kind, Warning):
            try:
                return kind(_key(message) if issubclass(kind, KeyError) else message)
            except TypeError:
                continue
    return RelayError(f"{function}: raised {str(names[0])[:80] if names else 'an error'}: {message}")


def _key(message: str) -> Any:
    """A ``KeyError``'s key from its message (``str(KeyError("u1"))`` is ``'u1'``, quoted): rebuilt with the key,
    the error reads the same on both sides."""
    try:
        return ast.literal_eval(message)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return message
