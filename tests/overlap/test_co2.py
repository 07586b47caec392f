"""CO2's outer update on planted cases (equations in densing.overlap.strategies.co2)."""

import math

import pytest

torch = pytest.importorskip("torch")

from densing.overlap.strategies.co2 import outer_update, staleness_penalty


def t(*values):
    return torch.tensor(values, dtype=torch.float64)


def test_plain_delayed_local_sgd():
    # β = 0, α = 1, no penalty: x_{t+1,0} = x_{t,0} − Δ̄_{t−1}
    anchor, stale = [t(1.0, 2.0)], [t(0.5, -1.0)]
    new, m, lam = outer_update(anchor, None, stale, [t(0.0, 0.0)], outer_lr=1.0, outer_momentum=0.0)
    assert torch.equal(new[0], t(0.5, 3.0)) and torch.equal(m[0], stale[0]) and lam == [1.0]


def test_momentum_and_clipping():
    anchor, stale, m0 = [t(0.0, 0.0)], [t(3.0, 0.0)], [t(1.0, 4.0)]
    new, m, _ = outer_update(anchor, None, stale, m0, outer_lr=0.5, outer_momentum=0.5)
    assert torch.allclose(m[0], t(3.5, 2.0)) and torch.allclose(new[0], t(-1.75, -1.0))
    # ‖m‖ = √(3.5² + 2²) ≈ 4.03 > c = 1: m scaled to norm 1, direction kept
    _, clipped, _ = outer_update(anchor, None, stale, m0, outer_lr=0.5, outer_momentum=0.5, clip=1.0, clip_mode="l2")
    assert float(clipped[0].norm()) == pytest.approx(1.0)
    assert torch.allclose(clipped[0] / clipped[0].norm(), m[0] / m[0].norm())


def test_staleness_penalty_per_layer():
    # layer 0: ‖Δ̄‖ = 3, gap ‖(3, 4)‖ = 5 → λ = 3/8; layer 1: no gap → λ = 1; all zero → 1
    assert staleness_penalty([t(3.0, 0.0), t(1.0), t(0.0)], [t(3.0, 4.0), t(0.0), t(0.0)]) == [3 / 8, 1.0, 1.0]
    anchor, prev = [t(3.0, 4.0), t(1.0)], [t(0.0, 0.0), t(1.0)]
    new, m, lam = outer_update(anchor, prev, [t(3.0, 0.0), t(2.0)], [t(0.0, 0.0), t(0.0)], 1.0, 0.0, penalty="adaptive")
    assert lam == [3 / 8, 1.0]
    assert torch.allclose(new[0], t(3.0 - 9 / 8, 4.0)) and torch.allclose(new[1], t(-1.0))
    assert not math.isnan(float(m[0].sum()))


def test_authors_default_constant_penalty_no_clip():
    # fairscale-CO2: m = β·m + (x_old − x)/λ, no clamp by default; the gap does not matter
    anchor, prev, stale, m0 = [t(3.0, 4.0)], [t(0.0, 0.0)], [t(3.0, -8.0)], [t(2.0, 2.0)]
    new, m, lam = outer_update(anchor, prev, stale, m0, outer_lr=1.0, outer_momentum=0.5)
    assert lam == [1.0] and torch.allclose(m[0], t(4.0, -7.0)) and torch.allclose(new[0], t(-1.0, 11.0))
    _, m2, lam2 = outer_update(anchor, prev, stale, m0, 1.0, 0.5, gap_penalty=2.0)
    assert lam2 == [0.5] and torch.allclose(m2[0], t(2.5, -3.0))


def test_elementwise_clamp_vs_l2_clip():
    anchor, stale, m0 = [t(0.0, 0.0, 0.0)], [t(3.0, -0.5, -2.0)], [t(0.0, 0.0, 0.0)]
    _, m, _ = outer_update(anchor, None, stale, m0, 1.0, 0.0, clip=1.0, clip_mode="elementwise")
    assert torch.equal(m[0], t(1.0, -0.5, -1.0))  # each entry clamped to [−c, c]
    _, m, _ = outer_update(anchor, None, stale, m0, 1.0, 0.0, clip=1.0, clip_mode="l2")
    assert float(m[0].norm()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="outer_clip_mode"):
        outer_update(anchor, None, stale, m0, 1.0, 0.0, clip_mode="max")
