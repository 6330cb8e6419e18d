"""The live demo (/demo) end to end in two headless Chromium browsers: a task added, ticked or
deleted in one appears in the other, on hearth.js (a WebSocket listener) and on the Firebase JS
SDK (WebChannel).

Needs Debian's `chromium` and `chromium-driver` and selenium (scripts/test installs them). Where
they are missing the test is skipped, unless HEARTH_REQUIRE_BROWSER=1 (set by scripts/test),
which turns a missing browser into a failure.
"""
import json
import os
import sys
import urllib.parse
import urllib.request
import uuid

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser"))
import jsharness  # noqa: E402

@pytest.fixture
def browsers():
    jsharness.require_browser(pytest)
    opened = []

    def open_browser():
        driver = jsharness.open_chromium(window="1000,800")
        opened.append(driver)
        return driver

    yield open_browser
    for driver in opened:
        driver.quit()


def _wait(driver, condition, what, timeout=10):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait
    try:
        # The page re-renders its list on every snapshot: an element read while it is being
        # replaced is stale, and the condition is simply polled again.
        return WebDriverWait(driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: condition(d))
    except Exception as error:  # TimeoutException: say what was awaited and what the page shows
        status = driver.find_element("id", "status").text
        items = [li.text for li in driver.find_elements("css selector", "#tasks li")]
        raise AssertionError(f"timed out waiting for {what}; status {status!r}, tasks {items!r}") from error


def _titles(driver):
    return [span.text for span in driver.find_elements("css selector", "#tasks li span")]


def _item(driver, title):
    for li in driver.find_elements("css selector", "#tasks li"):
        if li.find_element("css selector", "span").text == title:
            return li
    return None


def _admin_commit(base, project, writes):
    body = json.dumps({"writes": writes}).encode()
    request = urllib.request.Request(
        f"{base}/v1/projects/{project}/databases/(default)/documents:commit", data=body, method="POST",
        headers={"Content-Type": "application/json", "Authorization": "Bearer owner"})
    urllib.request.urlopen(request).read()


@pytest.fixture(scope="module")
def sdk_server():
    """Serves the Firebase JS SDK's modules for the demo's `?sdk=firebase` mode (None without the SDK)."""
    sdk = jsharness.find_sdk()
    if not sdk:
        yield None
        return
    server = jsharness.PageServer(sdk)
    yield server
    server.close()


@pytest.mark.parametrize("client", ["hearth.js", "firebase-js-sdk"])
def test_demo_syncs_two_browsers(hearth, browsers, sdk_server, client):
    project = "demo-" + uuid.uuid4().hex[:8]
    url = f"{hearth}/demo?project={project}"
    if client == "firebase-js-sdk":
        jsharness.require_browser(pytest, need_sdk=True)
        url += f"&sdk=firebase&sdkBase={urllib.parse.quote(sdk_server.base + '/sdk/', safe='')}"
    a, b = browsers(), browsers()
    for driver in (a, b):
        driver.get(url)
        _wait(driver, lambda d: d.find_element("id", "status").text.startswith("0 task(s)"), "the empty initial snapshot")

    # Added in A: shows in B.
    a.find_element("id", "title").send_keys("Buy milk")
    a.find_element("css selector", "#add button").click()
    _wait(b, lambda d: _titles(d) == ["Buy milk"], "B to show the task added in A")
    _wait(a, lambda d: _titles(d) == ["Buy milk"], "A to show its own task")

    # Written by another client (admin REST, server timestamp): both browsers, in createdTime order.
    name = f"projects/{project}/databases/(default)/documents/tasks/from-rest"
    _admin_commit(hearth, project, [{
        "update": {"name": name, "fields": {"title": {"stringValue": "Walk the dog"}, "done": {"booleanValue": False}}},
        "updateTransforms": [{"fieldPath": "createdTime", "setToServerValue": "REQUEST_TIME"}],
    }])
    for driver in (a, b):
        _wait(driver, lambda d: _titles(d) == ["Buy milk", "Walk the dog"], "both tasks in creation order")

    # Ticked in B: struck through in A.
    _item(b, "Buy milk").find_element("css selector", "input[type=checkbox]").click()
    _wait(a, lambda d: "done" in (_item(d, "Buy milk").get_attribute("class") or ""), "A to show the task done")

    # Deleted in A: gone from B.
    _item(a, "Walk the dog").find_element("css selector", "button.delete").click()
    _wait(b, lambda d: _titles(d) == ["Buy milk"], "B to drop the task deleted in A")

    # A fresh page load starts from the current state.
    b.refresh()
    _wait(b, lambda d: d.find_element("id", "status").text.startswith("1 task(s)"), "the reloaded snapshot")
    assert _titles(b) == ["Buy milk"]
    assert "done" in (_item(b, "Buy milk").get_attribute("class") or "")

    for driver in (a, b):
        errors = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert errors == [], errors
