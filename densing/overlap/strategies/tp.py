"""``tp``: Megatron-style tensor parallelism (Shoeybi et al. 2019, arXiv 1909.08053, §3) of every block's attention
and MLP, with the producer GEMM's all-reduce serialized or chunked.

Each of the W ranks holds 1/W of every block's attention heads and MLP hidden units; all ranks see the *same* batch
(tokens per step = batch × seq, not × W). Per block, with ``f`` the identity forward / all-reduce backward and ``g``
the all-reduce forward / identity backward:

* attention:  y = x + g(proj_r(attn(qkv_r(f(ln1(x))))))   (qkv column-parallel by heads, proj row-parallel),
  annotated ``tp/attn`` (the sublayer), ``tp/attn/proj`` (the producer GEMM, each chunk), ``tp/attn/allreduce`` (the
  training thread waiting for the reduce);
* MLP:        y = x + g(fc2_r(gelu(fc1_r(f(ln2(x))))))      (fc1 column-parallel, fc2 row-parallel), annotated
  ``tp/mlp``, ``tp/mlp/fc1``, ``tp/mlp/fc2``, ``tp/mlp/allreduce``; ``f``'s backward is ``tp/<s>/grad_allreduce``.

``--tp-overlap`` (docs/profiling.md): ``chunked`` is the software decomposition T3 (Pati et al. 2024, arXiv
2401.16677) compares its fused hardware against; both modes give the same sums, to float32 rounding. The weights are
the full model's (``build_model``, same seed) cut into the ranks' slices.
"""

from __future__ import annotations

from densing.errors import InputError
from densing.overlap.strategies.base import Strategy, TrainContext, TrainHooks

TP_OVERLAP_MODES = ("none", "chunked")


def check_tp(d_model: int, n_head: int, world: int, tokens: int, chunks: int, overlap: str) -> None:
    """InputError naming the field when the model cannot be split W ways (or the tokens k ways)."""
    if overlap not in TP_OVERLAP_MODES:
        raise InputError(f"tp_overlap: expected one of {', '.join(TP_OVERLAP_MODES)}, got {overlap!r}")
    if chunks < 1:
        raise InputError(f"tp_chunks: expected ≥ 1, got {chunks}")
    if n_head % world:
        raise InputError(f"n_head: expected a multiple of the workers ({world}) for tp, got {n_head}")
    if (4 * d_model) % world:
        raise InputError(f"d_model: expected 4·d_model divisible by the workers ({world}) for tp, got {d_model}")
    if overlap == "chunked" and tokens % chunks:
        raise InputError(f"tp_chunks: expected a divisor of batch_size × seq_len ({tokens}), got {chunks}")


def _functions():
    """The autograd functions (built on first use: torch is imported only where needed)."""
    import torch
    import torch.distributed as dist
    from torch.profiler import record_function

    class CopyToTp(torch.autograd.Function):
        """f: identity forward, all-reduce of the input gradient backward."""

        @staticmethod
        def forward(ctx, x, label, group):
            ctx.label, ctx.group = label, group
            return x.view_as(x)

        @staticmethod
        def backward(ctx, grad):
            grad = grad.contiguous()
            with record_function(f"{ctx.label}/grad_allreduce"):
                dist.all_reduce(grad, group=ctx.group)
            return grad, None, None

    class RowParallel(torch.autograd.Function):
        """g ∘ row-parallel linear: out = Σ_ranks h_r W_rᵀ + b, its all-reduce whole or chunked."""

        @staticmethod
        def forward(ctx, h, weight, bias, label, gemm, chunks, group):
            ctx.save_for_backward(h, weight)
            shape = h.shape[:-1] + (weight.shape[0],)
            flat = h.reshape(-1, h.shape[-1])
            out = torch.empty(flat.shape[0], weight.shape[0], dtype=h.dtype, device=h.device)
            wt = weight.t()
            if chunks <= 1:
                with record_function(f"{label}/{gemm}"):
                    torch.mm(flat, wt, out=out)
                with record_function(f"{label}/allreduce"):
                    dist.all_reduce(out, group=group)
            else:
                works = []
                for piece_in, piece_out in zip(flat.chunk(chunks), out.chunk(chunks)):
                    with record_function(f"{label}/{gemm}"):
                        torch.mm(piece_in, wt, out=piece_out)
                    works.append(dist.all_reduce(piece_out, group=group, async_op=True))
                with record_function(f"{label}/allreduce"):
                    for w in works:
                        w.wait()
            out += bias
            return out.view(shape)

        @staticmethod
        def backward(ctx, grad):
            h, weight = ctx.saved_tensors
            g2 = grad.reshape(-1, grad.shape[-1])
            grad_h = (g2 @ weight).view(h.shape)
            grad_w = g2.t() @ h.reshape(-1, h.shape[-1])
            return grad_h, grad_w, g2.sum(0), None, None, None, None

    return CopyToTp, RowParallel


def shard_model(model, rank: int, world: int, chunks: int, group=None):
    """``model`` (``build_model``'s GPT) made rank ``rank``'s tensor-parallel shard in place (``chunks`` 1: none)."""
    import torch
    from torch import nn
    from torch.nn import functional as F
    from torch.profiler import record_function

    CopyToTp, RowParallel = _functions()

    class TpBlock(nn.Module):
        def __init__(self, block):
            super().__init__()
            d = block.ln1.normalized_shape[0]
            self.local_heads, self.head_dim = block.heads // world, d // block.heads
            width, hidden = self.local_heads * self.head_dim, block.mlp[0].out_features // world
            heads = torch.cat([torch.arange(i * d + rank * width, i * d + (rank + 1) * width) for i in range(3)])
            cols, units = slice(rank * width, (rank + 1) * width), slice(rank * hidden, (rank + 1) * hidden)
            every = slice(None)

            def own(tensor, index):  # this rank's slice of a full tensor, a parameter of its own
                return nn.Parameter(tensor.detach()[index].clone())

            self.ln1, self.ln2 = block.ln1, block.ln2
            self.qkv_w, self.qkv_b = own(block.qkv.weight, heads), own(block.qkv.bias, heads)
            self.proj_w, self.proj_b = own(block.proj.weight, (every, cols)), own(block.proj.bias, every)
            self.fc1_w, self.fc1_b = own(block.mlp[0].weight, units), own(block.mlp[0].bias, units)
            self.fc2_w, self.fc2_b = own(block.mlp[2].weight, (every, units)), own(block.mlp[2].bias, every)

        def forward(self, x):
            b, t, _ = x.shape
            with record_function("tp/attn"):
                a = CopyToTp.apply(self.ln1(x), "tp/attn", group)
                qkv = F.linear(a, self.qkv_w, self.qkv_b).view(b, t, 3, self.local_heads, self.head_dim)
                q, k, v = qkv.permute(2, 0, 3, 1, 4)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                y = y.transpose(1, 2).reshape(b, t, self.local_heads * self.head_dim)
                x = x + RowParallel.apply(y, self.proj_w, self.proj_b, "tp/attn", "proj", chunks, group)
            with record_function("tp/mlp"):
                m = CopyToTp.apply(self.ln2(x), "tp/mlp", group)
                with record_function("tp/mlp/fc1"):
                    h = F.gelu(F.linear(m, self.fc1_w, self.fc1_b))
                x = x + RowParallel.apply(h, self.fc2_w, self.fc2_b, "tp/mlp", "fc2", chunks, group)
            return x

    model.blocks = nn.ModuleList(TpBlock(b) for b in model.blocks)
    return model


class TpHooks(TrainHooks):
    shares_batch = True  # every rank computes on the same tokens

    def __init__(self, context: TrainContext):
        super().__init__(context)
        cfg = context.config
        check_tp(cfg.d_model, cfg.n_head, context.world, cfg.batch_size * cfg.seq_len, cfg.tp_chunks, cfg.tp_overlap)

    def wrap(self, model):
        import torch.distributed as dist

        cfg = self.context.config
        chunks = cfg.tp_chunks if cfg.tp_overlap == "chunked" else 1
        return shard_model(model, dist.get_rank(), self.context.world, chunks)


STRATEGY = Strategy(
    "tp",
    "Megatron tensor parallelism of attention and MLP; --tp-overlap none (serial "
    "all-reduce) or chunked (per-chunk async all-reduce under the next GEMM chunk)",
    training=TpHooks,
)
