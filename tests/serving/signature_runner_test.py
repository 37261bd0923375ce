"""A version in a session: small requests in the caller's thread, larger ones in the pool, whose
callable is made by the first of them (and once only, whichever threads ask)."""

from concurrent import futures

import numpy as np

from imagine_tf_serving.signature_runner import CALLER_THREAD_MAX_ROWS, LoadedSession
from tests.serving.models import export, random_states


def test_a_large_request_makes_the_pool_callable_once_and_scores_like_small_ones(tmp_path):
    session = LoadedSession(export(tmp_path / "reward", seed=0))
    try:
        score = session.signatures["score"]
        assert score._pool_callable is None  # loading made the caller-thread callables only
        made_by_requests = []
        make_callable = score._make_callable
        score._make_callable = lambda inter_op_thread_pool: (
            made_by_requests.append(inter_op_thread_pool) or make_callable(inter_op_thread_pool)
        )
        rows = CALLER_THREAD_MAX_ROWS + 8
        states = random_states(rows)
        goals = np.array([b"Grasp red cat", b"Go left"] * (rows // 2), dtype=object)
        small = [
            score.run({"goals": goals[i : i + 8], "states": states[i : i + 8]})
            for i in range(0, rows, 8)
        ]
        assert score._pool_callable is None
        with futures.ThreadPoolExecutor(4) as pool:
            large = list(
                pool.map(lambda _: score.run({"goals": goals, "states": states}), range(4))
            )
        made = score._pool_callable
        assert made is not None
        for name in score.output_names:
            expected = np.concatenate([part[name] for part in small])
            for answer in large:
                np.testing.assert_allclose(answer[name], expected, atol=1e-6)
        score.run({"goals": goals, "states": states})
        assert score._pool_callable is made  # made once
        assert made_by_requests == [0]  # one callable, in the pool, for four racing requests
    finally:
        session.close()
