#!/usr/bin/env python3
"""Cross-checks what kubernetes-validate cannot: the resources of operators'
CRDs (KEDA's ScaledObjects, the Prometheus Operator's ServiceMonitor,
Strimzi's KafkaUsers) against the Deployments and Jobs they name, and every
worker Deployment against the "restricted" Pod Security Standard and its own
probes and ports.

Kafka identities (SECURITY.md, attack 59): every Deployment and Job
authenticates as its own Kafka user (KAFKA_SASL_USERNAME), a KafkaUser of
strimzi/kafka-users.yaml, with the password file from the Secret of that
user's name, which no other workload mounts; no Secret named
kafka-credentials (the one credential every pod shared) is left; a
Deployment's consumer group (INTENT_*_GROUP) is the one group its user may
Read (join and commit), and no other user may Read it; KEDA's
TriggerAuthentication is a user of its own that only describes.

    check_deploy_manifests.py --input intent-resolve=intents.requested ... [--kubernetes deploy/kubernetes]

--input names each worker's input topic (the caller takes them from the code,
so the manifests are checked against what the workers really consume).
Prints one line per problem and exits 1 if there is any; prints a summary and
exits 0 otherwise.
"""

import argparse
import pathlib
import sys

import yaml


def load(directory):
    documents = []
    for path in sorted(directory.rglob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                documents.append((path.relative_to(directory), document))
    return documents


def by_kind(documents, kind):
    return {document["metadata"]["name"]: (path, document) for path, document in documents if document["kind"] == kind}


def environment(container):
    return {variable["name"]: variable.get("value") for variable in container.get("env", [])}


def check_restricted(name, pod, container, problems):
    """The "restricted" Pod Security Standard, as the admission controller applies it."""
    pod_security = pod.get("securityContext", {})
    security = container.get("securityContext", {})
    if not (security.get("runAsNonRoot") or pod_security.get("runAsNonRoot")):
        problems.append(f"{name}: runAsNonRoot is not set")
    user = security.get("runAsUser", pod_security.get("runAsUser"))
    if not isinstance(user, int) or user == 0:
        problems.append(f"{name}: runAsUser must be a numeric non-root uid (got {user!r})")
    if security.get("allowPrivilegeEscalation") is not False:
        problems.append(f"{name}: allowPrivilegeEscalation must be false")
    if security.get("readOnlyRootFilesystem") is not True:
        problems.append(f"{name}: readOnlyRootFilesystem must be true")
    if security.get("capabilities", {}).get("drop") != ["ALL"]:
        problems.append(f"{name}: capabilities must drop ALL")
    seccomp = security.get("seccompProfile", pod_security.get("seccompProfile", {}))
    if seccomp.get("type") not in ("RuntimeDefault", "Localhost"):
        problems.append(f"{name}: seccompProfile must be RuntimeDefault")
    if pod.get("automountServiceAccountToken") is not False:
        problems.append(f"{name}: automountServiceAccountToken should be false (nothing uses the API)")


KAFKA_PASSWORD_FILE = "/etc/kafka-credentials/password"


def secret_names(pod):
    """Every Secret a pod uses: volumes (plain and projected) and environment references."""
    names = []
    for volume in pod.get("volumes", []):
        if "secret" in volume:
            names.append(volume["secret"]["secretName"])
        names += [source["secret"]["name"] for source in volume.get("projected", {}).get("sources", []) if "secret" in source]
    for container in pod.get("containers", []):
        names += [source["secretRef"]["name"] for source in container.get("envFrom", []) if "secretRef" in source]
        names += [
            variable["valueFrom"]["secretKeyRef"]["name"]
            for variable in container.get("env", [])
            if "secretKeyRef" in variable.get("valueFrom", {})
        ]
    return names


def kafka_secret(pod, password_file):
    """The Secret whose volume holds the container's Kafka password file, if any."""
    container = pod["containers"][0]
    mounts = {mount["name"]: mount["mountPath"].rstrip("/") for mount in container.get("volumeMounts", [])}
    for volume in pod.get("volumes", []):
        mount = mounts.get(volume["name"])
        if mount and password_file and password_file.startswith(mount + "/") and "secret" in volume:
            return volume["secret"]["secretName"]
    return None


def acls_of(user):
    return user.get("spec", {}).get("authorization", {}).get("acls", [])


def read_groups(user):
    """Groups a KafkaUser may Read (join and commit offsets for), as (name, patternType)."""
    return [
        (acl["resource"]["name"], acl["resource"].get("patternType", "literal"))
        for acl in acls_of(user)
        if acl["resource"]["type"] == "group" and "Read" in acl.get("operations", [])
    ]


def check_kafka_users(deployments, jobs, users, config_maps, trigger_auths, scaled_objects, problems):
    workloads = {f"Deployment {name}": document for name, (path, document) in deployments.items()}
    workloads.update({f"Job {name}": document for name, (path, document) in jobs.items()})
    owners = {}  # Kafka secret -> the workload that mounts it
    for name, document in sorted(workloads.items()):
        pod = document["spec"]["template"]["spec"]
        if "kafka-credentials" in secret_names(pod):
            problems.append(f"{name}: uses the shared Secret kafka-credentials, not its own Kafka user's")
        variables = environment(pod["containers"][0])
        user = variables.get("KAFKA_SASL_USERNAME")
        if not user:
            problems.append(f"{name}: no KAFKA_SASL_USERNAME (its own Kafka user)")
            continue
        password_file = variables.get("KAFKA_SASL_PASSWORD_FILE")
        if password_file != KAFKA_PASSWORD_FILE:
            problems.append(f"{name}: KAFKA_SASL_PASSWORD_FILE is {password_file}, not {KAFKA_PASSWORD_FILE}")
        secret = kafka_secret(pod, password_file)
        if secret != user:
            problems.append(f"{name}: mounts Kafka secret {secret}, not its own user's {user}")
        if secret in owners:
            problems.append(f"{name}: shares Kafka secret {secret} with {owners[secret]}")
        owners.setdefault(secret, name)
        if user not in users:
            problems.append(f"{name}: Kafka user {user} is no KafkaUser of strimzi/kafka-users.yaml")
            continue
        group = next((value for key, value in variables.items() if key.startswith("INTENT_") and key.endswith("_GROUP")), None)
        groups = read_groups(users[user][1])
        expected = [(group, "literal")] if group else []
        if groups != expected:
            problems.append(
                f"{name}: KafkaUser {user} may Read groups {groups}, not exactly its own group {group}"
            )
    readers = {}
    for name, (path, user) in users.items():
        for group in read_groups(user):
            readers.setdefault(group, []).append(name)
    for group, names in sorted(readers.items()):
        if len(names) > 1:
            problems.append(f"group {group[0]} may be Read (joined, committed) by {len(names)} users: {sorted(names)}")

    for name, (path, authentication) in trigger_auths.items():
        spec = authentication["spec"]
        passwords = [ref["name"] for ref in spec.get("secretTargetRef", []) if ref["parameter"] == "password"]
        usernames = [
            config_maps.get(ref["name"], (None, {}))[1].get("data", {}).get(ref["key"])
            for ref in spec.get("configMapTargetRef", [])
            if ref["parameter"] == "username"
        ]
        if len(passwords) != 1 or usernames != passwords:
            problems.append(f"TriggerAuthentication {name}: user {usernames} and password Secret {passwords} differ")
            continue
        keda = passwords[0]
        if keda in owners:
            problems.append(f"TriggerAuthentication {name}: KEDA uses Kafka secret {keda}, {owners[keda]}'s")
        if keda not in users:
            problems.append(f"TriggerAuthentication {name}: {keda} is no KafkaUser of strimzi/kafka-users.yaml")
            continue
        acls = acls_of(users[keda][1])
        if any(set(acl.get("operations", [])) - {"Describe"} for acl in acls):
            problems.append(f"TriggerAuthentication {name}: KafkaUser {keda} may do more than Describe")
        described = {(acl["resource"]["type"], acl["resource"]["name"]) for acl in acls}
        for scaled_name, (scaled_path, scaled) in scaled_objects.items():
            for trigger in scaled["spec"].get("triggers", []):
                if trigger["type"] != "kafka":
                    continue
                metadata = trigger["metadata"]
                for kind, resource in (("group", metadata.get("consumerGroup")), ("topic", metadata.get("topic"))):
                    if (kind, resource) not in described:
                        problems.append(f"ScaledObject {scaled_name}: KafkaUser {keda} cannot describe {kind} {resource}")


def check_worker(name, deployment, input_topic, scaled_objects, budgets, services, partitions, problems):
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    variables = environment(container)
    check_restricted(name, pod, container, problems)
    ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
    http_port = variables.get("INTENT_HTTP_PORT")
    if "metrics" not in ports or str(ports["metrics"]) != http_port:
        problems.append(f"{name}: container port 'metrics' ({ports.get('metrics')}) is not INTENT_HTTP_PORT ({http_port})")
    for probe, path in (("livenessProbe", "/health"), ("readinessProbe", "/ready")):
        get = container.get(probe, {}).get("httpGet", {})
        if get.get("path") != path or get.get("port") not in ("metrics", ports.get("metrics")):
            problems.append(f"{name}: {probe} should GET {path} on the metrics port (got {get})")
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    if annotations.get("prometheus.io/scrape") != "true" or annotations.get("prometheus.io/port") != http_port:
        problems.append(f"{name}: prometheus.io annotations do not point at port {http_port}")
    group = next((value for key, value in variables.items() if key.startswith("INTENT_") and key.endswith("_GROUP")), None)
    component = deployment["spec"]["selector"]["matchLabels"]

    scaled = scaled_objects.get(name)
    if scaled is None:
        problems.append(f"{name}: no KEDA ScaledObject")
    else:
        spec = scaled[1]["spec"]
        if spec["scaleTargetRef"]["name"] != name:
            problems.append(f"ScaledObject {name}: scales {spec['scaleTargetRef']['name']}")
        replicas = deployment["spec"].get("replicas", 1)
        if spec.get("minReplicaCount", 0) != replicas:
            problems.append(
                f"ScaledObject {name}: minReplicaCount {spec.get('minReplicaCount', 0)} is not the Deployment's replicas {replicas}"
            )
        if spec.get("maxReplicaCount", 100) > partitions:
            problems.append(f"ScaledObject {name}: maxReplicaCount {spec.get('maxReplicaCount')} > {partitions} partitions")
        kafka = [trigger for trigger in spec.get("triggers", []) if trigger["type"] == "kafka"]
        if len(kafka) != 1:
            problems.append(f"ScaledObject {name}: needs exactly one kafka trigger")
        else:
            metadata = kafka[0]["metadata"]
            if metadata.get("consumerGroup") != group:
                problems.append(f"ScaledObject {name}: consumerGroup {metadata.get('consumerGroup')} is not the worker's {group}")
            if metadata.get("topic") != input_topic:
                problems.append(f"ScaledObject {name}: topic {metadata.get('topic')} is not the worker's input {input_topic}")

    budget = budgets.get(name)
    if budget is None or budget[1]["spec"].get("selector", {}).get("matchLabels") != component:
        problems.append(f"{name}: no PodDisruptionBudget selecting {component}")
    service = services.get(f"{name}-metrics")
    if service is None or service[1]["spec"].get("selector") != component:
        problems.append(f"{name}: no metrics Service selecting {component}")
    elif not any(port.get("name") == "metrics" for port in service[1]["spec"]["ports"]):
        problems.append(f"{name}-metrics: no port named metrics")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubernetes", default="deploy/kubernetes")
    parser.add_argument("--input", action="append", default=[], help="WORKER=TOPIC, once per worker")
    options = parser.parse_args()
    inputs = dict(item.split("=", 1) for item in options.input)
    documents = load(pathlib.Path(options.kubernetes))
    deployments = by_kind(documents, "Deployment")
    scaled_objects = by_kind(documents, "ScaledObject")
    budgets = by_kind(documents, "PodDisruptionBudget")
    services = by_kind(documents, "Service")
    users = by_kind(documents, "KafkaUser")
    problems = []

    jobs = by_kind(documents, "Job")
    arguments = jobs.get("provision-topics", (None, {}))[1]
    arguments = arguments.get("spec", {}).get("template", {}).get("spec", {}).get("containers", [{}])[0].get("args", [])
    partitions = int(arguments[arguments.index("--partitions") + 1]) if "--partitions" in arguments else 0
    if partitions <= 0:
        problems.append("the topics Job (provision-topics) does not say --partitions")

    if not inputs:
        problems.append("no --input WORKER=TOPIC given")
    for name, topic in sorted(inputs.items()):
        if name not in deployments:
            problems.append(f"{name}: no Deployment")
            continue
        check_worker(name, deployments[name][1], topic, scaled_objects, budgets, services, partitions, problems)
    for name, (path, deployment) in deployments.items():
        if name not in inputs:
            pod = deployment["spec"]["template"]["spec"]
            check_restricted(name, pod, pod["containers"][0], problems)
    for name, (path, job) in jobs.items():
        pod = job["spec"]["template"]["spec"]
        check_restricted(f"Job {name}", pod, pod["containers"][0], problems)

    if not users:
        problems.append("no KafkaUser (strimzi/kafka-users.yaml)")
    check_kafka_users(
        deployments, jobs, users, by_kind(documents, "ConfigMap"), by_kind(documents, "TriggerAuthentication"),
        scaled_objects, problems,
    )

    monitors = by_kind(documents, "ServiceMonitor")
    if not monitors:
        problems.append("no ServiceMonitor")
    for name, (path, monitor) in monitors.items():
        selector = monitor["spec"]["selector"].get("matchLabels", {})
        selected = [
            service for service in services.values()
            if all(service[1]["metadata"].get("labels", {}).get(key) == value for key, value in selector.items())
        ]
        port_names = {port.get("name") for service in selected for port in service[1]["spec"]["ports"]}
        for endpoint in monitor["spec"]["endpoints"]:
            if endpoint["port"] not in port_names:
                problems.append(f"ServiceMonitor {name}: no selected Service has a port named {endpoint['port']}")
        for worker in inputs:
            if f"{worker}-metrics" not in {service[1]["metadata"]["name"] for service in selected}:
                problems.append(f"ServiceMonitor {name}: does not select {worker}-metrics")

    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(
        f"ok: {len(inputs)} workers, {len(scaled_objects)} ScaledObjects, {len(budgets)} PodDisruptionBudgets, "
        f"{len(monitors)} ServiceMonitor(s), {partitions} partitions, {len(users)} Kafka users"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
