"""The OLMo study: AI2's model ladder as a reference (:mod:`.ladder`) and its check against OLMo-2 (:mod:`.check`).

Study code, apart from the generic laws: the ladder's rules (which points each step is fitted
on, E per task, one floor) and the held-out comparison with AI2's published errors.
"""
