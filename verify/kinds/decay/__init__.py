"""The parts paper 004's two kinds share (:mod:`..sketch`, :mod:`..time_decayed`): debug wrappers checked
against an exact oracle (:mod:`.debug`), state machines (:mod:`.machine`), differential and merge runs
(:mod:`.spark`), and the capabilities they read off a structure (:mod:`.common`)."""
