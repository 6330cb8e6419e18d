"""Python side of the Firestore JS SDK browser harness (harness.js, firestore.html).

- find_sdk(): the Firebase JS SDK 10.12.2 browser builds ($FIREBASE_JS_SDK or
  ../shared/clients/firebase-js-10.12.2 beside the repository), or None.
- PageServer: a small threaded HTTP server for the SDK (/sdk/...) and this folder (/harness/...).
- Browser: one headless Chromium (selenium + Debian's chromedriver) with the harness page loaded;
  run(js, **args) evaluates an async JS body in it and returns its (H.enc-encoded) result.
- OfficialEmulator: `gcloud emulators firestore start` in its own process group.
"""
import functools
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from harness import free_port  # noqa: E402,F401  (below the ephemeral range, never handed out twice)
SDK_VERSION = "10.12.2"


def find_sdk():
    candidates = [os.environ.get("FIREBASE_JS_SDK"),
                  os.path.join(os.path.dirname(ROOT), "shared", "clients", f"firebase-js-{SDK_VERSION}")]
    for path in candidates:
        if path and os.path.isfile(os.path.join(path, "firebase-firestore.js")):
            return path
    return None


class _Handler(http.server.SimpleHTTPRequestHandler):
    roots = {}

    def translate_path(self, path):
        path = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, root in self.roots.items():
            if path.startswith(prefix):
                rest = os.path.normpath(path[len(prefix):]).lstrip("/")
                if rest.startswith(".."):
                    break
                return os.path.join(root, rest)
        return "/nonexistent"

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        # Pages of another origin (Hearth's /demo) load the SDK's modules from here.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *args):
        pass


class PageServer:
    def __init__(self, sdk_dir):
        handler = type("Handler", (_Handler,), {"roots": {"/sdk/": sdk_dir, "/harness/": HERE}})
        handler.extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                                      **{".js": "text/javascript"})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class JsError(Exception):
    """An exception thrown in the page; `code` is the FirestoreError code (e.g. 'permission-denied')."""

    def __init__(self, code, name, message):
        super().__init__(f"{code or name}: {message}")
        self.code, self.name, self.message = code, name, message


_RUN = """
const done = arguments[arguments.length - 1];
const args = arguments[0];
const fs = H.fs, C = H.clients;
const db = C.a && C.a.db, db2 = C.b && C.b.db;
(async () => { %s })().then(
  (r) => done({ok: H.enc(r === undefined ? null : r)}),
  (e) => done({err: {code: (e && e.code) || null, name: (e && e.name) || null, message: String((e && e.message) || e)}}));
"""


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def missing_browser_parts(need_sdk=False):
    """What a browser test lacks here (empty when it can run)."""
    missing = []
    if need_sdk and not find_sdk():
        missing.append(f"the Firebase JS SDK {SDK_VERSION} ($FIREBASE_JS_SDK or ../shared/clients/firebase-js-{SDK_VERSION})")
    if not CHROMIUM:
        missing.append("chromium")
    if not CHROMEDRIVER:
        missing.append("chromedriver (Debian package chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip)")
    return missing


def require_browser(pytest, need_sdk=False):
    """Skips the calling test where a part is missing. A missing browser (chromium, chromedriver,
    selenium) fails it instead with HEARTH_REQUIRE_BROWSER=1 (scripts/test installs them); a
    missing JS SDK, which cannot be installed here (no npm), fails it only with
    HEARTH_REQUIRE_JS_SDK=1."""
    browser = missing_browser_parts(need_sdk=False)
    sdk = [m for m in missing_browser_parts(need_sdk) if m not in browser]
    if browser or sdk:
        message = "headless browser test needs " + ", ".join(browser + sdk)
        if (browser and os.environ.get("HEARTH_REQUIRE_BROWSER") == "1") or (sdk and os.environ.get("HEARTH_REQUIRE_JS_SDK") == "1"):
            pytest.fail(message)
        pytest.skip(message)


def open_chromium(window="800,600"):
    """A headless Chromium driven by selenium. Only loopback is reachable: every other host name
    fails to resolve inside it, so nothing leaves the machine (WebChannel pings
    www.google.com/images/cleardot.gif after a failed request, and Chromium has background
    services of its own)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--disable-extensions", f"--window-size={window}",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--disable-domain-reliability", "--no-first-run",
                "--disable-client-side-phishing-detection", "--no-default-browser-check"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


class Browser:
    def __init__(self, page_url):
        self.driver = open_chromium()
        self.driver.set_script_timeout(20)
        self.page_url = page_url
        self.load()

    def load(self):
        self.driver.get(self.page_url)
        self.wait(lambda: self.driver.execute_script("return !!window.H"), "the harness page to load", 20)

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass

    def run(self, js, **args):
        """Runs `js` as the body of an async function (with fs, H, C, db, db2, args in scope)."""
        result = self.driver.execute_async_script(_RUN % js, args)
        if "err" in result:
            e = result["err"]
            raise JsError(e["code"], e["name"], e["message"])
        return result["ok"]

    def eval(self, expression):
        return self.driver.execute_script("return " + expression)

    def wait(self, condition, what, timeout=15.0, interval=0.02):
        deadline = time.monotonic() + timeout
        last = None
        while True:
            last = condition()
            if last:
                return last
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(interval)

    def events(self, listener_id):
        return self.driver.execute_script("return H.events(arguments[0])", listener_id)

    def wait_events(self, listener_id, predicate, what, timeout=15.0):
        """Waits until predicate(events) is true; returns the events."""
        state = {}

        def check():
            state["events"] = self.events(listener_id) or []
            return predicate(state["events"])
        try:
            self.wait(check, what, timeout)
        except AssertionError as error:
            raise AssertionError(f"{error}; events so far: {json.dumps(state.get('events'))[:3000]}") from None
        return state["events"]

    def set_offline(self, offline):
        """A real network drop for this page: DevTools network emulation (fails open requests too)."""
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": bool(offline), "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def severe_logs(self):
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]


class OfficialEmulator:
    """The official Firestore emulator (a JVM) started through gcloud in its own process group."""

    def __init__(self, port=None, rules=None):
        self.port = port or free_port()
        self.rules = rules
        self.proc = None
        self.log = None

    def start(self, timeout=120):
        self.log = tempfile.NamedTemporaryFile(prefix="firestore-emulator-", suffix=".log", delete=False)
        command = ["gcloud", "emulators", "firestore", "start", f"--host-port=127.0.0.1:{self.port}"]
        if self.rules:
            command.append(f"--rules={self.rules}")
        self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("official emulator exited during start-up: " + self.read_log())
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as r:
                    if r.read().decode().strip().startswith("Ok"):
                        return base
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError("official emulator did not answer in time: " + self.read_log())

    def read_log(self):
        if not self.log:
            return ""
        self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as fh:
            return fh.read()[-4000:]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # the JVM child may outlive the gcloud wrapper: the group kill covers it
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if self.log is not None:
            self.log.close()
            try:
                os.unlink(self.log.name)
            except OSError:
                pass
            self.log = None


def gcloud_available():
    return shutil.which("gcloud") is not None
