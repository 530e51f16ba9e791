#!/usr/bin/env python3
"""Runs each worker exactly as its Deployment in deploy/kubernetes says, on
this machine, against a local broker, and checks what the kubelet would:
the readiness probe, the metrics endpoint, and a SIGTERM that ends in exit 0
within terminationGracePeriodSeconds.

    manifest_smoke.py --bootstrap HOST:PORT --topic-prefix PREFIX --bin-dir DIR
        [--kubernetes deploy/kubernetes] [--readme deploy/README.md]
        [--workers intent-resolve,intent-confirm,...] [--ready-timeout 90]
        [--expect-metric [WORKER:]NAME ...] [--metrics-timeout 30]

What "exactly" means here:
- the container's `command` (the executable's name looked up in --bin-dir);
- its environment: every `envFrom` ConfigMap of deploy/kubernetes in order,
  then its `env`; a value that is a path under a volume's mountPath is moved
  under a temporary root (this machine has no /etc/stage-keys);
- its volumes: the Secrets that deploy/README.md's steps create (followed
  with a recording kubectl, as check_deploy_readme.py does, and the real
  `intentctl keys generate`), written as the files the kubelet would mount
  (`items`, `projected` sources, `defaultMode`, group = fsGroup, owner root);
- its user: runAsUser/runAsGroup with fsGroup as the supplementary group
  (when this runs as root; otherwise the current user, and it says so);
- the probes' paths and port as the Deployment names them.

Changed on purpose, and only this: KAFKA_BOOTSTRAP_SERVERS and the security
settings point at the local broker (plaintext, no SASL), INTENT_TOPIC_PREFIX
is --topic-prefix (topics made by the caller), and the HTTP ports are free
ones (several workers share this machine's loopback), and
KAFKA_SESSION_TIMEOUT_MS is --session-timeout-ms (default 6000) unless set
(group joins in seconds, as in every test here). The workers start all at
once, as a rollout starts them; their results are printed in --workers order. A PersistentVolumeClaim is a fresh directory of the pod's
fsGroup, as a newly bound volume is.

--expect-metric NAME applies to every worker; WORKER:NAME to that one only
(intent-appstate has no stage metrics).

Prints one JSON object per worker and a last line {"workers": N, "problems": [...]};
exits 1 if there is any problem.
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from check_deploy_readme import option_values, run_steps, shell_block  # noqa: E402

WORKERS = ["intent-resolve", "intent-confirm", "intent-payments", "intent-handle", "intent-appstate"]
# Security settings a real cluster needs and a plaintext local broker refuses.
SECURITY_VARIABLES = {"KAFKA_SECURITY_PROTOCOL", "KAFKA_SASL_MECHANISM", "KAFKA_SSL_CA_LOCATION", "KAFKA_SASL_USERNAME"}
SECURITY_FILE_VARIABLES = {"KAFKA_SASL_USERNAME_FILE", "KAFKA_SASL_PASSWORD_FILE"}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# What the operator supplies where the README writes "…": valid values of each kind.
OPERATOR_SUPPLIED = {
    "password": b"not-used-by-a-plaintext-broker",
    "ca.crt": b"-----BEGIN CERTIFICATE-----\nnot used by a plaintext broker\n-----END CERTIFICATE-----\n",
    "source-keys": b"/voice/smoke " + os.urandom(32).hex().encode() + b"\n",
    "binding-key": os.urandom(32).hex().encode() + b"\n",
    "app-key": os.urandom(32).hex().encode() + b"\n",
    "view-keys": b"/views/contacts/smoke " + os.urandom(32).hex().encode() + b"\n",
}


def recorded_secrets(steps, workdir):
    """{secret name: {key: bytes}} from the README's `kubectl create secret generic` steps
    (OPERATOR_SUPPLIED where the README leaves the value to the operator)."""
    secrets = {}
    for step in steps:
        tool, arguments = step[0], step[1:]
        if tool != "kubectl" or "create" not in arguments or "generic" not in arguments:
            continue
        name = arguments[arguments.index("generic") + 1]
        data = {}
        for value in option_values(arguments, "--from-literal"):
            key, literal = value.split("=", 1)
            data[key] = OPERATOR_SUPPLIED[key] if literal == "…" else literal.encode()
        for value in option_values(arguments, "--from-file"):
            key, path = value.split("=", 1) if "=" in value else (os.path.basename(value), value)
            # "…" or "…/NAME": the operator's file (a workload's Kafka password).
            data[key] = OPERATOR_SUPPLIED[key] if path.startswith("…") else (workdir / path).read_bytes()
        secrets[name] = data
    return secrets


def documents(kubernetes):
    result = {}
    for path in sorted(kubernetes.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document and document.get("kind") in ("Deployment", "ConfigMap"):
                result[(document["kind"], document["metadata"]["name"])] = document
    return result


def write_secret_files(pod, container, secrets, root, group, fs_group_owner):
    """Writes every Secret volume the container mounts, as the kubelet would, and makes its
    emptyDir and claimed volumes; returns their mount paths."""
    mounts = {mount["name"]: mount["mountPath"] for mount in container.get("volumeMounts", [])}
    written = []
    for volume in pod.get("volumes", []):
        mount = mounts.get(volume["name"])
        if mount is None:
            continue
        directory = root / mount.lstrip("/")
        directory.mkdir(parents=True, exist_ok=True)
        sources = []
        if "secret" in volume:
            sources = [(volume["secret"]["secretName"], volume["secret"].get("items"), volume["secret"].get("defaultMode"))]
        elif "projected" in volume:
            mode = volume["projected"].get("defaultMode")
            sources = [
                (source["secret"]["name"], source["secret"].get("items"), mode)
                for source in volume["projected"]["sources"]
                if "secret" in source
            ]
        elif "emptyDir" in volume or "persistentVolumeClaim" in volume:
            if fs_group_owner:
                os.chown(directory, 0, group)
            directory.chmod(0o2775)
            written.append(mount)  # paths under it (the app state's database) move with it
            continue
        for name, items, mode in sources:
            data = secrets.get(name)
            if data is None:
                raise SystemExit(f"{volume['name']}: secret {name} is not created by deploy/README.md's steps")
            files = [(item["key"], item["path"]) for item in items] if items else [(key, key) for key in data]
            for key, path in files:
                target = directory / path
                target.write_bytes(data[key])
                # The kubelet's default is 0644; with fsGroup the group is fsGroup, owner root.
                target.chmod(mode if mode is not None else 0o644)
                if fs_group_owner:
                    os.chown(target, 0, group)
        written.append(mount)
    return written


def environment_of(container, config_maps, root, mounts, broker, prefix, port, session_timeout_ms):
    environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(root / "home")}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            environment.update(config_maps[source["configMapRef"]["name"]]["data"])
    for variable in container.get("env", []):
        if "value" in variable:
            environment[variable["name"]] = variable["value"]
    for name, value in list(environment.items()):
        if any(value == mount or value.startswith(mount.rstrip("/") + "/") for mount in mounts):
            environment[name] = str(root / value.lstrip("/"))
    for name in SECURITY_VARIABLES | SECURITY_FILE_VARIABLES:
        environment.pop(name, None)
    environment["KAFKA_BOOTSTRAP_SERVERS"] = broker
    environment["INTENT_TOPIC_PREFIX"] = prefix
    # Probes and metrics are on the operations port, the app state's API on a port of its own.
    environment["INTENT_HTTP_PORT"] = str(port)
    if pathlib.Path(container["command"][0]).name == "intent-appstate":
        environment["INTENT_APPSTATE_PORT"] = str(free_port())
    # As every test here: a short session timeout, so a group join takes seconds, not 45.
    environment.setdefault("KAFKA_SESSION_TIMEOUT_MS", str(session_timeout_ms))
    return environment


def get(url, timeout=2):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except OSError as error:
        return None, str(error)


def probe_path(container, probe):
    return container[probe]["httpGet"]["path"]


def smoke(name, deployment, config_maps, secrets, arguments, workdir):
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    security = pod.get("securityContext", {})
    uid, gid, fs_group = security.get("runAsUser"), security.get("runAsGroup"), security.get("fsGroup")
    as_root = os.geteuid() == 0
    root = workdir / name
    (root / "home").mkdir(parents=True)
    mounts = write_secret_files(pod, container, secrets, root, fs_group, as_root)
    if as_root:
        for directory in [workdir, root, root / "home"]:
            os.chown(directory, 0, fs_group)
            directory.chmod(0o750)
        os.chown(root / "home", uid, gid)
    port = free_port()
    environment = environment_of(
        container, config_maps, root, mounts, arguments.bootstrap, arguments.topic_prefix, port,
        arguments.session_timeout_ms,
    )
    command = list(container["command"])
    executable = pathlib.Path(arguments.bin_dir).resolve() / pathlib.Path(command[0]).name
    log = open(workdir / f"{name}.log", "wb")
    options = {}
    if as_root:
        options = {"user": uid, "group": gid, "extra_groups": [fs_group]}
    started = time.monotonic()
    process = subprocess.Popen(
        [str(executable)] + command[1:] + container.get("args", []),
        env=environment, cwd="/", stdout=log, stderr=subprocess.STDOUT, **options
    )
    result = {
        "worker": name,
        "uid": uid if as_root else os.geteuid(),
        "ran_as_deployment_user": as_root,
        "mounted": mounts,
    }
    problems = []
    base = f"http://127.0.0.1:{port}"
    ready_path, live_path = probe_path(container, "readinessProbe"), probe_path(container, "livenessProbe")
    status, body = None, ""
    while time.monotonic() - started < arguments.ready_timeout and process.poll() is None:
        status, body = get(base + ready_path)
        if status == 200:
            break
        time.sleep(0.2)  # polling an HTTP probe, as the kubelet does
    result["ready_status"] = status
    result["ready_after_s"] = round(time.monotonic() - started, 2)
    if status != 200:
        problems.append(f"{name}: {ready_path} answered {status} {body.strip()[:300]!r}")
    live_status, _ = get(base + live_path)
    result["live_status"] = live_status
    if live_status != 200:
        problems.append(f"{name}: {live_path} answered {live_status}")
    # librdkafka's statistics (lag, broker state) arrive every few seconds after the start:
    # scrape until the expected names are there, as Prometheus would on its next interval.
    expected = {
        metric.split(":", 1)[-1]
        for metric in arguments.expect_metric
        if ":" not in metric or metric.split(":", 1)[0] == name
    }
    names = set()
    metrics_status = None
    deadline = time.monotonic() + arguments.metrics_timeout
    while process.poll() is None:
        metrics_status, metrics = get(base + "/metrics")
        names = {line.split("{")[0].split(" ")[0] for line in metrics.splitlines() if line and not line.startswith("#")}
        if metrics_status == 200 and expected <= names or time.monotonic() > deadline:
            break
        time.sleep(0.5)  # a scrape interval, not synchronization: the endpoint is polled
    if "INTENT_APPSTATE_PORT" in environment:
        # The operator's endpoints are not on the public port.
        for path in ("/metrics", "/ready"):
            public_status, _ = get(f"http://127.0.0.1:{environment['INTENT_APPSTATE_PORT']}{path}")
            if public_status != 404:
                problems.append(f"{name}: the app port answers {path} with {public_status}, not 404")
    result["metrics_status"] = metrics_status
    result["metric_names"] = sorted(names)
    missing = sorted(expected - names)
    if missing:
        problems.append(f"{name}: /metrics lacks {missing} after {arguments.metrics_timeout} s")
    if metrics_status != 200:
        problems.append(f"{name}: /metrics answered {metrics_status}")
    grace = pod.get("terminationGracePeriodSeconds", 30)
    signalled = time.monotonic()
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        code = None
    result["exit_status"] = code
    result["stopped_after_s"] = round(time.monotonic() - signalled, 2)
    if code != 0:
        problems.append(f"{name}: exit status {code} after SIGTERM (grace {grace} s)")
    log.close()
    if problems:
        result["log_tail"] = (workdir / f"{name}.log").read_text(errors="replace")[-2000:]
    return result, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    project = pathlib.Path(__file__).resolve().parent.parent
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic-prefix", required=True)
    parser.add_argument("--bin-dir", required=True)
    parser.add_argument("--kubernetes", default=str(project / "deploy/kubernetes"))
    parser.add_argument("--readme", default=str(project / "deploy/README.md"))
    parser.add_argument("--workers", default=",".join(WORKERS))
    parser.add_argument("--ready-timeout", type=float, default=90)
    parser.add_argument("--metrics-timeout", type=float, default=30)
    parser.add_argument("--session-timeout-ms", type=int, default=6000)
    parser.add_argument(
        "--expect-metric", action="append", default=[], help="a metric name /metrics must show (repeatable)"
    )
    arguments = parser.parse_args()

    found = documents(pathlib.Path(arguments.kubernetes))
    config_maps = {name: document for (kind, name), document in found.items() if kind == "ConfigMap"}
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="manifest-smoke-"))
    problems = []
    try:
        readme_steps = workdir / "readme"
        readme_steps.mkdir()
        steps = run_steps(
            shell_block(pathlib.Path(arguments.readme)),
            str((pathlib.Path(arguments.bin_dir) / "intentctl").resolve()),
            readme_steps,
        )
        secrets = recorded_secrets(steps, readme_steps)
        workers = [name for name in arguments.workers.split(",") if name]
        deployed = [name for name in workers if ("Deployment", name) in found]
        problems += [f"{name}: no Deployment in {arguments.kubernetes}" for name in workers if name not in deployed]
        # All at once, as a rollout starts them: each waits on its own group join and probes.
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(deployed))) as pool:
            runs = [
                pool.submit(smoke, name, found[("Deployment", name)], config_maps, secrets, arguments, workdir)
                for name in deployed
            ]
            for run in runs:
                result, found_problems = run.result()
                problems += found_problems
                print(json.dumps(result), flush=True)
        print(json.dumps({"workers": len(workers), "problems": problems}))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
