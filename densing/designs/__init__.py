"""The measurement designs (``public``, ``openllm_v2``, ``olmes``, ``swallow``): one folder each, found by discovery
(:func:`densing.registry.discover`).

A design's ``__init__`` registers a :class:`densing.registry.Design` in :data:`densing.registry.DESIGNS` and its
target tables in :data:`densing.registry.TABLES`; its readers, references, trend, printer and report section live in
its folder, and nothing outside it names them: removing a folder removes its design and its tables.
"""
