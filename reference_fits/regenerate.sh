#!/usr/bin/env bash
# Regenerates every shipped reference fit from ../shared/data/pythia_evals (EleutherAI/pythia,
# Apache-2.0). Run from the repository root after `pip install -e .`:  bash reference_fits/regenerate.sh
set -euo pipefail
PYTHIA=${PYTHIA:-../shared/data/pythia_evals/pythia-v1}
# 1. Two-step law on LAMBADA: loss = ln(ppl), score = acc, standard suite, every checkpoint after the
#    learning-rate warm-up (1% of 143,000 steps ≈ 3.0e9 tokens), N from the Pythia paper, D = step × 2,097,152.
densing fit --data "$PYTHIA" --suite standard --benchmark lambada_openai --law two-step \
  --min-train-tokens 3e9 --n-boot 200 --seed 0 --jobs 2 --out reference_fits/pythia_lambada_openai_two_step.json
# 2. Composed (scores-only) law on every checkpoint, floor d fixed to the chance level.
for bench in arc_easy arc_challenge piqa sciq winogrande; do
  densing fit --data "$PYTHIA" --suite standard --benchmark "$bench" --law composed --chance auto \
    --n-boot 200 --seed 0 --jobs 2 --out "reference_fits/pythia_${bench}_composed.json"
done
# The Pythia suite's final checkpoints, the default targets of `densing density`.
densing convert --data "$PYTHIA" --suite standard --final-only \
  --benchmarks lambada_openai,arc_easy,arc_challenge,piqa,sciq,winogrande --out results/pythia_final.csv
# 3. The reference of the density trend on the shipped public models (results/public_models.csv, from
#    ObsScaling): the composed law on the one ladder there trained on one corpus with varied N and D —
#    the Pile-trained Pythia (deduped), GPT-Neo/J/NeoX and Cerebras-GPT models (19 models, 70M–20B
#    params, 2.2B–472B tokens) — floor d at chance, ceiling c + d = 1. The headline fit averages
#    ARC-C, HellaSwag and Winogrande per model, as the paper fits the average score.
PILE="Pythia,GPT-Neo/J,Cerebras-GPT"
for bench in arc_challenge hellaswag winogrande; do
  densing fit --data results/public_models.csv --families "$PILE" --benchmark "$bench" --metric score \
    --law composed --chance auto --ceiling 1 --n-boot 200 --seed 0 --jobs 2 --out "reference_fits/pile_${bench}_composed.json"
done
densing fit --data results/public_models.csv --families "$PILE" --benchmark arc_challenge,hellaswag,winogrande \
  --metric score --law composed --chance auto --ceiling 1 --n-boot 200 --seed 0 --jobs 2 \
  --out reference_fits/pile_mean_composed.json
#    The same on Cerebras-GPT alone (one recipe, 20 tokens per parameter), a second candidate reference.
for bench in arc_challenge hellaswag winogrande; do
  densing fit --data results/public_models.csv --families Cerebras-GPT --benchmark "$bench" --metric score \
    --law composed --chance auto --ceiling 1 --n-boot 200 --seed 0 --jobs 2 --out "reference_fits/cerebras_${bench}_composed.json"
done
densing fit --data results/public_models.csv --families Cerebras-GPT --benchmark arc_challenge,hellaswag,winogrande \
  --metric score --law composed --chance auto --ceiling 1 --n-boot 200 --seed 0 --jobs 2 \
  --out reference_fits/cerebras_mean_composed.json
#    The rules that pick the trend's references (densing.laws.eligibility, rule v3, and rules v2 and v1 as labelled
#    variants, which the tool itself computes): every family x benchmark of the table, eligible or not and why; writes
#    reference_fits/trend_reference_candidates.csv.
python tools/build_tables.py candidates --results results/public_models.csv --fits-dir reference_fits
#    Family laws shipped for `densing density --fit` (binomial likelihood, rule v3's pooled dispersion, the default
#    power shape): the paper-like set's references under the set rule (densing.trend.pooling.set_references:
#    Qwen1.5 and Qwen2, each on all four benchmarks) and Llama-3.1 (at its 15T-token budget) on the knowledge &
#    commonsense set.
for pair in Qwen1.5:mmlu Qwen1.5:leaderboard_bbh Qwen1.5:math_hard Qwen1.5:humaneval \
            Qwen2:mmlu Qwen2:leaderboard_bbh Qwen2:math_hard Qwen2:humaneval \
            Llama-3.1:mmlu Llama-3.1:hellaswag Llama-3.1:winogrande; do
  family=${pair%%:*}; bench=${pair#*:}
  densing fit --data results/public_models.csv --family "$family" --benchmark "$bench" --n-boot 1000 --seed 0 \
    --out "reference_fits/family_$(echo "$family" | tr '[:upper:]' '[:lower:]')_${bench}.json" > /dev/null
done
# 4. The loss-carrying reference: AI2's OLMo ladder (../shared/data/olmo_ladder, allenai/OLMo, Apache-2.0),
#    25 runs (190M–3B × 0.5–10×C, 1×C from the *-rerun files), the two-step law on bits per byte of the
#    correct answer, options chosen inside the ladder (densing.laws.olmo.ladder), then the held-out check. Each fit keeps
#    the loss stage's points (each run's final point) and not the score stage's checkpoints, which are the ladder
#    table's rows (densing.laws.olmo.ladder.without_checkpoints).
OLMO=${OLMO:-../shared/data/olmo_ladder}
densing ladder fit --data "$OLMO" --out-dir reference_fits --n-boot 200 --seed 0 --jobs 2
densing ladder check --data "$OLMO" --fits-dir reference_fits --out-dir results/olmo_ladder --format csv > /dev/null
# 5. The paper's two-step design on AI2's recipe in the OLMES MC format (densing.designs.olmes.mc_reference): the ladder's
#    loss law per task (step 4's fits) and an MC score law on the OLMo-2 1B/7B/13B checkpoints past 10% of each run;
#    writes reference_fits/olmo2_mc_<task>_two_step.json (and _ceiling1_: the ceiling fixed at 1, its sensitivity), results/olmes/mc_offsets.csv and mc_held_out.csv. Then the
#    doubling time over AI2's OLMES table at D0 = 1T (densing.designs.olmes.trend): results/olmes/trend.csv and trend_checks.csv.
python tools/build_tables.py mc-reference --data "$OLMO" --fits-dir reference_fits --results-dir results/olmes --n-boot 200 --seed 0
python tools/build_tables.py olmes --fits-dir reference_fits --results-dir results/olmes --n-boot 600 --seed 0 --out results/olmes/trend.csv
