"""Continuous batched greedy decoding over shared few-shot prefixes: :class:`ContinuousDecoder` keeps the batch full
(Orca's iteration-level scheduling, Yu et al. 2022, OSDI) and each prefix single (as Hydragen), where fixed batches
(:mod:`.fixed`) run until their longest row stops, each row with its own copy of the few-shot block's keys/values:

1. **Groups** (:func:`.grouping.prefix_groups`): sorted requests cut where neighbours share little;
   a group's prefix keys/values are computed once at batch 1 and held once. A group of one request (lm-eval draws
   each GSM8K question its own few-shot examples, so every request there is one) shares with no one: its slot holds
   a copy of its prefix before its suffix, and such rows all read their slots in one attention run (group ``None``)
   rather than one run each (fewer, larger products: the runs are :func:`.grouping.contiguous_parts`' cut).
2. **Slots** (:mod:`.slots`, :class:`Slot`): ``rows`` slots each hold one request's own tokens. A stopped request's
   slot is refilled from the queue: the entrants' suffixes are prefilled together (right-aligned, with their true
   positions) and copied into their slots to end at the current column. Columns nobody needs are dropped by moving
   each live slot's region to the right end of a shorter span (*compaction*); when the queue is empty the buffer
   keeps only live slots (halving).
3. **Attention** (:mod:`.slots`): each row reads [its group's prefix ; its own masked columns].
4. **Drafts** (:mod:`.drafts`): each step a row proposes up to ``settings.draft`` tokens from its own history
   (the step's width: :func:`.drafts.step_width`); columns of rejected draft tokens stay in the slot, masked
   (*holes*), until compaction squeezes them out.

Rows stop where lm-eval's batch-1 ``generate`` stops them (:mod:`.generation`), with the same strings. For the models
:func:`.slots.supported` names; others take the fixed-batch path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from densing.eval.backends.prefix.drafts import NgramIndex, step_width
from densing.eval.backends.prefix.grouping import prefix_groups
from densing.eval.backends.prefix.settings import DecodeStats, PrefixSettings
from densing.eval.backends.prefix.slots import SlotCache, cache_kwargs


@dataclass
class Slot:
    """One slot's decoding state; ``request`` is ``None`` while the slot is idle."""

    request: int | None = None
    start: int = 0  # first column of its region in the slot buffer
    generated: list[int] = field(default_factory=list)
    pending: int = 0  # the token the next step feeds
    position: int = 0  # the pending token's position
    own: int = 0  # its own (unmasked) columns
    history: NgramIndex | None = None  # prompt and continuation, for drafts
    tried: int = 0  # draft tokens compared (up to the first rejected one) ...
    kept: int = 0  # ... and kept, over its request so far

    @property
    def live(self) -> bool:
        return self.request is not None

    def keep_rate(self) -> float:
        """The chance that its next draft token is kept: (kept + 1) / (compared + 2)."""
        return (self.kept + 1) / (self.tried + 2)


class ContinuousDecoder:
    """Greedy decoding of ``encoded`` (token lists) with continuous batching (see the module): ``stops(tokens)``
    says whether a row ends after its new ``tokens``; ``finish(index, tokens)`` receives them when it ends."""

    def __init__(
        self,
        model: Any,
        device: Any,
        pad: int,
        encoded: Sequence[Sequence[int]],
        rows: int,
        max_gen_toks: int,
        stops: Callable[[list[int]], bool],
        finish: Callable[[int, list[int]], None],
        settings: PrefixSettings,
    ) -> None:
        self.model, self.device, self.pad, self.encoded = model, device, pad, encoded
        self.max_gen_toks, self.stops, self.finish, self.settings = max_gen_toks, stops, finish, settings
        self.groups = prefix_groups(encoded)
        self.queue = [(g, i) for g, (members, _) in enumerate(self.groups) for i in members]
        self.queue.reverse()  # pop() takes the next one
        self.prefix_of = {g: p for g, (_, p) in enumerate(self.groups)}
        # groups of one request: each slot holds a copy of its prefix (module docstring, 1.)
        self.alone = {g for g, (members, p) in enumerate(self.groups) if len(members) == 1 and p}
        held = {g: 0 if g in self.alone else p for g, p in self.prefix_of.items()}  # prefix tokens not in the slot
        self.width = max(len(encoded[i]) - held[g] for g, i in self.queue) if self.queue else 1
        self.capacity = self.width + max_gen_toks + settings.slack + 2 + settings.draft
        rows = max(1, min(rows, len(self.queue)))
        self.layers = model.config.num_hidden_layers
        self.prefixes: list[dict] = [{} for _ in range(self.layers)]
        self.cache = self._cache(rows, self.capacity)
        self.slots = [Slot(pending=pad) for _ in range(rows)]
        self.mask = torch.zeros((rows, self.capacity), dtype=torch.bool)  # a slot's own columns
        self.length = 0  # columns in use
        self.computed: set[int] = set()  # groups whose prefix has been run
        self.stats = DecodeStats()

    def _cache(self, rows: int, capacity: int) -> SlotCache:
        return SlotCache(self.model.config, self.layers, rows, capacity, self.prefixes, self.settings.part_cost)

    def _live(self) -> list[int]:
        return [r for r, slot in enumerate(self.slots) if slot.live]

    def run(self, admit_until: float | None = None) -> DecodeStats:
        """Decode every request, return what was done; after ``admit_until`` only the first slots' fill is admitted."""
        admitted = False
        while True:
            closed = admitted and admit_until is not None and time.monotonic() >= admit_until
            rows = self.cache.rows
            free = [r for r, slot in enumerate(self.slots) if not slot.live]
            if self.queue and not closed and (len(free) >= max(1, rows // 8) or len(free) == rows):
                self._admit(free)
                admitted = True
                self._drop_prefixes()
                continue
            live = self._live()
            if not live:
                return self.stats
            if (not self.queue or closed) and len(live) <= rows // 2:
                self._keep(live)
                continue
            self._step(live)

    def _prefix(self, group: int) -> None:
        """Run ``group``'s prefix at batch 1 (once) and hold its keys/values."""
        if group in self.computed:
            return
        self.computed.add(group)
        members, size = self.groups[group]
        if size == 0:
            return
        scratch = self._cache(1, size)  # row group None: no prefix of its own
        causal = torch.tril(torch.ones((size, size), dtype=torch.bool))[None, None]
        with torch.no_grad():
            prefix = torch.tensor([list(self.encoded[members[0]][:size])], dtype=torch.long, device=self.device)
            self.model(
                input_ids=prefix,
                position_ids=torch.arange(size, device=self.device)[None],
                attention_mask=causal.to(self.device),
                **cache_kwargs(self.model, scratch),
                use_cache=True,
                logits_to_keep=1,
                densing_slots=scratch,
            )
        for layer, store in zip(scratch.layers, self.prefixes):
            store[group] = (layer.key_buffer[0].contiguous(), layer.value_buffer[0].contiguous())

    def _drop_prefixes(self) -> None:
        """Free the prefixes no live slot and not the queue's next request reads."""
        wanted = {self.cache.row_group[r] for r in self._live()}
        if self.queue:
            wanted.add(self.queue[-1][0])
        for store in self.prefixes:
            for name in [g for g in store if g not in wanted]:
                del store[name]

    def _compact(self, end: int) -> None:
        """Move each live row's own columns (holes squeezed out) to end at column ``end``."""
        live = self._live()
        columns = {
            r: self.mask[r, self.slots[r].start : self.length].nonzero().squeeze(1) + self.slots[r].start for r in live
        }
        for layer in self.cache.layers:
            if layer.key_buffer is None:
                continue
            for buffer in (layer.key_buffer, layer.value_buffer):
                for r in live:
                    buffer[r, :, end - self.slots[r].own : end] = buffer[r, :, columns[r]]  # a gather: a copy
        self.mask[:] = False
        for r in live:
            slot = self.slots[r]
            slot.start = end - slot.own
            self.mask[r, slot.start : end] = True
        self.length = end

    def _keep(self, live: list[int]) -> None:
        """Keep only the live slots (the queue is empty or closed and half the slots are idle)."""
        self.cache.select(live)
        self.slots = [self.slots[r] for r in live]
        self.mask = self.mask[torch.tensor(live)]
        self._drop_prefixes()

    def _end(self, slot: Slot) -> None:
        self.finish(slot.request, slot.generated)
        slot.request, slot.generated = None, []

    def _admit(self, free: list[int]) -> None:
        """Prefill the next queued requests' suffixes together and move them into the ``free`` slots."""
        entrants = []
        while self.queue and len(entrants) < len(free):
            entrants.append(self.queue.pop())
        for group, _ in entrants:
            self._prefix(group)
        suffixes = [list(self.encoded[i][self.prefix_of[g] :]) for g, i in entrants]
        span = max(len(s) for s in suffixes)
        need = max(len(s) + (g in self.alone) * self.prefix_of[g] for (g, _), s in zip(entrants, suffixes))
        if self.length < need:
            self._compact(need)
        k = len(entrants)
        scratch = self._cache(k, span)
        scratch.row_group = [g for g, _ in entrants]
        input_ids = torch.full((k, span), self.pad, dtype=torch.long)
        positions = torch.zeros((k, span), dtype=torch.long)
        allowed = torch.zeros((k, 1, span, span), dtype=torch.bool)
        causal = torch.tril(torch.ones((span, span), dtype=torch.bool))
        for j, ((group, _), suffix) in enumerate(zip(entrants, suffixes)):
            gap = span - len(suffix)
            input_ids[j, gap:] = torch.tensor(suffix)
            positions[j, gap:] = torch.arange(self.prefix_of[group], self.prefix_of[group] + len(suffix))
            allowed[j, 0, gap:, gap:] = causal[gap:, gap:]
            allowed[j, 0] |= torch.eye(span, dtype=torch.bool)  # padding attends to itself (no NaN)
        with torch.no_grad():
            output = self.model(
                input_ids=input_ids.to(self.device),
                position_ids=positions.to(self.device),
                attention_mask=allowed.to(self.device),
                **cache_kwargs(self.model, scratch),
                use_cache=True,
                logits_to_keep=1,
                densing_slots=scratch,
            )
        chosen = output.logits[:, -1, :].float().argmax(dim=-1).tolist()
        length = self.length
        for j, ((group, index), suffix) in enumerate(zip(entrants, suffixes)):
            r, token = free[j], chosen[j]
            copied = self.prefix_of[group] if group in self.alone else 0  # its prefix, before its suffix
            for mine, theirs, prefixes in zip(self.cache.layers, scratch.layers, self.prefixes):
                mine.allocate(theirs.key_buffer)  # first admission: like the model's own keys
                mine.key_buffer[r, :, length - span : length] = theirs.key_buffer[j]
                mine.value_buffer[r, :, length - span : length] = theirs.value_buffer[j]
                if copied:
                    before = slice(length - len(suffix) - copied, length - len(suffix))
                    mine.key_buffer[r, :, before], mine.value_buffer[r, :, before] = prefixes[group]
            self.cache.row_group[r] = None if copied else group
            self.slots[r] = slot = Slot(
                request=index,
                start=length - len(suffix) - copied,
                generated=[token],
                pending=token,
                position=self.prefix_of[group] + len(suffix),
                own=len(suffix) + copied,
            )
            if self.settings.draft:
                slot.history = NgramIndex([*self.encoded[index], token], self.settings.ngram)
            self.mask[r] = False
            self.mask[r, slot.start : length] = True
            self.stats.generated_tokens += 1
            if self.stops(slot.generated):
                self._end(slot)

    def _step(self, live: list[int]) -> None:
        """One decoding step of every slot: the pending token and the drafts the step width allows."""
        slots, cache, settings = self.slots, self.cache, self.settings
        drafts = [
            slot.history.draft(min(settings.draft, self.max_gen_toks - len(slot.generated) - 1))
            if slot.live and slot.history is not None
            else []
            for slot in slots
        ]
        q = step_width([drafts[r] for r in live], [slots[r].keep_rate() for r in live], settings.step_base)
        drafts = [d[: q - 1] for d in drafts]
        longest = max(slots[r].own for r in live)
        if self.length + q > self.capacity or self.length - max(longest, self.width) > settings.slack:
            self._compact(max(longest, self.width))
        length = self.length
        for r, slot in enumerate(slots):
            if not slot.live:  # an idle slot reads its own columns only, and a live neighbour's group
                cache.row_group[r] = cache.row_group[r - 1] if r else cache.row_group[live[0]]
                self.mask[r] = False
        allowed = self.mask[:, None, None, : length + q].expand(cache.rows, 1, q, length + q).clone()
        allowed[:, 0, :, length:] = torch.tril(torch.ones((q, q), dtype=torch.bool))  # the step's own tokens, causally
        cache.write_at = length
        cache.plan([length + q - slot.start if slot.live else q for slot in slots])
        inputs = [[slot.pending, *d] + [self.pad] * (q - 1 - len(d)) for slot, d in zip(slots, drafts)]
        positions = torch.tensor([slot.position for slot in slots], dtype=torch.long)[:, None] + torch.arange(q)
        with torch.no_grad():
            output = self.model(
                input_ids=torch.tensor(inputs, dtype=torch.long, device=self.device),
                position_ids=positions.to(self.device),
                attention_mask=allowed.to(self.device),
                **cache_kwargs(self.model, cache),
                use_cache=True,
                logits_to_keep=q,
                densing_slots=cache,
            )
        chosen = output.logits.float().argmax(dim=-1).tolist()
        self.stats.decode_steps += 1
        for r in live:
            slot, mine, accepted = slots[r], drafts[r], 0
            while accepted < len(mine) and chosen[r][accepted] == mine[accepted]:
                accepted += 1  # the model's greedy token after the pending one (and the accepted drafts) is the draft's
            self.mask[r, length : length + accepted + 1] = (
                True  # keys/values of the pending token and the accepted drafts
            )
            slot.own += accepted + 1
            slot.position += accepted + 1
            self.stats.draft_accepted += accepted
            self.stats.draft_proposed += len(mine)
            slot.tried += accepted + (accepted < len(mine))  # a geometric run: kept tokens, then one rejected
            slot.kept += accepted
            for token in mine[:accepted] + [chosen[r][accepted]]:
                slot.generated.append(token)
                slot.pending = token
                self.stats.generated_tokens += 1
                if slot.history is not None:
                    slot.history.append(token)
                if self.stops(slot.generated):
                    self._end(slot)
                    break
        self.length = length + q
