"""One trace: a counterexample is one list of operations with one numbering.

Every run that drives an aggregator through its kind's debug wrapper -- a state machine (``swagkit verify``, the
test suite, ``--impl``/``--exec``), a replay, a corpus file, ``swagkit explain`` -- records what it asked in a
:class:`Trace`: one :class:`Step` per operation on the aggregator, numbered from 1. A step keeps the call (its
trace name and arguments), what came of it (the answer the checks accepted, the documented refusal, or the
failure) and the contract events around it: the rule family it belongs to (``misuse``: an operation the model
refuses, asked on purpose; ``faults``: under an armed ⊗ fault) and, when an injected ⊗ fault fired inside it,
which of its ⊗ calls raised (``fault``). The same steps are what ``swagkit verify`` prints, what a replay file
holds (:mod:`swagkit.verify.replayfile`), what ``swagkit explain`` draws and what an ``--exec`` program is sent, so
``#5`` is the same operation everywhere.

The recorder is :meth:`Trace.wrap`, a pass-through proxy around a debug wrapper: every call of an operation of
the kind's face (:meth:`~swagkit.verify.kinds.kind.Kind.traced`) becomes a step, and the wrapper numbers its own
error messages by the step (``after evict() (operation #5)``). A step is one call on the aggregator: runs that
need a bulk call the aggregator lacks make the single calls themselves.

>>> from swagkit.reference import TwoStacks
>>> from swagkit.spec.library import string_concat
>>> from swagkit.verify.kinds import kind
>>> trace = Trace(kind("fifo").traced())
>>> w = trace.wrap(kind("fifo").checked(TwoStacks(string_concat()), monoid=string_concat()))
>>> w.insert("a"); w.insert("b"); w.query()
'ab'
>>> print(trace.describe())
#1 insert('a')
#2 insert('b')
#3 query() -> 'ab'
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from swagkit.spec.errors import EmptyWindowError, SwagkitError
from swagkit.spec.ooo import MissingTimeError, UnorderedBulkError

from .faults import FaultInjector, InjectedFault
from .kinds.base import NO_ANSWER

if TYPE_CHECKING:
    from .kinds.base import Operation

__all__ = [
    "NO_ANSWER",
    "FAMILIES",
    "SKIP_FLAGS",
    "Step",
    "Trace",
    "Traced",
    "refusal_code",
    "describe",
    "execute",
]


#: rule families: ``correctness`` (the model's answers on valid operations), ``misuse`` (operations the model
#: refuses, asked on purpose), ``faults`` (a ⊗ call raising once), ``budget`` (⊗ counts against the theorems)
FAMILIES = ("correctness", "misuse", "faults", "budget")

#: the ``swagkit verify`` flag that skips each contract family (correctness is never skipped; a budget is checked
#: only where ``--budget ALGO`` or the algorithm's card asks for it)
SKIP_FLAGS = {"misuse": "--no-misuse", "faults": "--no-faults"}

#: the protocol's refusal codes (docs/protocol.md), most specific first: what a documented error stands for
_REFUSALS: tuple[tuple[str, type[BaseException] | tuple[type[BaseException], ...]], ...] = (
    ("empty", EmptyWindowError),
    ("missing", MissingTimeError),
    ("unordered", UnorderedBulkError),
    ("bad_input", (SwagkitError, ValueError, TypeError, KeyError)),  # a dead handle (InvalidHandleError) too
)

_REPR = reprlib.Repr()
_REPR.maxstring = 40
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = 8


def refusal_code(exc: BaseException) -> str:
    """The protocol's code of a documented refusal (``empty``, ``missing``, ``unordered``, ``bad_input``),
    ``""`` for anything else (a failed check is never a refusal)."""
    if isinstance(exc, AssertionError):
        return ""
    for code, types in _REFUSALS:
        if isinstance(exc, types):
            return code
    return ""


@dataclass
class Step:
    """One operation of a trace: ``name`` (its trace name: ``insert``, ``size`` ...) and ``args``; what came of
    it -- ``answer`` (what the aggregator answered and the checks accepted; :data:`NO_ANSWER` for none),
    ``refused`` (the refusal code of a documented error) or ``failed`` (the failure's first line) -- and its
    contract events: ``family`` (the rule family that asked it, ``""``: correctness) and ``fault`` (which of its
    ⊗ calls raised an injected fault, counting from 1; ``None``: none did)."""

    name: str
    args: tuple[Any, ...] = ()
    family: str = ""
    fault: int | None = None
    answer: Any = NO_ANSWER
    refused: str = ""
    failed: str = ""

    def call(self) -> str:
        """The call as Python: ``insert('a')``, ``size()``."""
        return f"{self.name}({', '.join(_REPR.repr(a) for a in self.args)})"

    def text(self, number: int) -> str:
        """The step as one line: ``#4 evict() -> refused (empty)  [misuse]``."""
        line = f"#{number} {self.call()}"
        if self.fault is not None:
            line += f"  [⊗ call {self.fault} of it raises (injected fault)]"
        if self.failed:
            line += "  <- FAILS"
        elif self.refused:
            line += f" -> refused ({self.refused})"
        elif self.answer is not NO_ANSWER:
            line += f" -> {_REPR.repr(self.answer)}"
        if self.family and self.family != "correctness" and not (self.family == "faults" and self.fault):
            line += f"  [{self.family}]"
        return line


def describe(steps: Sequence[Step], limit: int = 60) -> str:
    """``steps`` one line each, numbered from 1 (the first and last ones of a long trace, with the count left
    out)."""
    lines = [s.text(i) for i, s in enumerate(steps, 1)]
    if len(lines) > limit:
        keep = limit // 2
        lines = [*lines[:keep], f"... ({len(lines) - 2 * keep} more steps) ...", *lines[-keep:]]
    return "\n".join(lines)


class Trace:
    """The steps of one run of one aggregator (see the module docstring) of a kind whose traced operations are
    ``operations`` (:meth:`~swagkit.verify.kinds.kind.Kind.traced`). ``faults`` is the injector of the monoid the
    aggregator got (``None``: none), so a step knows when an injected fault fired inside it."""

    def __init__(self, operations: Mapping[str, Operation], faults: FaultInjector | None = None) -> None:
        #: the kind's operations by trace name (:meth:`~swagkit.verify.kinds.kind.Kind.traced`)
        self.operations = operations
        self.steps: list[Step] = []
        self.faults = faults
        self.family = ""
        #: the rule family whose check failed (``""``: none did, or correctness)
        self.failure_family = ""

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    @contextmanager
    def under(self, family: str) -> Iterator[None]:
        """Steps recorded while the block runs belong to rule ``family`` (``misuse``, ``faults``); a check that
        fails inside the block (after its steps returned: "did not raise") is that family's too."""
        before, self.family = self.family, family
        try:
            yield
        except AssertionError:
            self.failure_family = self.failure_family or family
            raise
        finally:
            self.family = before

    def wrap(self, checked: Any) -> Traced:
        """``checked`` (a kind's debug wrapper) with every operation recorded as a step."""
        return Traced(checked, self)

    @property
    def failing(self) -> Step | None:
        """The step that failed (the last one, when it did)."""
        return self.steps[-1] if self.steps and self.steps[-1].failed else None

    @property
    def family_of_failure(self) -> str:
        """The rule family of the failure: the failing step's, else the family whose check failed after its
        steps (``correctness`` when no contract rule asked for it)."""
        step = self.failing
        family = step.family if step is not None and step.family else self.failure_family or "correctness"
        if family == "faults" and not any(s.fault is not None for s in self.steps):
            return "correctness"  # a fault rule's step failed, but no fault fired: the failure is not the fault's
        return family

    def describe(self, limit: int = 60) -> str:
        """The steps, one line each (see :func:`describe`)."""
        return describe(self.steps, limit)


class Traced:
    """A debug wrapper whose every operation is recorded in ``trace`` (see :meth:`Trace.wrap`); everything else
    (``len()``, the wrapper's ``model``, ``evictable()`` ...) passes through unrecorded. ``size()`` is ``len()``
    as a step (replay and corpus files ask it)."""

    def __init__(self, checked: Any, trace: Trace) -> None:
        object.__setattr__(self, "checked", checked)
        object.__setattr__(self, "trace", trace)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("checked", "trace"):
            raise AttributeError(name)
        attr = getattr(self.checked, name)
        if name not in self.trace.operations or not callable(attr):
            return attr
        return lambda *args: self.step(name, attr, args)

    def size(self) -> int:
        return int(self.step("size", lambda: len(self.checked), ()))

    def step(self, name: str, call: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """Run ``call(*args)`` as the next step ``name``."""
        trace = self.trace
        args = tuple(list(a) if isinstance(a, Iterator) else a for a in args)
        step = Step(name, args, family=trace.family)
        trace.steps.append(step)
        if hasattr(self.checked, "operations"):  # the wrapper numbers its messages by the step
            self.checked.operations = len(trace.steps) - 1
        faults = trace.faults
        calls, fired = (faults.calls, faults.fired) if faults is not None else (0, 0)
        if hasattr(self.checked, "model_answer"):
            self.checked.model_answer = NO_ANSWER
        try:
            got = call(*args)
        except InjectedFault:
            raise
        except BaseException as exc:
            step.refused = refusal_code(exc)
            if not step.refused:
                step.failed = _first_line(exc)
                # the model's answer a wrong one was compared with: what a replay of the step expects
                step.answer = getattr(self.checked, "model_answer", NO_ANSWER)
            raise
        finally:
            if faults is not None and faults.fired > fired:
                step.fault = faults.fired_at - calls
        operation = trace.operations.get(name)
        if operation is not None and operation.answers:
            # the model's exact answer where the wrapper compared one (the implementation's may differ by rounding)
            model = getattr(self.checked, "model_answer", NO_ANSWER)
            step.answer = got if model is NO_ANSWER else model
        return got

    def __len__(self) -> int:
        return len(self.checked)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.checked, name, value)

    def __repr__(self) -> str:
        return repr(self.checked)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    line = text.splitlines()[0]
    return f"{type(exc).__name__}: {line}"[:300]


def execute(
    traced: Traced,
    steps: Sequence[Step],
    same: Callable[[Any, Any], bool] | None = None,
    *,
    judge_only: bool = False,
) -> tuple[int, str] | None:
    """Run ``steps`` on ``traced`` (a wrapper recording into its own trace), arming each step's injected fault
    on the trace's injector; ``None`` when every step passes the wrapper's checks and agrees with what the steps
    recorded (the same refusal; the same answer by ``same``, when given), else ``(number, what went wrong)``
    for the first step that does not. ``judge_only``: what the steps recorded is not compared (a shrunk
    trace's steps meet a different state): only the wrapper's checks judge."""
    faults = traced.trace.faults
    for number, want in enumerate(steps, 1):
        if want.fault is not None:
            if faults is None:
                return number, "the step injects a ⊗ fault, but the monoid has no fault injector"
            faults.arm(want.fault)
        try:
            got = traced.size() if want.name == "size" else getattr(traced, want.name)(*want.args)
        except InjectedFault:
            continue  # the planted fault: the wrapper has judged the state it left
        except AssertionError as exc:
            return number, f"{type(exc).__name__}: {exc}"
        except Exception as exc:
            code = refusal_code(exc)
            if not code:
                return number, f"raised {type(exc).__name__}: {exc}"
            if judge_only:
                continue
            if not want.refused and want.answer is not NO_ANSWER:
                return number, f"refused ({code}: {exc}), the file expects {_REPR.repr(want.answer)}"
            continue
        finally:
            if faults is not None:
                faults.disarm()
        if judge_only:
            continue
        if want.refused:
            return number, f"returned {_REPR.repr(got)}, the model refuses it ({want.refused})"
        if same is not None and want.answer is not NO_ANSWER and not same(got, want.answer):
            return number, f"returned {_REPR.repr(got)}, the file expects {_REPR.repr(want.answer)}"
    return None
