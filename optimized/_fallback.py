"""Pure-Python fallback of :mod:`swagkit.optimized` (used when ``SWAGKIT_PUREPYTHON`` is set or the compiled
extensions are missing): the reference algorithms themselves, so API, snapshots and ``combine_count`` agree by
construction. Each class adds ``_memory_bytes()`` (None: not measurable for Python objects).

Complexity is that of the reference (paper 000): Two-Stacks §3 and Two-Stacks Lite §4 (Theorems 3.2, 4.2:
amortized O(1), worst-case O(n) ⊗), DABA §5 and DABA Lite §6 (Theorems 5.2, 6.2: worst-case O(1) ⊗).
"""

from __future__ import annotations

from swagkit.reference import daba, daba_lite, two_stacks, two_stacks_lite
from swagkit.reference import DABA as _RefDABA
from swagkit.reference import DABALite as _RefDABALite
from swagkit.reference import TwoStacks as _RefTwoStacks
from swagkit.reference import TwoStacksLite as _RefTwoStacksLite
from swagkit.reference import flatfat, reactive
from swagkit.reference.flatfat import FlatFAT as _RefFlatFAT
from swagkit.reference.reactive import ReactiveAggregator as _RefReactiveAggregator
from swagkit.reference import slickdeque
from swagkit.reference import flatfit
from swagkit.reference.flatfit import FlatFIT as _RefFlatFIT
from swagkit.reference.slickdeque import SlickDequeInv as _RefSlickDequeInv
from swagkit.reference.slickdeque import SlickDequeNonInv as _RefSlickDequeNonInv

__all__ = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite", "SlickDequeInv", "SlickDequeNonInv", "FlatFAT", "ReactiveAggregator", "FlatFIT"]


class TwoStacks(_RefTwoStacks):
    __doc__ = f"Paper 000 §3, pure-Python fallback (the reference class). {two_stacks.TwoStacks.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class TwoStacksLite(_RefTwoStacksLite):
    __doc__ = f"Paper 000 §4, pure-Python fallback (the reference class). {two_stacks_lite.TwoStacksLite.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class DABA(_RefDABA):
    __doc__ = f"Paper 000 §5, pure-Python fallback (the reference class). {daba.DABA.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class DABALite(_RefDABALite):
    __doc__ = f"Paper 000 §6, pure-Python fallback (the reference class). {daba_lite.DABALite.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class SlickDequeInv(_RefSlickDequeInv):
    __doc__ = f"Paper 001 Algorithm 1, pure-Python fallback (the reference class). {slickdeque.SlickDequeInv.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class SlickDequeNonInv(_RefSlickDequeNonInv):
    __doc__ = f"Paper 001 Algorithm 2, pure-Python fallback (the reference class). {slickdeque.SlickDequeNonInv.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class FlatFAT(_RefFlatFAT):
    __doc__ = f"Paper 002 §4, pure-Python fallback (the reference class). {flatfat.FlatFAT.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class ReactiveAggregator(_RefReactiveAggregator):
    __doc__ = f"Paper 002 §5, pure-Python fallback (the reference class). {reactive.ReactiveAggregator.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class FlatFIT(_RefFlatFIT):
    __doc__ = f"Papers 001 §2 and 000 §7, pure-Python fallback (the reference class). {flatfit.FlatFIT.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


from swagkit.reference import fiba as _fiba_ref  # noqa: E402

__all__ += ["FiBA", "FiBALoop"]


class FiBA(_fiba_ref.FiBA):
    __doc__ = f"Paper 003, pure-Python fallback (the reference class). {_fiba_ref.FiBA.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class FiBALoop(_fiba_ref.FiBALoop):
    __doc__ = f"Paper 003 loop baseline, pure-Python fallback (the reference class). {_fiba_ref.FiBALoop.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


# -- paper 004: time-decayed aggregates over out-of-order streams ------------------------------------------------

from swagkit.reference import qdigest as _qdigest_mod  # noqa: E402
from swagkit.reference import value_division as _value_division_mod  # noqa: E402
from swagkit.reference import window_count as _window_count_mod  # noqa: E402
from swagkit.reference import window_quantiles as _window_quantiles_mod  # noqa: E402

__all__ += ["QDigest", "SlidingWindowCount", "SlidingWindowQuantiles", "ValueDivision"]


class QDigest(_qdigest_mod.QDigest):
    __doc__ = f"Paper 004 §3.1 box, pure-Python fallback (the reference class). {_qdigest_mod.QDigest.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class SlidingWindowCount(_window_count_mod.SlidingWindowCount):
    __doc__ = f"Paper 004 §3.1, pure-Python fallback (the reference class). {_window_count_mod.SlidingWindowCount.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class SlidingWindowQuantiles(_window_quantiles_mod.SlidingWindowQuantiles):
    __doc__ = (
        "Paper 004 §3.2-3.3 and §4.1, pure-Python fallback (the reference class). "
        f"{_window_quantiles_mod.SlidingWindowQuantiles.__doc__}"
    )

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class ValueDivision(_value_division_mod.ValueDivision):
    __doc__ = f"Paper 004 §4.2, pure-Python fallback (the reference class). {_value_division_mod.ValueDivision.__doc__}"

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None
