"""Whether debug mode is asked for: the ``SWAGKIT_CHECK`` environment variable.

With debug mode on, the factories (:func:`swagkit.optimized.create`, :func:`swagkit.verify.registry.create`) return
each aggregator wrapped in its kind's debug wrapper, which checks every operation against this specification. The
switch lives here, not in either factory, because both read it and this layer is the one both import without
loading the compiled extensions or the verification machinery.
"""

from __future__ import annotations

import os

__all__ = ["ENV_VAR", "check_enabled"]

#: Environment variable that turns debug mode on for aggregators built by the factories.
ENV_VAR = "SWAGKIT_CHECK"


def check_enabled() -> bool:
    """Whether ``SWAGKIT_CHECK`` asks for debug mode (any value except empty, ``0``, ``false``, ``no``, ``off``)."""
    return os.environ.get(ENV_VAR, "").strip().lower() not in ("", "0", "false", "no", "off")
