#!/usr/bin/env python3
"""Prints the operations an OpenAPI 3 document lists, one JSON array of "METHOD /path/{template}" strings,
sorted, read with PyYAML (an independent reader of the spec, not Ringer's).

A path item key that is neither an operation (OpenAPI 3.1 §4.8.9: get, put, post, delete, options, head, patch,
trace) nor one of the item's other fields (summary, description, servers, parameters, $ref) is an error, so a
misspelt method cannot drop an operation from the comparison unnoticed.

Usage: openapi_operations.py SPEC"""
import json
import sys

import yaml

OPERATIONS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
OTHER_FIELDS = {"summary", "description", "servers", "parameters", "$ref"}

spec = yaml.safe_load(open(sys.argv[1]))
operations = []
for template, item in (spec.get("paths") or {}).items():
    for key in item:
        if key in OPERATIONS:
            operations.append(f"{key.upper()} {template}")
        elif key not in OTHER_FIELDS:
            sys.exit(f"{template}: {key!r} is neither an operation nor a path item field")
print(json.dumps(sorted(operations)))
