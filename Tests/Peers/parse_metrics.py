#!/usr/bin/env python3
"""Parses a Prometheus text exposition with `prometheus_client`'s own parser (PyPI, the reference client), an
independent reader of Ringer's `GET /metrics`. Reads the text from FILE; prints one JSON object: each family's name
(as the parser names it: a counter without its `_total`), its type, and its samples as [name, labels, value]. Exits 1
with the parser's error when the text does not parse.

Usage: parse_metrics.py FILE"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    families = {
        family.name: {"type": family.type,
                      "samples": [[sample.name, sample.labels, sample.value] for sample in family.samples]}
        for family in text_string_to_metric_families(open(sys.argv[1]).read())
    }
except Exception as error:  # the parser raises ValueError and others on a malformed line
    sys.exit(f"does not parse: {error}")
print(json.dumps(families))
