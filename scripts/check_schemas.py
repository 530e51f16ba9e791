#!/usr/bin/env python3
"""Checks the event schemas and, optionally, events against them.

Every *.json file under SCHEMA_DIR must be a valid draft 2020-12 JSON Schema
with a unique $id. Each --event file must validate against the envelope schema,
and its `data` against the schema its `dataschema` attribute names.

Prints one JSON object per checked file and a summary; exits 1 on any failure.
Used by the Swift tests (IntentEventsTests) so that code and schemas cannot drift.
"""
import argparse
import json
import pathlib
import sys

from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource

ENVELOPE_ID = "urn:intent-pipeline:schema:envelope:v1"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("schema_dir", type=pathlib.Path)
    parser.add_argument("--event", action="append", default=[], type=pathlib.Path, help="an event file to validate")
    args = parser.parse_args()

    failures = 0
    schemas = {}
    for path in sorted(args.schema_dir.rglob("*.json")):
        try:
            schema = json.loads(path.read_text(encoding="utf-8"))
            Draft202012Validator.check_schema(schema)
            schema_id = schema.get("$id")
            if not schema_id:
                raise ValueError("schema has no $id")
            if schema_id in schemas:
                raise ValueError(f"duplicate $id {schema_id}")
            schemas[schema_id] = schema
            report(kind="schema", file=str(path), ok=True, id=schema_id)
        except Exception as error:  # report every kind of failure as data
            failures += 1
            report(kind="schema", file=str(path), ok=False, error=str(error))

    registry = Registry().with_resources(
        (schema_id, Resource.from_contents(schema)) for schema_id, schema in schemas.items()
    )

    def errors_for(instance, schema_id):
        validator = Draft202012Validator(
            schemas[schema_id], registry=registry, format_checker=FormatChecker()
        )
        return [
            f"{error.json_path}: {error.message}"
            for error in sorted(validator.iter_errors(instance), key=lambda e: e.json_path)
        ]

    for path in args.event:
        try:
            event = json.loads(path.read_text(encoding="utf-8"))
            errors = errors_for(event, ENVELOPE_ID) if ENVELOPE_ID in schemas else ["envelope schema missing"]
            data_schema = event.get("dataschema") if isinstance(event, dict) else None
            if data_schema is not None:
                if data_schema in schemas:
                    errors += [f"data{e[1:]}" for e in errors_for(event.get("data"), data_schema)]
                else:
                    errors.append(f"no schema with $id {data_schema}")
            if errors:
                failures += 1
            report(kind="event", file=str(path), ok=not errors, errors=errors)
        except Exception as error:
            failures += 1
            report(kind="event", file=str(path), ok=False, errors=[str(error)])

    report(kind="summary", schemas=len(schemas), events=len(args.event), failures=failures)
    return 1 if failures else 0


def report(**fields):
    print(json.dumps(fields, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    sys.exit(main())
