"""N-gram drafts for greedy decoding and the number of query columns a drafted step reads. Pure Python, no torch.

Prompt-lookup decoding (Saxena 2023, github.com/apoorvumang/prompt-lookup-decoding; the n-gram drafts of Fu et al.
2024, arXiv 2402.02057): a row proposes the tokens that followed the latest earlier occurrence of its last ``n … 1``
tokens in its own prompt and continuation (:class:`NgramIndex`). A step feeds ``[pending token ; draft]`` and keeps
the longest draft prefix equal to the model's greedy choices plus the model's next token: greedy decoding's tokens,
several per step where the text repeats itself; it reads :func:`step_width` query columns in every slot.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


class NgramIndex:
    """A row's history (prompt and continuation) and its drafts: ``draft(k)`` is the ``k`` tokens that followed the
    latest earlier occurrence of the longest of the history's last ``longest`` … 1 tokens (``[]``: none)."""

    def __init__(self, tokens: Sequence[int], longest: int) -> None:
        self.tokens: list[int] = []
        self.longest = longest
        self.latest: dict[tuple[int, ...], int] = {}
        for token in tokens:
            self.append(token)

    def append(self, token: int) -> None:
        end = len(self.tokens)
        for n in range(1, min(self.longest, end) + 1):
            self.latest[tuple(self.tokens[end - n : end])] = end
        self.tokens.append(token)

    def draft(self, k: int) -> list[int]:
        end = len(self.tokens)
        for n in range(min(self.longest, end) if k > 0 else 0, 0, -1):
            found = self.latest.get(tuple(self.tokens[end - n :]))
            if found is not None:
                return self.tokens[found : found + k]
        return []


def step_width(drafts: Sequence[Sequence[int]], rates: Sequence[float], base: float) -> int:
    """The query columns ``q`` of a drafted step (the pending token and up to ``q − 1`` draft tokens
    per row) that maximise the expected new tokens per modelled cost:

        E(q) = Σ_r (1 + Σ_{j=1}^{min(m_r, q−1)} p_r^j),   cost(q) ∝ base + q

    ``m_r`` the length of row ``r``'s draft (``drafts``, live rows only), ``p_r`` (``rates``) the chance that each next
    draft token is kept (geometric: a token is kept only if all before it were), ``base``
    (:attr:`PrefixSettings.step_base <.settings.PrefixSettings>`) the per-slot cost of a step that does not grow with
    its columns (weights' and keys' reads, kernel launches), in units of one query column; every slot pays it, live or
    not, so the number of slots does not change the choice. The first maximum wins (fewer columns on a tie)."""
    longest = max((len(d) for d in drafts), default=0)
    best_q, best = 1, len(drafts) / (base + 1)
    expected = float(len(drafts))
    for q in range(2, longest + 2):
        expected += sum(p ** (q - 1) for d, p in zip(drafts, rates) if len(d) >= q - 1)
        value = expected / (base + q) if math.isfinite(base) else expected  # base ∞: columns are free
        if value > best:
            best_q, best = q, value
    return best_q
