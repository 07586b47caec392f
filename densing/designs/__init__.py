"""The measurement designs (``public``, ``openllm_v2``, ``olmes``, ``swallow``, ``three_tables``): one folder each,
found by discovery (:func:`densing.registry.discover`); a design's ``__init__`` registers its
:class:`densing.registry.Design` and target tables, and its folder holds what it computes and reads. What a design
shows stands in the layers above: its report section in :mod:`densing.report.designs`, its terminal printing in
:mod:`densing.cli.designs`.
"""
