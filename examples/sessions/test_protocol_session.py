"""A team's test driving a bench session whose app speaks the app protocol: the session
launches the app (`--agent`), the test plays what the user and the OS do as scenario steps
(POST /session/steps) between its own changes to the network (the API's endpoints), and
every property is judged, the app's word checked against what the world saw.

Run from the repository root (CI does, in .ci/session-example):
    DEADZONE_BENCH=.build/debug/bench python3 -m pytest examples/sessions
Standard library and pytest only.
"""

import json
import urllib.error
import urllib.request

import pytest

from test_session import bench_session, call, refused, verdict

STOPPED = ["suspended(network)", "suspended(cellularNotAllowed)", "failed", "downloaded"]


def play(api, steps):
    """Plays a batch of steps; answers once they have played."""
    answer = call(api, "POST", "/session/steps", steps)
    assert answer["played"] == answer["steps"] == len(steps), answer
    return answer


def network_lost_mid_download(api):
    """The test's own flow: a download, both interfaces cut under it through the API, back later.

    (WiFi alone would leave cellular, which the download may not use: the app would wait
    for WiFi in suspended(cellularNotAllowed), a situation of cellular-policy, not an outage.)"""
    assert call(api, "GET", "/session")["app"] == "protocol"
    answer = play(api, [
        {"request": "clear", "as": "movie"},
        {"wait": {"any": [{"progress": "movie", "at-least": 0.25}, {"state": "movie", "in": STOPPED}]}},
    ])
    assert set(answer["downloads"]) == {"movie"}, answer
    for kind in ("cellular", "wifi"):  # cellular first: the download on WiFi goes on until the outage
        call(api, "POST", "/deadzone/interfaces/" + kind, {"state": "down", "mode": "reset"})
    play(api, [{"wait": {"state": "movie", "in": STOPPED}, "timeout": "30s"}, {"hold": "2s"}])
    for kind in ("wifi", "cellular"):
        call(api, "POST", "/deadzone/interfaces/" + kind, {"state": "up"})
    play(api, [{"wait-settled": "movie"}, {"inspect": "movie"}])
    return call(api, "POST", "/session/end")


@pytest.fixture
def engine_session():
    yield from bench_session("--agent", "deadzone")


@pytest.fixture
def failing_session():
    yield from bench_session("--agent", "fail-on-outage")


def test_an_app_that_suspends_for_the_outage_passes_on_its_word(engine_session):
    result = network_lost_mid_download(engine_session)
    print({name: v["outcome"] for name, v in result["verdicts"].items()})
    assert verdict(result, "auto-suspend-on-disconnect") == "passed", result["verdicts"]["auto-suspend-on-disconnect"]
    # What needs the app's word is judged: the app gave it.
    assert verdict(result, "integrity") == "passed", result["verdicts"]["integrity"]
    assert all("Needs the app's word" not in v["summary"] for v in result["verdicts"].values())
    assert result["passed"] is True, result


def test_an_app_that_fails_on_the_outage_fails_auto_suspend(failing_session):
    result = network_lost_mid_download(failing_session)
    assert verdict(result, "auto-suspend-on-disconnect") == "failed", result["verdicts"]["auto-suspend-on-disconnect"]
    assert result["passed"] is False


def test_bad_steps_are_refused_and_change_nothing(engine_session):
    api = engine_session
    status, message = refused(api, "/session/steps", [{"teleport": "wifi"}])
    assert status == 400 and "teleport" in message, message
    status, message = refused(api, "/session/steps", [{"pause": "never-requested"}])
    assert status == 400 and "never-requested" in message, message
    status, message = refused(api, "/session/announce", {"event": "lifecycle", "foreground": False})
    assert status == 409 and "POST /session/steps" in message, message
    # A step the app or a trigger fails: the ones before it played, the session records on.
    status, answer = failed(api, [{"request": "clear", "as": "a"}, {"wait-for-request": "/nowhere/**", "timeout": "1s"}])
    assert status == 422 and answer["played"] == 1 and "step 1 (wait-for-request) failed" in answer["error"], answer
    play(api, [{"wait-settled": "a"}])
    result = call(api, "POST", "/session/end")
    assert verdict(result, "integrity") == "passed", result["verdicts"]["integrity"]


def failed(api, steps):
    """The status and body of a batch that stopped at a step."""
    request = urllib.request.Request(api + "/session/steps", data=json.dumps(steps).encode(), method="POST")
    try:
        urllib.request.urlopen(request, timeout=120)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)
    pytest.fail("the batch %s played whole" % steps)
