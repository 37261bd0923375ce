"""Retries of Reverb calls while the server cannot be reached, with a fake clock."""

import pytest
import reverb
import tensorflow as tf

from imagine_tf.distributed.backoff import call_with_backoff, is_connection_error
from imagine_tf.distributed.errors import ReplayServerUnavailable


class FakeTime:
    def __init__(self, call_s=0.0):
        self.now = 0.0
        self.sleeps = []
        self.call_s = call_s

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds


def failing(times, error, fake, result="ok"):
    calls = []

    def fn():
        calls.append(fake.now)
        fake.now += fake.call_s
        if len(calls) <= times:
            raise error
        return result

    return fn, calls


def test_retries_connection_errors_with_doubling_delays_then_returns():
    fake = FakeTime()
    fn, calls = failing(4, reverb.errors.DeadlineExceededError("no server"), fake)
    result = call_with_backoff(
        fn, "h:1", first_delay_s=0.1, max_delay_s=0.3, sleep=fake.sleep, clock=fake.clock
    )
    assert result == "ok"
    assert len(calls) == 5
    assert fake.sleeps == pytest.approx([0.1, 0.2, 0.3, 0.3])


def test_gives_up_at_the_deadline_naming_the_address_and_the_tries():
    fake = FakeTime(call_s=1.0)
    fn, calls = failing(100, reverb.errors.DeadlineExceededError("no server"), fake)
    with pytest.raises(ReplayServerUnavailable) as raised:
        call_with_backoff(
            fn, "10.0.0.7:8123", deadline_s=5.0, what="ping", sleep=fake.sleep, clock=fake.clock
        )
    error = raised.value
    assert error.address == "10.0.0.7:8123"
    assert error.tries == len(calls)
    assert 5.0 <= error.waited_s <= 6.0
    assert "10.0.0.7:8123" in str(error) and "could not ping" in str(error)
    assert isinstance(error.__cause__, reverb.errors.DeadlineExceededError)


def test_other_errors_are_raised_at_once():
    fake = FakeTime()
    for error in (RuntimeError("Priority table nope was not found"), ValueError("bad shape")):
        fn, calls = failing(1, error, fake)
        with pytest.raises(type(error)):
            call_with_backoff(fn, "h:1", sleep=fake.sleep, clock=fake.clock)
        assert len(calls) == 1


def test_connection_errors_are_told_from_the_others():
    assert is_connection_error(reverb.errors.DeadlineExceededError("x"))
    assert is_connection_error(tf.errors.UnavailableError(None, None, "x"))
    assert is_connection_error(RuntimeError("Socket closed"))
    assert is_connection_error(RuntimeError("failed to connect to all addresses"))
    assert not is_connection_error(RuntimeError("Priority table nope was not found"))
    assert not is_connection_error(ValueError("Unavailable"))
    assert not is_connection_error(KeyError("deadline"))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        call_with_backoff(lambda: None, "h:1", first_delay_s=0.0)
