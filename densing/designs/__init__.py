"""The measurement designs: one folder each, found by discovery (:func:`densing.registry.discover`).

A design is a folder of this package whose ``__init__`` registers a :class:`densing.registry.Design` in
:data:`densing.registry.DESIGNS`, and its target tables in :data:`densing.registry.TABLES`: its data readers,
references, trend, command-line printer and report section live in that folder, and nothing outside it names them.
``densing trend``, ``--design NAME``, ``--table NAME`` and the report find the designs through the registries, which
import every folder here before their first read; removing a folder removes its design and its tables.

- ``public``: the public table (ObsScaling's open base models, Open LLM Leaderboard v1 and v2 scores), the table that
  leads: the headline's;
- ``openllm_v2``: the Open LLM Leaderboard v2's official base models, a second target table (``densing trend --table
  openllm_v2``);
- ``olmes``: the paper's two-step design on AI2's recipe (the OLMo ladder's loss law and an MC score law fitted on the
  OLMo-2 checkpoints) over AI2's OLMES table of 23 open base models (``densing trend --design olmes``);
- ``swallow``: the Swallow leaderboard in the paper's own protocol, two target tables (``densing trend --table
  swallow``, ``swallow_2026``) and the report's section of their stored records.
"""
