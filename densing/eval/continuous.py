"""Continuous batched greedy decoding over shared few-shot prefixes (cascade attention).

:func:`densing.eval.generation.generate_greedy` decodes fixed batches: a batch runs until its
longest row stops, so one row that never meets a stop string (BBH allows 1,024 new tokens) keeps
the batch going at one or two live rows for hundreds of steps, and every row carries its own
copy of the few-shot block's keys/values through attention. Measured on SmolLM2-135M with 32 BBH
requests: 6,378 tokens in 1,024 steps, 6.2 live rows per step on average. This module keeps the
batch full and the prefix single:

1. **Groups.** Requests sorted by their tokens are cut where two neighbours share less than half
   of the shorter one (BBH: one group per task, GSM8K: one group); a group's *prefix* is the
   prefix all its requests share (at most the shortest one's length − 1). Its keys/values are
   computed once at batch 1 and held once: ``[kv_heads, P, head_dim]`` per layer.
2. **Slots.** ``rows`` slots each hold one request's own tokens (its suffix after the prefix, then
   its new tokens) in a per-slot region of a preallocated buffer. All slots write a step's token at
   the same column; a slot's own columns are marked in a boolean mask. When a request stops, its
   slot is refilled from the queue (the next request of this group, or of the next group): the
   entrants' suffixes are prefilled together (right-aligned, causal, with their true positions) and
   copied into their slots so that they end at the current column. Columns nobody needs any more
   are dropped by moving each live slot's region to the right end of a shorter span
   (*compaction*); when the queue is empty the buffer keeps only live slots (halving).
3. **Attention** (:func:`shared_prefix_attention`, registered with transformers'
   ``AttentionInterface`` and used only inside :func:`generate_continuous`): for each row, softmax
   over [its group's prefix keys ; its own masked columns], computed as two matmuls and one joint
   softmax (the "cascade" split of FlashInfer / Hydragen): the prefix keys are read once for all
   rows of a group instead of once per row.

4. **Drafts** (prompt-lookup decoding, Saxena 2023, github.com/apoorvumang/prompt-lookup-decoding; the
   n-gram drafts of Fu et al. 2024, "Break the Sequential Dependency of LLM Inference Using
   Lookahead Decoding", arXiv 2402.02057): each step a row proposes up to :data:`DRAFT` tokens, the
   ones that followed the latest earlier occurrence of its last 4 … 1 tokens in its own prompt and
   continuation (:class:`NgramIndex`). The step feeds ``[pending token ; draft]`` (padded to the
   step's longest draft), and keeps the longest draft prefix equal to the model's own greedy
   choices plus the model's next token: greedy decoding's tokens, several per step when the text
   repeats itself. On BBH, SmolLM2-135M runs to 1,024 tokens on 38% of the requests (over 90% on
   five of its 27 tasks; ``bench/bbh_per_task.py --models``), mostly repeating its own lines.
   Columns of rejected draft tokens stay in the slot, masked (*holes*), until compaction squeezes
   them out. Draft tokens are not free: every slot computes every query
   column of the step, so the step reads :func:`step_width` columns, the number that maximises
   the expected new tokens per modelled cost given each row's draft and keep rate so far.

Rows stop exactly where lm-eval's batch-1 ``generate`` stops them (the rule and the strings are
:mod:`densing.eval.generation`'s). The arithmetic differs from lm-eval's in float rounding only;
``tests/eval/test_generation.py`` checks the strings are identical (toy Llama over
hypothesis-generated prompt sets, SmolLM2 on GSM8K and BBH requests). Used for decoder models
whose attention goes through transformers' attention interface without a sliding window
(:data:`SUPPORTED`); others take the fixed-batch path.
"""
from __future__ import annotations

import math
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

import torch
from transformers.cache_utils import DynamicCache, DynamicLayer

from densing.eval.token_prefixes import shared_prefix_length

#: model types whose attention module calls ``ALL_ATTENTION_FUNCTIONS`` with (query, key, value, mask)
SUPPORTED = frozenset({"llama", "mistral", "qwen2", "qwen3", "olmo", "olmo2"})
#: the name :func:`shared_prefix_attention` is registered under
ATTENTION_NAME = "densing_shared_prefix"
#: columns a slot region may waste before the buffer is compacted
SLACK = 128
#: the fixed cost of one more attention run in row-columns (:func:`contiguous_parts`)
PART_COST = 1024
#: draft tokens a row may propose per decoding step (0: one token per step, no drafts)
DRAFT = 4
#: the longest n-gram :class:`NgramIndex` matches
NGRAM = 4
#: a decoding step's cost per slot that does not grow with its query columns, in units of one query
#: column (:func:`step_width`), measured by ``bench/decode_step_drafts.py`` beside BBH shards: 1.48, and
#: 0.90 [0.49–1.28] round by round in a second run; an idle machine gives more (~4.8). The choice barely
#: matters: bench/bbh_cache_recheck.results.txt, round 3)
STEP_BASE = 1.5


def supported(model: Any) -> bool:
    """Whether :func:`generate_continuous` can decode ``model``."""
    config = getattr(model, "config", None)
    return (
        config is not None
        and getattr(config, "model_type", None) in SUPPORTED
        and getattr(config, "sliding_window", None) is None
        and not getattr(config, "is_encoder_decoder", False)
    )


def prefix_groups(encoded: Sequence[Sequence[int]]) -> list[tuple[list[int], int]]:
    """``[(request indices in token order, prefix length)]``: sorted requests cut where two
    neighbours share fewer than half the shorter one's tokens; the prefix is what the whole
    group shares, capped one token short of its shortest request."""
    order = sorted(range(len(encoded)), key=lambda i: list(encoded[i]))
    groups: list[tuple[list[int], int]] = []
    members: list[int] = []
    shared = 0
    for i in order:
        if members:
            common = shared_prefix_length(encoded[members[-1]], encoded[i])
            if common >= 1 and 2 * common >= min(len(encoded[members[-1]]), len(encoded[i])):
                members.append(i)
                shared = min(shared, common)
                continue
            groups.append((members, shared))
        members, shared = [i], len(encoded[i])
    if members:
        groups.append((members, shared))
    return [(m, max(0, min(p, min(len(encoded[i]) for i in m) - 1))) for m, p in groups]


def contiguous_parts(widths: Sequence[int], groups: Sequence[Any], part_cost: int | None = None) -> list[tuple[int, int, int]]:
    """``[(start, stop, width)]``: the rows ``0 … len(widths)−1`` cut into runs of one group each,
    ``width`` the largest of the run's widths, minimising ``Σ (stop − start)·width + part_cost`` over
    all such cuts (dynamic programming over the cut points, O(rows²); ``part_cost`` defaults to
    :data:`PART_COST`). A run's rows read the last ``width`` columns of their slots, so one row
    that has decoded 1,000 tokens costs its own run 1,000 columns and not every row's; runs are
    slices of the slot buffer (no copies), and ``part_cost`` prices the fixed work of one more run
    (its prefix read, a dozen small kernels per layer) in row-columns."""
    cost = PART_COST if part_cost is None else part_cost
    n = len(widths)
    best = [0] * (n + 1)
    cut = [0] * (n + 1)
    for stop in range(1, n + 1):
        best[stop], widest = -1, 0
        for start in range(stop - 1, -1, -1):
            if groups[start] != groups[stop - 1]:
                break
            widest = max(widest, int(widths[start]))
            candidate = best[start] + (stop - start) * widest + cost
            if best[stop] < 0 or candidate < best[stop]:
                best[stop], cut[stop] = candidate, start
    parts = []
    stop = n
    while stop > 0:
        start = cut[stop]
        parts.append((start, stop, max(int(w) for w in widths[start:stop])))
        stop = start
    return parts[::-1]


class NgramIndex:
    """A row's history (prompt and continuation) and its drafts: ``draft(k)`` is the ``k`` tokens
    that followed the latest earlier occurrence of the longest of the history's last ``longest`` …
    1 tokens (prompt-lookup decoding), ``[]`` when even the last token never occurred before. Each
    n-gram maps to the end of its latest occurrence that is not the history's own end."""

    def __init__(self, tokens: Sequence[int], longest: int = NGRAM) -> None:
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
        if k <= 0:
            return []
        for n in range(min(self.longest, end), 0, -1):
            found = self.latest.get(tuple(self.tokens[end - n :]))
            if found is not None:
                return self.tokens[found : found + k]
        return []


def step_width(drafts: Sequence[Sequence[int]], rates: Sequence[float], base: float | None = None) -> int:
    """The query columns ``q`` of a drafted step (the pending token and up to ``q − 1`` draft tokens
    per row) that maximise the expected new tokens per modelled cost:

        E(q) = Σ_r (1 + Σ_{j=1}^{min(m_r, q−1)} p_r^j),   cost(q) ∝ base + q

    ``m_r`` the length of row ``r``'s draft (``drafts``, live rows only), ``p_r`` (``rates``) the
    chance that each next draft token is kept (geometric: a token is kept only if all before it
    were), ``base`` (default :data:`STEP_BASE`) the per-slot cost of a step that does not grow with
    its columns (weights' and keys' reads, kernel launches), in units of one query column; every slot
    pays it, live or not, so the number of slots does not change the choice. The first maximum wins
    (fewer columns on a tie)."""
    base = STEP_BASE if base is None else base
    longest = max((len(d) for d in drafts), default=0)
    best_q, best = 1, len(drafts) / (base + 1)
    expected = float(len(drafts))
    for q in range(2, longest + 2):
        expected += sum(p ** (q - 1) for d, p in zip(drafts, rates) if len(d) >= q - 1)
        value = expected / (base + q) if math.isfinite(base) else expected  # base ∞: columns are free
        if value > best:
            best_q, best = q, value
    return best_q


class SlotLayer(DynamicLayer):
    """One layer's keys/values: group prefixes held once, per-slot regions in one buffer written at
    the owning cache's ``write_at`` column."""

    def __init__(self, owner: "SlotCache", prefixes: dict) -> None:
        super().__init__()
        self.owner, self.prefixes = owner, prefixes
        self.key_buffer = self.value_buffer = None

    def allocate(self, like: torch.Tensor) -> None:
        """The slot buffers, once: ``[rows, kv_heads, capacity, head_dim]`` of ``like``'s dtype and device."""
        if self.key_buffer is None:
            shape = (self.owner.rows, like.shape[1], self.owner.capacity, like.shape[-1])
            self.key_buffer, self.value_buffer = like.new_zeros(shape), like.new_zeros(shape)
            self.dtype, self.device, self.is_initialized = like.dtype, like.device, True

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any):
        self.allocate(key_states)
        start, stop = self.owner.write_at, self.owner.write_at + key_states.shape[2]
        self.key_buffer[:, :, start:stop] = key_states
        self.value_buffer[:, :, start:stop] = value_states
        self.keys, self.values = self.key_buffer[:, :, :stop], self.value_buffer[:, :, :stop]
        return self.keys, self.values

    def get_seq_length(self) -> int:
        return self.owner.write_at


class SlotCache(DynamicCache):
    """The cache :func:`shared_prefix_attention` reads: ``rows`` slot regions of ``capacity``
    columns per layer, the group prefixes (shared with other caches of the same decode), and each
    row's group (``row_group``)."""

    def __init__(self, config: Any, layers: int, rows: int, capacity: int, prefixes: list[dict]) -> None:
        super().__init__(config=config)
        self.rows, self.capacity, self.write_at = rows, capacity, 0
        self.row_group = [None] * rows
        self.parts: list | None = None  # set by plan() before each decoding step
        self.layers = [SlotLayer(self, prefixes[i]) for i in range(layers)]

    def groups_of_rows(self) -> list[tuple[Any, Any]]:
        """``[(group, rows)]``, rows a slice when all rows belong to one group, else an index tensor."""
        present = dict.fromkeys(self.row_group)
        if len(present) == 1:
            return [(next(iter(present)), slice(None))]
        return [(g, torch.tensor([r for r, h in enumerate(self.row_group) if h == g])) for g in present]

    def plan(self, widths: Sequence[int] | None) -> None:
        """Set the rows' own-column widths for the next forward: row ``r``'s allowed columns are among
        the last ``widths[r]`` (decoding: its region ends at the write column), and the rows are read
        in the runs of :func:`contiguous_parts`. ``None``: one part per group over all columns."""
        if widths is None:
            self.parts = None
            return
        self.parts = [
            (self.row_group[start], slice(start, stop), width)
            for start, stop, width in contiguous_parts(widths, self.row_group)
        ]

    def parts_of_rows(self) -> list[tuple[Any, Any, int | None]]:
        """``[(group, rows, width)]`` for :func:`shared_prefix_attention`: the plan's, else one part per
        group over all columns (width ``None``)."""
        if self.parts is not None:
            return self.parts
        return [(g, chosen, None) for g, chosen in self.groups_of_rows()]

    def select(self, rows: list[int]) -> None:
        """Keep these rows only (in this order)."""
        index = torch.tensor(rows, dtype=torch.long)
        for layer in self.layers:
            if layer.key_buffer is not None:
                layer.key_buffer = layer.key_buffer[index.to(layer.key_buffer.device)]
                layer.value_buffer = layer.value_buffer[index.to(layer.value_buffer.device)]
        self.row_group = [self.row_group[r] for r in rows]
        self.rows = len(rows)
        self.parts = None


def shared_prefix_attention(
    module: torch.nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
    attention_mask: torch.Tensor, scaling: float | None = None, dropout: float = 0.0,
    densing_slots: SlotCache | None = None, **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Attention of each row over [its group's prefix ; its own columns]:
    ``softmax([q·Kpᵀ, q·Krᵀ + mask]·s) · [Vp ; Vr]`` with ``s = scaling`` (1/√d by default),
    ``Kp, Vp`` the group prefix's keys/values (one copy for all rows of the group), ``Kr, Vr`` the
    row's slot columns, ``mask`` the boolean ``attention_mask`` ``[rows, 1, q, columns]`` (False →
    −∞). Query head ``i`` reads key/value head ``i // (heads / kv_heads)`` (grouped-query). Rows are
    taken in the parts of ``densing_slots.parts_of_rows()``: a run of one group's rows whose own
    columns all lie in the last ``width`` columns (:meth:`SlotCache.plan`) reads only those, so a row
    that has decoded 1,000 tokens does not make every other row read 1,000 columns. Returns ``[rows, q, heads, head_dim]`` as transformers' attention functions do."""
    if densing_slots is None:
        raise RuntimeError("shared_prefix_attention is only used inside densing's continuous decoding")
    rows, heads, q, dim = query.shape
    kv_heads, columns = key.shape[1], key.shape[2]
    group = heads // kv_heads
    scale = scaling if scaling is not None else 1.0 / math.sqrt(dim)
    grouped = query.reshape(rows, kv_heads, group * q, dim)
    out = torch.empty_like(grouped)
    prefixes = densing_slots.layers[module.layer_idx].prefixes
    for name, chosen, width in densing_slots.parts_of_rows():
        first = 0 if width is None else columns - width  # the part's rows read their last `width` columns only
        queries = grouped[chosen]
        n = queries.shape[0]
        keys, values = key[chosen, :, first:], value[chosen, :, first:]
        allowed = attention_mask[chosen, :, :, first:]
        allowed = allowed[:, :, None].expand(n, 1, group, q, columns - first).reshape(n, 1, group * q, columns - first)
        own = (torch.matmul(queries, keys.transpose(-1, -2)) * scale).masked_fill(~allowed, float("-inf"))
        prefix = prefixes.get(name)
        if prefix is None:
            out[chosen] = torch.matmul(torch.softmax(own, dim=-1), values)
            continue
        prefix_keys, prefix_values = prefix  # [kv_heads, P, dim]
        flat = queries.transpose(0, 1).reshape(kv_heads, n * group * q, dim)
        shared = (torch.matmul(flat, prefix_keys.transpose(-1, -2)) * scale)  # [kv_heads, n·g·q, P]
        top = torch.maximum(
            shared.amax(dim=-1).reshape(kv_heads, n, group * q).transpose(0, 1)[..., None], own.amax(dim=-1, keepdim=True)
        )
        shared_exp = torch.exp(shared - top.transpose(0, 1).reshape(kv_heads, n * group * q, 1))
        own_exp = torch.exp(own - top)
        total = shared_exp.sum(dim=-1).reshape(kv_heads, n, group * q).transpose(0, 1)[..., None] + own_exp.sum(
            dim=-1, keepdim=True
        )
        mixed = torch.matmul(shared_exp, prefix_values).reshape(kv_heads, n, group * q, dim).transpose(0, 1)
        out[chosen] = (mixed + torch.matmul(own_exp, values)) / total
    return out.reshape(rows, heads, q, dim).transpose(1, 2).contiguous(), None


@contextmanager
def attention_swapped(model: Any) -> Iterator[None]:
    """Run ``model`` with :func:`shared_prefix_attention` (restores its attention afterwards)."""
    from transformers import AttentionInterface

    AttentionInterface.register(ATTENTION_NAME, shared_prefix_attention)
    configs = {id(c): c for c in (model.config, getattr(getattr(model, "model", None), "config", None)) if c is not None}
    before = {key: c._attn_implementation for key, c in configs.items()}
    try:
        for c in configs.values():
            c._attn_implementation = ATTENTION_NAME
        yield
    finally:
        for key, c in configs.items():
            c._attn_implementation = before[key]


def generate_continuous(
    lm: Any,
    encoded: Sequence[Sequence[int]],
    rows: int,
    max_gen_toks: int,
    stops: Callable[[list[int]], bool],
    finish: Callable[[int, list[int]], None],
    admit_until: float | None = None,
    draft: int | None = None,
) -> None:
    """Greedy-decode every request of ``encoded`` (token lists) with continuous batching over
    shared prefixes (see the module). ``stops(tokens)`` says whether a row ends after its new
    ``tokens``; ``finish(index, tokens)`` receives each request's new tokens when it ends. With
    ``admit_until`` (a ``time.monotonic()`` instant) no request is admitted after it, except the
    first slots' fill: the rows in flight finish and the rest are left undone (never ``finish``ed).
    ``draft``: draft tokens per row and step (default :data:`DRAFT`; 0 decodes one token per step).
    Counts ``lm.generated_tokens``, ``lm.decode_steps``, ``lm.draft_proposed`` (draft tokens read)
    and ``lm.draft_accepted`` (kept). Each step reads :func:`step_width` columns, with each row's
    keep rate estimated as (kept + 1) / (compared + 2) over its request so far."""
    draft = DRAFT if draft is None else draft
    model, device = lm.model, lm.device
    groups = prefix_groups(encoded)
    queue = [(g, i) for g, (members, _) in enumerate(groups) for i in members]
    queue.reverse()  # pop() takes the next one
    prefix_of = {g: p for g, (_, p) in enumerate(groups)}
    width = max(len(encoded[i]) - prefix_of[g] for g, i in queue) if queue else 1
    capacity = width + max_gen_toks + SLACK + 2 + draft
    rows = max(1, min(rows, len(queue)))
    layers = model.config.num_hidden_layers
    prefixes: list[dict] = [{} for _ in range(layers)]
    cache = SlotCache(model.config, layers, rows, capacity, prefixes)
    pad = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0

    slot_request: list[int | None] = [None] * rows
    slot_start = [0] * rows
    generated: list[list[int]] = [[] for _ in range(rows)]
    pending = [pad] * rows
    next_position = [0] * rows
    own = [0] * rows  # a row's own (unmasked) columns
    history: list[NgramIndex | None] = [None] * rows
    tried, kept = [0] * rows, [0] * rows  # a row's draft tokens compared (up to the first rejected one) and kept
    lm.decode_steps = lm.draft_accepted = lm.draft_proposed = 0
    mask = torch.zeros((rows, capacity), dtype=torch.bool)
    length = 0
    computed: set[int] = set()

    def prefix_cache(group: int) -> None:
        if group in computed:
            return
        computed.add(group)
        members, size = groups[group]
        if size == 0:
            return
        scratch = SlotCache(model.config, layers, 1, size, prefixes)  # row group None: no prefix of its own
        causal = torch.tril(torch.ones((size, size), dtype=torch.bool))[None, None]
        with torch.no_grad():
            model(
                input_ids=torch.tensor([list(encoded[members[0]][:size])], dtype=torch.long, device=device),
                position_ids=torch.arange(size, device=device)[None], attention_mask=causal.to(device),
                past_key_values=scratch, use_cache=True, logits_to_keep=1, densing_slots=scratch,
            )
        for layer, store in zip(scratch.layers, prefixes):
            store[group] = (layer.key_buffer[0].contiguous(), layer.value_buffer[0].contiguous())

    def drop_prefixes() -> None:
        wanted = {cache.row_group[r] for r in range(cache.rows) if slot_request[r] is not None}
        if queue:
            wanted.add(queue[-1][0])
        for store in prefixes:
            for name in [g for g in store if g not in wanted]:
                del store[name]

    def compact(end: int) -> None:
        """Move each live row's own columns (holes squeezed out) to end at column ``end``."""
        nonlocal length
        live = [r for r in range(cache.rows) if slot_request[r] is not None]
        columns = {r: mask[r, slot_start[r] : length].nonzero().squeeze(1) + slot_start[r] for r in live}
        for layer in cache.layers:
            if layer.key_buffer is None:
                continue
            for buffer in (layer.key_buffer, layer.value_buffer):
                for r in live:
                    buffer[r, :, end - own[r] : end] = buffer[r, :, columns[r]]  # a gather: a copy
        mask[:] = False
        for r in live:
            slot_start[r] = end - own[r]
            mask[r, slot_start[r] : end] = True
        length = end

    def end_row(r: int) -> None:
        finish(slot_request[r], generated[r])
        slot_request[r] = None
        generated[r] = []

    def admit(free: list[int]) -> None:
        entrants = []
        while queue and len(entrants) < len(free):
            entrants.append(queue.pop())
        for group, _ in entrants:
            prefix_cache(group)
        suffixes = [list(encoded[i][prefix_of[g] :]) for g, i in entrants]
        span = max(len(s) for s in suffixes)
        if length < span:
            compact(span)
        k = len(entrants)
        scratch = SlotCache(model.config, layers, k, span, prefixes)
        scratch.row_group = [g for g, _ in entrants]
        input_ids = torch.full((k, span), pad, dtype=torch.long)
        positions = torch.zeros((k, span), dtype=torch.long)
        allowed = torch.zeros((k, 1, span, span), dtype=torch.bool)
        causal = torch.tril(torch.ones((span, span), dtype=torch.bool))
        for j, ((group, _), suffix) in enumerate(zip(entrants, suffixes)):
            gap = span - len(suffix)
            input_ids[j, gap:] = torch.tensor(suffix)
            positions[j, gap:] = torch.arange(prefix_of[group], prefix_of[group] + len(suffix))
            allowed[j, 0, gap:, gap:] = causal[gap:, gap:]
            allowed[j, 0] |= torch.eye(span, dtype=torch.bool)  # padding attends to itself (no NaN)
        with torch.no_grad():
            output = model(
                input_ids=input_ids.to(device), position_ids=positions.to(device),
                attention_mask=allowed.to(device), past_key_values=scratch, use_cache=True, logits_to_keep=1,
                densing_slots=scratch,
            )
        chosen = output.logits[:, -1, :].float().argmax(dim=-1).tolist()
        for j, ((group, index), suffix) in enumerate(zip(entrants, suffixes)):
            r = free[j]
            for mine, theirs in zip(cache.layers, scratch.layers):
                mine.allocate(theirs.key_buffer)  # first admission: like the model's own keys
                mine.key_buffer[r, :, length - span : length] = theirs.key_buffer[j]
                mine.value_buffer[r, :, length - span : length] = theirs.value_buffer[j]
            slot_request[r], cache.row_group[r] = index, group
            slot_start[r] = length - len(suffix)
            mask[r] = False
            mask[r, slot_start[r] : length] = True
            generated[r] = [chosen[j]]
            pending[r] = chosen[j]
            next_position[r] = prefix_of[group] + len(suffix)
            own[r] = len(suffix)
            history[r] = NgramIndex([*encoded[index], chosen[j]]) if draft else None
            tried[r] = kept[r] = 0
            lm.generated_tokens += 1
            if stops(generated[r]):
                end_row(r)

    admitted = False
    while True:
        closed = admitted and admit_until is not None and time.monotonic() >= admit_until
        free = [r for r in range(cache.rows) if slot_request[r] is None]
        if queue and not closed and (len(free) >= max(1, cache.rows // 8) or len(free) == cache.rows):
            admit(free)
            admitted = True
            drop_prefixes()
            continue
        live = [r for r in range(cache.rows) if slot_request[r] is not None]
        if not live:
            break
        if (not queue or closed) and len(live) <= cache.rows // 2:
            cache.select(live)
            for state in (slot_request, slot_start, generated, pending, next_position, own, history, tried, kept):
                state[:] = [state[r] for r in live]
            mask = mask[torch.tensor(live)]
            drop_prefixes()
            continue
        drafts = [
            history[r].draft(min(draft, max_gen_toks - len(generated[r]) - 1))
            if slot_request[r] is not None and history[r] is not None else []
            for r in range(cache.rows)
        ]
        q = step_width([drafts[r] for r in live], [(kept[r] + 1) / (tried[r] + 2) for r in live])
        drafts = [d[: q - 1] for d in drafts]
        longest = max(own[r] for r in live)
        if length + q > capacity or length - max(longest, width) > SLACK:
            compact(max(longest, width))
        for r in range(cache.rows):
            if slot_request[r] is None:  # an idle slot reads its own columns only, and a live neighbour's group
                cache.row_group[r] = cache.row_group[r - 1] if r else cache.row_group[live[0]]
                mask[r] = False
        allowed = mask[:, None, None, : length + q].expand(cache.rows, 1, q, length + q).clone()
        allowed[:, 0, :, length:] = torch.tril(torch.ones((q, q), dtype=torch.bool))  # the step's own tokens, causally
        cache.write_at = length
        cache.plan([length + q - slot_start[r] if slot_request[r] is not None else q for r in range(cache.rows)])
        inputs = [[pending[r], *d] + [pad] * (q - 1 - len(d)) for r, d in enumerate(drafts)]
        with torch.no_grad():
            output = model(
                input_ids=torch.tensor(inputs, dtype=torch.long, device=device),
                position_ids=(torch.tensor(next_position, dtype=torch.long)[:, None] + torch.arange(q)).to(device),
                attention_mask=allowed.to(device), past_key_values=cache,
                use_cache=True, logits_to_keep=q, densing_slots=cache,
            )
        chosen = output.logits.float().argmax(dim=-1).tolist()
        lm.decode_steps += 1
        for r in live:
            mine, accepted = drafts[r], 0
            while accepted < len(mine) and chosen[r][accepted] == mine[accepted]:
                accepted += 1  # the model's greedy token after the pending one (and the accepted drafts) is the draft's
            mask[r, length : length + accepted + 1] = True  # keys/values of the pending token and the accepted drafts
            own[r] += accepted + 1
            next_position[r] += accepted + 1
            lm.draft_accepted += accepted
            lm.draft_proposed += len(mine)
            tried[r] += accepted + (accepted < len(mine))  # a geometric run: kept tokens, then one rejected
            kept[r] += accepted
            for token in mine[:accepted] + [chosen[r][accepted]]:
                generated[r].append(token)
                pending[r] = token
                lm.generated_tokens += 1
                if history[r] is not None:
                    history[r].append(token)
                if stops(generated[r]):
                    end_row(r)
                    break
        length += q
