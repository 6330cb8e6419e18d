"""The sample project (fixtures/sample-project: firebase.json, .firebaserc, rules, indexes) run as
a developer runs it: `hearth start` from its folder answers on every port firebase.json configures,
and `hearth exec -- python -m pytest …` runs the project's own test, which finds every service
through the environment alone, and exits with that test's status. Each test works on a copy of
the project whose ports are rewritten to free ones."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import ROOT, _free_port as free_port, hearth_binary

SAMPLE = os.path.join(ROOT, "fixtures", "sample-project")
SERVICES = ["firestore", "auth", "database", "storage", "hub"]
# Variables the session's other tests set; exec must set them itself.
EMULATOR_VARIABLES = ["FIRESTORE_EMULATOR_HOST", "FIREBASE_FIRESTORE_EMULATOR_ADDRESS", "FIREBASE_AUTH_EMULATOR_HOST",
                      "FIREBASE_DATABASE_EMULATOR_HOST", "FIREBASE_STORAGE_EMULATOR_HOST", "STORAGE_EMULATOR_HOST",
                      "FIREBASE_EMULATOR_HUB", "GCLOUD_PROJECT", "GOOGLE_CLOUD_PROJECT"]


@pytest.fixture
def project(tmp_path):
    """A copy of the sample project with free ports; returns (folder, {service: port})."""
    folder = tmp_path / "sample-project"
    shutil.copytree(SAMPLE, folder)
    config_path = folder / "firebase.json"
    config = json.loads(config_path.read_text())
    ports = {name: free_port() for name in SERVICES}
    for name, port in ports.items():
        config["emulators"][name]["port"] = port
    config_path.write_text(json.dumps(config, indent=2))
    return folder, ports


def clean_environment(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in EMULATOR_VARIABLES}
    env["TMPDIR"] = str(tmp_path)  # where the hub's locator file goes
    return env


def answers(port):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def test_start_from_the_project_folder_serves_every_configured_port(project, tmp_path):
    folder, ports = project
    log = open(tmp_path / "hearth.log", "w+")
    proc = subprocess.Popen([hearth_binary(), "start"], cwd=folder, env=clean_environment(tmp_path),
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while not all(answers(port) for port in ports.values()):
            assert proc.poll() is None, open(tmp_path / "hearth.log").read()
            assert time.monotonic() < deadline, "not every port answered: " + open(tmp_path / "hearth.log").read()
            time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['hub']}/emulators", timeout=5) as r:
            listed = json.load(r)
        assert {name: listed[name]["port"] for name in SERVICES} == ports
        locator = json.loads((tmp_path / "hub-demo-sample.json").read_text())
        assert locator["origins"] == [f"http://127.0.0.1:{ports['hub']}"]
        assert locator["pid"] == proc.pid
        # The rules firebase.json names are in force: an unauthenticated read is refused.
        url = f"http://127.0.0.1:{ports['firestore']}/v1/projects/demo-sample/databases/(default)/documents/users/ada"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=5)
        assert refused.value.code == 403
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)
    output = open(tmp_path / "hearth.log").read()
    # What firebase.json asks for that Hearth does not run is named, not dropped.
    assert "Hearth has no Hosting emulator" in output
    assert "Hearth has no Emulator UI" in output
    assert not (tmp_path / "hub-demo-sample.json").exists()
    assert (folder / ".hearth").is_dir()  # the default data directory, in the project folder


def test_exec_runs_the_projects_tests_against_every_service_and_returns_their_status(project, tmp_path):
    folder, ports = project
    done = subprocess.run([hearth_binary(), "exec", "--ephemeral", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/test_services.py"], cwd=folder, env=clean_environment(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 passed" in done.stdout
    assert not any(answers(port) for port in ports.values()), "exec left a port open"


@pytest.mark.parametrize("command,status", [
    (["sh", "-c", "exit 7"], 7),
    (["sh", "-c", "kill -TERM $$"], 128 + signal.SIGTERM),
    (["sh", "-c", 'test "$FIRESTORE_EMULATOR_HOST" = "127.0.0.1:$FIRESTORE_PORT"'], 0),
])
def test_exec_exits_with_the_commands_status(project, tmp_path, command, status):
    folder, ports = project
    env = clean_environment(tmp_path)
    env["FIRESTORE_PORT"] = str(ports["firestore"])
    done = subprocess.run([hearth_binary(), "exec", "--ephemeral", "--", *command], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == status, done.stderr


def test_exec_passes_a_signal_on_to_the_command_and_stops(project, tmp_path):
    folder, ports = project
    marker = tmp_path / "got-term"
    script = f"trap 'touch {marker}; exit 3' TERM; while true; do sleep 0.1; done"
    proc = subprocess.Popen([hearth_binary(), "exec", "--ephemeral", "--", "sh", "-c", script], cwd=folder,
                            env=clean_environment(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not answers(ports["hub"]):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "hub not up"
        time.sleep(0.1)
    time.sleep(0.5)  # the command is started once every port is bound
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 3
    assert marker.exists()


def test_a_malformed_firebase_json_is_an_error_naming_the_line(tmp_path):
    (tmp_path / "firebase.json").write_text('{\n  "emulators": {\n    "firestore": {"port": 8080,}\n  }\n}\n')
    done = subprocess.run([hearth_binary(), "start", "--ephemeral"], cwd=tmp_path, env=clean_environment(tmp_path),
                          capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert "firebase.json:3:32: error: not JSON" in done.stderr, done.stderr


OPEN_FIRESTORE = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{doc=**} { allow read, write: if true; } } }"
CLOSED_FIRESTORE = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{doc=**} { allow read, write: if false; } } }"
OPEN_STORAGE = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if true; } } }"
CLOSED_STORAGE = "rules_version = '2'; service firebase.storage { match /b/{bucket}/o { match /{all=**} { allow read, write: if false; } } }"


def test_lists_give_each_database_instance_and_bucket_its_rules_and_flags_replace_the_file(tmp_path):
    folder = tmp_path / "lists"
    folder.mkdir()
    for name, text in [("open.rules", OPEN_FIRESTORE), ("closed.rules", CLOSED_FIRESTORE), ("open-storage.rules", OPEN_STORAGE),
                       ("closed-storage.rules", CLOSED_STORAGE), ("open.json", '{"rules": {".read": true, ".write": true}}'),
                       ("closed.json", '{"rules": {".read": false, ".write": false}}')]:
        (folder / name).write_text(text)
    ports = {name: free_port() for name in ["firestore", "database", "storage", "hub"]}
    flag_port = free_port()
    (folder / "firebase.json").write_text(json.dumps({
        "firestore": [{"database": "(default)", "rules": "open.rules"}, {"database": "locked", "rules": "closed.rules"}],
        "database": [{"instance": "locked-ns", "rules": "closed.json"}, {"rules": "open.json"}],
        "storage": [{"bucket": "locked-bucket", "rules": "closed-storage.rules"}, {"bucket": "open-bucket", "rules": "open-storage.rules"}],
        "emulators": {name: {"port": port} for name, port in ports.items()},
    }))
    log = open(tmp_path / "hearth.log", "w+")
    proc = subprocess.Popen([hearth_binary(), "start", "--ephemeral", "--project", "demo-lists", "--port", str(flag_port)], cwd=folder,
                            env=clean_environment(tmp_path), stdout=log, stderr=subprocess.STDOUT)
    try:
        served = [flag_port, ports["database"], ports["storage"], ports["hub"]]
        deadline = time.monotonic() + 30
        while not all(answers(port) for port in served):
            assert proc.poll() is None and time.monotonic() < deadline, open(tmp_path / "hearth.log").read()
            time.sleep(0.1)
        # --port replaced the file's Firestore port; the file's Auth emulator is not named, so it is off.
        assert not answers(ports["firestore"])
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['hub']}/emulators", timeout=5) as r:
            listed = json.load(r)
        assert set(listed) == {"hub", "firestore", "database", "storage"} and listed["firestore"]["port"] == flag_port

        def status(url, method="GET", body=None):
            req = urllib.request.Request(url, method=method, data=body)
            try:
                with urllib.request.urlopen(req, timeout=5) as r:
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code

        documents = f"http://127.0.0.1:{flag_port}/v1/projects/demo-lists/databases/%s/documents/things/a"
        assert status(documents % "(default)") == 404  # allowed, and missing
        assert status(documents % "locked") == 403
        database = f"http://127.0.0.1:{ports['database']}/x.json?ns=%s"
        assert status(database % "locked-ns") == 401
        assert status(database % "any-other-ns") == 200
        upload = f"http://127.0.0.1:{ports['storage']}/v0/b/%s/o?name=f.txt"
        assert status(upload % "open-bucket", "POST", b"x") == 200
        assert status(upload % "locked-bucket", "POST", b"x") == 403
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


@pytest.mark.parametrize("option, service, alternative", [
    ("--port", "Firestore", ""),
    ("--auth-port", "The Auth emulator", ", or 0 to turn Auth off"),
    ("--database-port", "The Realtime Database", ""),
    ("--storage-port", "Storage", ""),
    ("--hub-port", "The emulator hub", ""),
])
def test_a_port_asked_for_that_is_taken_is_named_with_its_option(option, service, alternative, tmp_path):
    """A busy port given on the command line ends `hearth start` with status 1 and one line naming
    the service, the address and the option that chooses another (not the socket call's error)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", free_port()))
        held.listen()
        taken = held.getsockname()[1]
        ports = {"--port": 0, "--auth-port": 0, "--database-port": 0, "--storage-port": 0, "--hub-port": 0}
        ports["--port"] = free_port()
        ports[option] = taken
        args = [hearth_binary(), "start", "--ephemeral"] + [str(x) for pair in ports.items() for x in pair]
        result = subprocess.run(args, capture_output=True, text=True, timeout=60, env=clean_environment(tmp_path))
    assert result.returncode == 1, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: {service} cannot listen on 127.0.0.1:{taken}: the port is in use (another emulator or program "
                      f"holds it). Choose another port with {option} PORT{alternative}."], result.stderr


@pytest.mark.parametrize("option, default, message", [
    ("--storage-port", 9199, "hearth: Storage is off: cannot listen on 127.0.0.1:9199: the port is in use"),
    ("--database-port", 9000, "hearth: the Realtime Database is off: cannot listen on 127.0.0.1:9000: the port is in use"),
    ("--hub-port", 4400, "hearth: the emulator hub is off: cannot listen on 127.0.0.1:4400: the port is in use"),
    ("--auth-port", 9099, "hearth: port 9099 is in use, so the Auth emulator is off"),
])
def test_a_taken_default_port_turns_its_service_off_and_the_rest_keep_running(option, default, message, tmp_path):
    """A service left on its default port, which another program holds, is off with a warning; the
    server goes on serving the others (it once ended, with status 0, when Storage's was taken)."""
    held = socket.socket()
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            held.bind(("127.0.0.1", default))
            held.listen()
        except OSError:
            pass  # something else holds it already: taken either way
        others = [x for o in ["--auth-port", "--database-port", "--storage-port", "--hub-port"] if o != option for x in (o, "0")]
        port = free_port()
        log = open(tmp_path / "hearth.log", "w+")
        proc = subprocess.Popen([hearth_binary(), "start", "--ephemeral", "--port", str(port), *others],
                                stdout=log, stderr=subprocess.STDOUT, env=clean_environment(tmp_path))
        try:
            deadline = time.time() + 30
            while not answers(port):
                assert proc.poll() is None and time.time() < deadline, open(log.name).read()
                time.sleep(0.05)
            deadline = time.time() + 10
            while message not in open(log.name).read():
                assert time.time() < deadline, open(log.name).read()
                time.sleep(0.05)
            time.sleep(1)
            assert proc.poll() is None, open(log.name).read()
            assert answers(port)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    finally:
        held.close()
