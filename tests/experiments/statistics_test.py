"""The reports' statistics on cases with known answers: Holm's adjustment by hand, a paired
design that only a paired test sees, a null effect, a large effect, a ruled-out effect, the
IQM, P(a > b) and the bootstrap's determinism."""

import numpy as np
import pytest
from scipy import stats

from imagine_tf.experiments import comparisons, intervals, statistics
from imagine_tf.experiments.spec import Claim

# ExperimentSpec is gin-configurable: an earlier test's bindings must not reach these specs.
pytestmark = pytest.mark.usefixtures("clear_gin")


def test_holm_by_hand_keeps_order_and_skips_untested():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, max(0.06, 0.04 x 1) = 0.06
    assert statistics.holm([0.01, 0.04, None, 0.03, 0.005]) == pytest.approx(
        [0.03, 0.06, None, 0.06, 0.02]
    )
    assert statistics.holm([0.9, 0.8]) == [1.0, 1.0]


def test_a_paired_design_is_seen_by_the_paired_test_and_not_by_welch():
    seeds = np.array([0.1, 0.5, 0.3, 0.8, 0.6])  # large differences between seeds
    shift = np.array([0.09, 0.11, 0.10, 0.12, 0.08])  # a small, consistent effect
    a, b = seeds + shift, seeds
    paired = statistics.paired(a, b)
    assert paired["p"] == pytest.approx(stats.ttest_rel(a, b).pvalue)
    assert paired["p"] < 1e-3 and statistics.welch(a, b)["p"] > 0.5
    assert paired["wilcoxon_p"] == pytest.approx(0.0625)  # 5 positive pairs: its minimum
    test = comparisons.test_claim(Claim("a", "b"), "m", _by_seed(a), _by_seed(b), paired=True)
    low, high = test["difference_ci"]
    assert low > 0 and high < 0.2 and test["probability_of_improvement"] < 1  # unpaired P
    comparisons.adjust_family([test])
    assert test["verdict"] == "holds"


def test_a_null_effect_is_undecided_and_a_tight_null_is_refuted():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.5, 0.2, 10), rng.normal(0.5, 0.2, 10)
    test = comparisons.test_claim(
        Claim("a", "b", margin=0.05), "m", _by_seed(a), _by_seed(b), paired=False
    )
    comparisons.adjust_family([test])
    assert test["p"] > 0.05 and test["difference_ci"][0] < 0 < test["difference_ci"][1]
    assert test["verdict"] == "undecided"
    a, b = rng.normal(0.5, 0.01, 20), rng.normal(0.5, 0.01, 20)
    tight = comparisons.test_claim(
        Claim("a", "b", margin=0.05), "m", _by_seed(a), _by_seed(b), paired=False
    )
    comparisons.adjust_family([tight])
    assert tight["difference_ci"][1] < 0.05 and tight["verdict"] == "refuted"


def test_a_claim_by_a_margin_is_tested_at_its_margin_not_at_zero():
    b = np.array([0.10, 0.12, 0.11, 0.09, 0.13, 0.10])
    a = b + 0.05 + np.array([0.002, -0.002, 0.001, -0.001, 0.003, -0.003])  # a − b ≈ margin
    by_margin = comparisons.test_claim(
        Claim("a", "b", margin=0.05), "m", _by_seed(a), _by_seed(b), paired=True
    )
    at_zero = comparisons.test_claim(Claim("a", "b"), "m", _by_seed(a), _by_seed(b), paired=True)
    assert at_zero["p"] < 1e-6 < 0.5 < by_margin["p"]
    assert by_margin["difference"] == pytest.approx(at_zero["difference"])  # unshifted


def test_a_large_effect_holds_with_certain_improvement():
    a, b = np.array([0.90, 0.91, 0.92, 0.89, 0.93]), np.array([0.10, 0.12, 0.11, 0.09, 0.13])
    test = comparisons.test_claim(Claim("a", "b"), "m", _by_seed(a), _by_seed(b), paired=True)
    family = comparisons.adjust_family([test, dict(test)])
    assert family["size"] == 2 and test["p_holm"] == pytest.approx(2 * test["p"])
    assert test["verdict"] == "holds"
    assert test["probability_of_improvement"] == 1.0
    assert test["probability_of_improvement_ci"] == [1.0, 1.0]


def test_non_inferiority_holds_within_its_margin_and_is_refuted_below_it():
    base = np.linspace(0.3, 0.7, 8)
    near = comparisons.test_claim(
        Claim("a", "b", relation=">=", margin=0.05),
        "m",
        _by_seed(base - 0.01 + np.linspace(-0.01, 0.01, 8)),
        _by_seed(base),
        True,
    )
    far = comparisons.test_claim(
        Claim("a", "b", relation=">=", margin=0.05),
        "m",
        _by_seed(base - 0.3 + np.linspace(0, 0.02, 8)),
        _by_seed(base),
        True,
    )
    comparisons.adjust_family([near, far])
    assert near["verdict"] == "holds" and far["verdict"] == "refuted"


def test_verdict_rules():
    assert statistics.verdict(">", 0.01, [0.02, 0.2]) == "holds"
    assert statistics.verdict(">", 0.2, [0.02, 0.2]) == "undecided"  # CI clear, p not
    assert statistics.verdict(">", 0.01, [-0.01, 0.2]) == "undecided"
    assert statistics.verdict(">", 0.5, [-0.1, 0.04], margin=0.05) == "refuted"
    # "a > b + margin" holds only when the interval clears the margin
    assert statistics.verdict(">", 0.01, [0.02, 0.2], margin=0.05) == "undecided"
    assert statistics.verdict(">", 0.01, [0.06, 0.2], margin=0.05) == "holds"
    # "a > b", refuted below the smallest effect of interest
    assert statistics.verdict(">", 0.5, [-0.1, 0.04], refute_below=0.05) == "refuted"
    assert statistics.verdict(">", 0.5, [-0.1, 0.06], refute_below=0.05) == "undecided"
    assert statistics.verdict(">", 0.01, [0.01, 0.04], refute_below=0.05) == "holds"
    with pytest.raises(ValueError, match="smallest effect of interest"):
        statistics.verdict(">=", 0.01, [0, 1], margin=0.05, refute_below=0.1)
    assert statistics.verdict(">", None, None) == "not tested"
    with pytest.raises(ValueError, match="relation must be one of"):
        statistics.verdict("<", 0.01, [0, 1])


def test_iqm_probability_of_improvement_and_deterministic_bootstrap():
    assert intervals.iqm([1, 2, 3, 4, 100]) == pytest.approx(3.0)  # the middle three
    assert intervals.probability_of_improvement([1, 2], [2, 0]) == pytest.approx(0.625)
    values = [0.2, 0.4, 0.5, 0.7, 0.9]
    first, again = intervals.estimates(values), intervals.estimates(values)
    assert first == again
    low, high = first["mean_ci"]
    assert low < np.mean(values) < high and 0.2 <= low and high <= 0.9
    assert intervals.estimates([0.5])["mean_ci"] is None


def test_describe_gives_ddof_1_std_quartiles_and_keeps_seeds():
    entry = comparisons.describe({"1": 0.4, "0": 0.2, "2": None, "3": 0.9})
    assert entry["values"] == [0.2, 0.4, 0.9] and entry["n"] == 3
    assert entry["std"] == pytest.approx(np.std([0.2, 0.4, 0.9], ddof=1))
    assert entry["median"] == 0.4 and entry["q1"] == pytest.approx(0.3)
    assert comparisons.by_seed_of(entry, [0, 1, 2, 3]) == {"1": 0.4, "0": 0.2, "2": None, "3": 0.9}
    with pytest.raises(ValueError, match="which seed each value belongs to is unknown"):
        comparisons.by_seed_of({"values": [0.1, 0.2]}, [0, 1, 2])


def test_verdicts_read_the_family_adjusted_interval():
    base = np.linspace(0.2, 0.8, 10)
    a = base + 0.03 + np.array([0.02, -0.03, 0.04, -0.01, 0.03, -0.02, 0.01, 0.0, 0.02, -0.01])
    claim = Claim("a", "b", refute_below=0.05)
    alone = comparisons.test_claim(claim, "m", _by_seed(a), _by_seed(base), paired=True)
    comparisons.adjust_family([alone])
    assert alone["adjusted_ci"] == pytest.approx(alone["difference_ci"])  # a family of one
    eight = [comparisons.test_claim(claim, "m", _by_seed(a), _by_seed(base), True)]
    eight += [dict(eight[0]) for _ in range(7)]
    family = comparisons.adjust_family(eight)
    assert family["adjusted_confidence"] == pytest.approx(1 - 0.05 / 8)
    low, high = eight[0]["adjusted_ci"]
    raw_low, raw_high = alone["difference_ci"]
    assert low < raw_low and high > raw_high  # wider: 1 - 0.05 / 8 against 0.95
    t = stats.t.ppf(1 - 0.05 / 16, 9) * np.std(a - base, ddof=1) / np.sqrt(10)
    assert [low, high] == pytest.approx([np.mean(a - base) - t, np.mean(a - base) + t])


def test_a_gate_that_fails_leaves_the_other_claims_undecided_by_it():
    rng = np.random.default_rng(3)
    b = rng.uniform(0.2, 0.8, 10)
    control = comparisons.test_claim(
        Claim("oracle", "none"), "m", _by_seed(b + rng.normal(0, 0.01, 10)), _by_seed(b), True
    )
    control["gate"] = True
    lifted = _by_seed(b + 0.3 + rng.normal(0, 0.01, 10))
    big = comparisons.test_claim(Claim("cgh", "none"), "m", lifted, _by_seed(b), True)
    family = comparisons.adjust_family([control, big])
    assert family["gate"] == "failed" and control["verdict"] != "holds"
    assert big["verdict"] == "gate failed"
    control["values_a"] = list(b + 0.2 + rng.normal(0, 0.01, 10))
    control["p"] = 1e-6
    assert comparisons.adjust_family([control, big])["gate"] == "holds"
    assert big["verdict"] == "holds"


def test_wilcoxon_says_when_its_p_is_exact():
    assert statistics.wilcoxon_method(np.array([0.1, 0.2, 0.3, -0.05])) == "exact"
    assert statistics.wilcoxon_method(np.array([0.1, 0.1, 0.3])) == "normal approximation"
    assert statistics.wilcoxon_method(np.array([0.0, 0.1, 0.3])) == "normal approximation"
    tied = statistics.paired([0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.5, 0.6])
    assert tied["wilcoxon_method"] == "normal approximation"


def _by_seed(values) -> dict:
    return {str(i): float(v) for i, v in enumerate(values)}


def test_claims_and_gates_are_checked_when_declared():
    from imagine_tf.experiments.spec import ExperimentSpec

    def spec(comparisons, gate=()):
        configurations = {"t": {"num_epochs": 1}, "a": {"fork_from": "t"}, "b": {"fork_from": "t"}}
        return ExperimentSpec(
            configurations=configurations,
            metrics={"m": "x"},
            num_epochs=2,
            comparisons=comparisons,
            gate=gate,
        )

    good = spec((("a", "b", "m", ">", 0.0, 0.05),), gate=("a", "b", "m"))
    assert good.claims()[0].refute_below == 0.05 and good.is_gate(good.claims()[0], "m")
    assert good.claims()[0].text("m") == "a > b on m (refuted below +0.05)"
    with pytest.raises(ValueError, match="refute_below >= margin"):
        spec((("a", "b", "m", ">", 0.1, 0.05),))
    with pytest.raises(ValueError, match="refute_below >= margin"):
        spec((("a", "b", "m", ">=", 0.05, 0.1),))
    with pytest.raises(ValueError, match="gate of .* must be the"):
        spec((("a", "b", "m"),), gate=("b", "a", "m"))
