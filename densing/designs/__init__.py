"""Second measurement designs: one folder each, beside the public table's leaderboard-based measurement.

A design is a folder of this package whose ``__init__`` registers a :class:`densing.registry.SecondDesign` in
:data:`densing.registry.DESIGNS`: its data readers, references, trend, command-line printer and report section live in
that folder, and nothing outside it names them. ``densing trend --design NAME`` and the report find the designs through
:func:`densing.registry.designs`, which imports every folder here; removing a folder removes its design.

- ``olmes``: the paper's two-step design on AI2's recipe (the OLMo ladder's loss law and an MC score law fitted on the
  OLMo-2 checkpoints) over AI2's OLMES table of 23 open base models (``densing trend --design olmes``);
- ``swallow``: the Swallow leaderboard in the paper's own protocol, two target tables (``densing trend --table
  swallow``, ``swallow_2026``) and the report's section of their stored records.
"""
