"""`imagine-tf bench distributed --learners`: a bad count is a usage error; the quick record
(`slow`: 3 learner processes) holds what the projection reads."""

import json

import pytest

from imagine_tf.cli.main import main


def test_a_learner_count_below_one_is_a_usage_error(capsys):
    assert main(["bench", "distributed", "--learners", "1", "0"]) == 2
    assert "--learners must be >= 1 each, got [1, 0]" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_quick_record_times_one_and_two_learners(tmp_path):
    out = tmp_path / "record.json"
    assert main(["bench", "distributed", "--learners", "1", "2", "--quick", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    one, two = record["learners"]["1"], record["learners"]["2"]
    assert one["gradient_bytes_per_update"] == two["gradient_bytes_per_update"] > 1_000_000
    assert two["transitions_per_s"] == pytest.approx(2 * 256 / two["seconds_per_update"])
    assert 0 < two["all_reduce_share_of_update"] < 1
