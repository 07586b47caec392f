"""The builder of the shipped Swallow leaderboard tables (``results/swallow/``): the rule that keeps the pre-trained
models (:mod:`tools.swallow_table.rule`) and the build of one wide table per protocol
(:mod:`tools.swallow_table.build`). ``python tools/build_tables.py swallow`` runs it; densing reads the tables it writes
as the target tables of :mod:`densing.designs.swallow`."""
