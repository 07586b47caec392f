"""The OLMo study: AI2's model ladder as a reference (:mod:`.ladder`) and its check against OLMo-2 (:mod:`.check`).
Study code beside the generic laws: the ladder's rules and the held-out comparison with AI2's published errors.
"""
