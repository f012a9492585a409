"""``swagkit engines``: the window engines people run (SQLite, DuckDB, DataFusion, Polars, pandas, Spark SQL, and
swagkit's own fast paths) checked against swagkit's exact oracle, with minimal standalone repros (issue 24).

:mod:`.model` is the case every adapter renders; :mod:`.engine` what an adapter is.
"""
