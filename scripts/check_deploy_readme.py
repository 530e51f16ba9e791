#!/usr/bin/env python3
"""Follows deploy/README.md's commands step by step, as an operator would,
with kubectl and docker replaced by recorders, and checks that what they did
deploys: every manifest of the kustomization is applied, in an order where
its namespace and ConfigMaps come first; every Secret a manifest uses is
created before it, in the namespace it is used in, with every key it mounts.

    check_deploy_readme.py [--readme deploy/README.md] [--kubernetes deploy/kubernetes]
        [--intentctl PATH]

Prints one line per problem and exits 1 if there is any; exits 0 and prints
a summary otherwise. `intentctl keys generate` is run for real when
--intentctl is given (else a stand-in prints keys in its format).
"""

import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

RECORDER = """#!/usr/bin/env bash
printf '%s' "$(basename "$0")" >> "$RECORD"
for argument in "$@"; do printf '\\t%s' "$argument" >> "$RECORD"; done
printf '\\n' >> "$RECORD"
"""

STAND_IN_KEYS = """#!/usr/bin/env bash
if [ "$1 $2" = "keys generate" ]; then
  for source in /workers/resolve /workers/confirm /workers/payments /workers/handle /operators/ledger \
      /views/workers/resolve /views/workers/confirm /views/workers/payments /views/workers/handle /views/operators/ledger; do
    echo "$source 0123456789abcdef $(printf 'ab%.0s' $(seq 32))"
  done
else
  echo "stand-in intentctl: $*" >&2; exit 2
fi
"""


def shell_block(readme):
    blocks = re.findall(r"```sh\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    if not blocks:
        raise SystemExit(f"{readme}: no ```sh block with the deployment steps")
    return "\n".join(blocks)


def run_steps(script, intentctl, workdir):
    bin_dir = workdir / "bin"
    bin_dir.mkdir()
    for tool in ("kubectl", "docker"):
        (bin_dir / tool).write_text(RECORDER)
        (bin_dir / tool).chmod(0o755)
    if intentctl:
        (bin_dir / "intentctl").symlink_to(intentctl)
    else:
        (bin_dir / "intentctl").write_text(STAND_IN_KEYS)
        (bin_dir / "intentctl").chmod(0o755)
    record = workdir / "record"
    record.touch()
    environment = dict(os.environ, PATH=f"{bin_dir}:{os.environ.get('PATH', '')}", RECORD=str(record))
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], cwd=workdir, env=environment, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"the README's steps fail at exit {result.returncode}: {result.stderr.strip()}")
    return [line.split("\t") for line in record.read_text().splitlines()]


def option_values(arguments, name):
    """Values of `--name=X` / `--name X` / `-n X` style options, in order."""
    values, index = [], 0
    while index < len(arguments):
        argument = arguments[index]
        if argument.startswith(name + "="):
            values.append(argument[len(name) + 1 :])
        elif argument == name and index + 1 < len(arguments):
            values.append(arguments[index + 1])
            index += 1
        index += 1
    return values


def references(document):
    """(secret name, keys or None for all, ConfigMap names) a workload uses."""
    secrets, config_maps = [], []
    spec = document.get("spec", {})
    if document.get("kind") == "TriggerAuthentication":
        # KEDA reads these from the namespace: its own Kafka user's Secret and name, the CA.
        secrets += [(reference["name"], [reference["key"]]) for reference in spec.get("secretTargetRef", [])]
        config_maps += [reference["name"] for reference in spec.get("configMapTargetRef", [])]
        return secrets, config_maps
    pod = spec.get("template", {}).get("spec", {}) or spec.get("jobTemplate", {}).get("spec", {}).get(
        "template", {}
    ).get("spec", {})
    for container in pod.get("containers", []) + pod.get("initContainers", []):
        for source in container.get("envFrom", []):
            if "secretRef" in source:
                secrets.append((source["secretRef"]["name"], None))
            if "configMapRef" in source:
                config_maps.append(source["configMapRef"]["name"])
        for variable in container.get("env", []):
            reference = variable.get("valueFrom", {})
            if "secretKeyRef" in reference:
                secrets.append((reference["secretKeyRef"]["name"], [reference["secretKeyRef"]["key"]]))
            if "configMapKeyRef" in reference:
                config_maps.append(reference["configMapKeyRef"]["name"])
    # A file a variable names inside a whole-Secret volume must be one of its keys.
    mounts = {
        mount["name"]: mount["mountPath"].rstrip("/")
        for container in pod.get("containers", [])
        for mount in container.get("volumeMounts", [])
    }
    paths = [
        variable["value"]
        for container in pod.get("containers", [])
        for variable in container.get("env", [])
        if isinstance(variable.get("value"), str) and variable["value"].startswith("/")
    ]
    for volume in pod.get("volumes", []):
        if "secret" in volume:
            items = volume["secret"].get("items")
            keys = [item["key"] for item in items] if items else None
            mount = mounts.get(volume["name"])
            if keys is None and mount:
                named = [path[len(mount) + 1 :].split("/")[0] for path in paths if path.startswith(mount + "/")]
                keys = named or None
            secrets.append((volume["secret"]["secretName"], keys))
        if "configMap" in volume:
            config_maps.append(volume["configMap"]["name"])
        for source in volume.get("projected", {}).get("sources", []):
            if "secret" in source:
                items = source["secret"].get("items")
                secrets.append((source["secret"]["name"], [item["key"] for item in items] if items else None))
            if "configMap" in source:
                config_maps.append(source["configMap"]["name"])
    return secrets, config_maps


def check(steps, kubernetes, root):
    problems = []
    kustomization = yaml.safe_load((kubernetes / "kustomization.yaml").read_text())
    wanted = [str((kubernetes / name).resolve()) for name in kustomization["resources"]]
    namespaces = set()  # namespaces applied so far
    config_maps = set()  # (namespace, name) applied so far
    secrets = {}  # (namespace, name) -> keys created
    applied = []
    for step in steps:
        tool, arguments = step[0], step[1:]
        if tool != "kubectl":
            continue
        namespace = (option_values(arguments, "-n") or ["default"])[0]
        if arguments[-1:] and "create" in arguments and "secret" in arguments:
            name = arguments[arguments.index("generic") + 1] if "generic" in arguments else arguments[-1]
            keys = [value.split("=", 1)[0] for value in option_values(arguments, "--from-literal")]
            keys += [value.split("=", 1)[0] for value in option_values(arguments, "--from-file") if "=" in value]
            keys += [os.path.basename(value) for value in option_values(arguments, "--from-file") if "=" not in value]
            if not namespace or (namespace != "default" and namespace not in namespaces):
                problems.append(f"secret {name} is created in namespace {namespace} before that namespace exists")
            secrets[(namespace, name)] = set(keys)
        if "apply" in arguments:
            files = option_values(arguments, "-f")
            for directory in option_values(arguments, "-k"):
                listed = yaml.safe_load((root / directory / "kustomization.yaml").read_text())["resources"]
                files += [str(pathlib.Path(directory) / name) for name in listed]
            for file in files:
                path = (root / file).resolve()
                if not path.exists():
                    problems.append(f"kubectl apply -f {file}: no such file")
                    continue
                applied.append(str(path))
                for document in yaml.safe_load_all(path.read_text()):
                    if not document:
                        continue
                    kind, metadata = document.get("kind"), document.get("metadata", {})
                    if kind == "Namespace":
                        namespaces.add(metadata["name"])
                        continue
                    where = metadata.get("namespace", "default")
                    if where not in namespaces and where != "default":
                        problems.append(f"{file}: {kind} {metadata.get('name')} applied before namespace {where}")
                    if kind == "ConfigMap":
                        config_maps.add((where, metadata["name"]))
                    used_secrets, used_maps = references(document)
                    for name, keys in used_secrets:
                        created = secrets.get((where, name))
                        if created is None:
                            problems.append(
                                f"{file}: {kind} {metadata.get('name')} uses secret {name}, "
                                f"not created in namespace {where} before this step"
                            )
                        elif keys and not set(keys) <= created:
                            problems.append(
                                f"{file}: secret {name} lacks key(s) {sorted(set(keys) - created)} "
                                f"(created with {sorted(created)})"
                            )
                    for name in used_maps:
                        if (where, name) not in config_maps:
                            problems.append(f"{file}: uses ConfigMap {name}, not applied before this step")
    for file in wanted:
        if file not in applied:
            problems.append(f"{os.path.relpath(file, root)} is in the kustomization but no step applies it")
    return problems, applied, secrets


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--readme", default="deploy/README.md")
    parser.add_argument("--kubernetes", default="deploy/kubernetes")
    parser.add_argument("--intentctl")
    options = parser.parse_args()
    root = pathlib.Path.cwd()
    with tempfile.TemporaryDirectory() as directory:
        steps = run_steps(shell_block(pathlib.Path(options.readme)), options.intentctl, pathlib.Path(directory))
    # Paths in the README are relative to the checkout's root.
    problems, applied, secrets = check(steps, pathlib.Path(options.kubernetes).resolve(), root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"ok: {len(steps)} commands, {len(set(applied))} manifests applied, {len(secrets)} secrets created")
    return 0


if __name__ == "__main__":
    sys.exit(main())
