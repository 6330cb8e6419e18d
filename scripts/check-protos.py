#!/usr/bin/env python3
"""Check Hearth's Firestore .proto files against the published Firestore v1 schema.

Hearth writes its own .proto files (Sources/FirestoreWire/Protos). This script compiles them with
protoc and compares them, field by field, with the descriptors that the `google-cloud-firestore`
Python package registers at import time, and compares the `Firestore` service with the method
table of that package's gRPC transport (proto-plus packages carry no service descriptors).

Compared: every message of the packages google.firestore.v1, google.type (LatLng) and
google.rpc (Status) reachable from firestore.proto, with nested messages and enums; for each
field its number, name, label, type, referenced type, oneof and proto3 `optional`; map entries;
enum value names and numbers; for each RPC its request and response types and streaming shape.

Usage (needs protoc, e.g. Debian's protobuf-compiler, and the Python package):

    python3 -m venv /tmp/fsvenv && /tmp/fsvenv/bin/pip install google-cloud-firestore
    /tmp/fsvenv/bin/python scripts/check-protos.py

Exits 0 when the schemas agree, 1 with a list of differences otherwise.
"""

import importlib
import keyword
import os
import pkgutil
import re
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROTOS = os.path.join(ROOT, "Sources", "FirestoreWire", "Protos")
PACKAGES = ("google.firestore.v1", "google.type", "google.rpc")
FDP = descriptor_pb2.FieldDescriptorProto
TYPE_NAMES = {v: k[len("TYPE_"):] for k, v in FDP.Type.items()}
LABEL_NAMES = {v: k[len("LABEL_"):] for k, v in FDP.Label.items()}


# ---- Loading both schemas -------------------------------------------------------------------


def our_files():
    """Compiles Hearth's protos (with their imports) into FileDescriptorProtos."""
    sources = sorted(
        os.path.relpath(os.path.join(d, f), PROTOS)
        for d, _, files in os.walk(PROTOS)
        for f in files
        if f.endswith(".proto")
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "ours.pb")
        include = ["-I", PROTOS]
        for extra in ("/usr/include", "/usr/local/include"):
            if os.path.exists(os.path.join(extra, "google", "protobuf", "timestamp.proto")):
                include += ["-I", extra]
        subprocess.run(
            ["protoc", *include, "--include_imports", "--descriptor_set_out=" + out, *sources],
            check=True,
        )
        with open(out, "rb") as f:
            return list(descriptor_pb2.FileDescriptorSet.FromString(f.read()).file)


def upstream_files():
    """The FileDescriptorProtos reachable from the package's firestore.proto."""
    import google.cloud.firestore_v1.types as types
    from google.cloud.firestore_v1.types import firestore

    for module in pkgutil.iter_modules(types.__path__):
        importlib.import_module(types.__name__ + "." + module.name)
    root = firestore.GetDocumentRequest.pb(firestore.GetDocumentRequest()).DESCRIPTOR.file
    files, seen, stack = [], set(), [root]
    while stack:
        fd = stack.pop()
        if fd.name in seen:
            continue
        seen.add(fd.name)
        proto = descriptor_pb2.FileDescriptorProto()
        fd.CopyToProto(proto)
        files.append(proto)
        stack.extend(fd.dependencies)
    return files


def upstream_methods():
    """RPCs from the gRPC transport: name -> (input, output, client streaming, server streaming)."""
    from google.cloud.firestore_v1.services.firestore.transports import grpc as transport

    source = open(transport.__file__).read()
    pattern = re.compile(
        r"_channel\.(unary|stream)_(unary|stream)\(\s*"
        r'"/google\.firestore\.v1\.Firestore/(\w+)",\s*'
        r"request_serializer=(\w+)\.(\w+)\.serialize,\s*"
        r"response_deserializer=(\w+)\.(\w+)\.(?:deserialize|FromString),"
    )
    methods = {}
    for req_kind, resp_kind, name, req_mod, req_cls, resp_mod, resp_cls in pattern.findall(source):
        methods[name] = (
            message_name(getattr(getattr(transport, req_mod), req_cls)),
            message_name(getattr(getattr(transport, resp_mod), resp_cls)),
            req_kind == "stream",
            resp_kind == "stream",
        )
    if not methods:
        sys.exit("check-protos: found no RPCs in " + transport.__file__)
    return methods


def message_name(cls):
    """The full name of a proto-plus or generated protobuf message class."""
    if hasattr(cls, "pb"):
        return "." + cls.pb(cls()).DESCRIPTOR.full_name
    return "." + cls.DESCRIPTOR.full_name


# ---- Flattening to comparable tables --------------------------------------------------------


def plain_name(name):
    """proto-plus appends '_' to field names that are Python keywords (`from` -> `from_`)."""
    if name.endswith("_") and keyword.iskeyword(name[:-1]):
        return name[:-1]
    return name


def collect(files):
    """Maps full names of messages and enums (in PACKAGES) to their shapes."""
    messages, enums, services = {}, {}, {}

    def add_enum(prefix, e):
        enums[prefix + e.name] = {v.number: v.name for v in e.value}

    def add_message(prefix, m):
        full = prefix + m.name
        fields = {}
        for f in m.field:
            oneof = None
            if f.HasField("oneof_index") and not f.proto3_optional:
                oneof = m.oneof_decl[f.oneof_index].name
            fields[f.number] = (
                plain_name(f.name),
                LABEL_NAMES[f.label],
                TYPE_NAMES[f.type],
                f.type_name,
                oneof,
                f.proto3_optional,
            )
        messages[full] = {"fields": fields, "map_entry": m.options.map_entry}
        for e in m.enum_type:
            add_enum(full + ".", e)
        for n in m.nested_type:
            add_message(full + ".", n)

    for fd in files:
        if fd.package not in PACKAGES:
            continue
        prefix = "." + fd.package + "."
        for m in fd.message_type:
            add_message(prefix, m)
        for e in fd.enum_type:
            add_enum(prefix, e)
        for s in fd.service:
            for meth in s.method:
                services[meth.name] = (
                    meth.input_type,
                    meth.output_type,
                    meth.client_streaming,
                    meth.server_streaming,
                )
    return messages, enums, services


# ---- Comparison -----------------------------------------------------------------------------

FIELD_PARTS = ("name", "label", "type", "type_name", "oneof", "proto3_optional")

# Map fields Hearth declares as `repeated XEntry` with the entry message written out: the bytes on
# the wire are the same, and the generated Swift keeps every key instead of a [String: Value]
# dictionary, which would merge canonically equivalent Unicode keys (docs/decisions/0003-wire-protos.md).
DECLARED_ENTRIES = {
    ".google.firestore.v1.Document.FieldsEntry",
    ".google.firestore.v1.MapValue.FieldsEntry",
    ".google.firestore.v1.AggregationResult.AggregateFieldsEntry",
}


def compare(ours, theirs, our_rpcs, their_rpcs):
    problems = []
    our_msgs, our_enums, _ = ours
    their_msgs, their_enums, _ = theirs

    for name in sorted(set(their_msgs) - set(our_msgs)):
        problems.append(f"missing message {name}")
    for name in sorted(set(our_msgs) - set(their_msgs)):
        problems.append(f"extra message {name} (not in the published API)")
    for name in sorted(set(their_msgs) & set(our_msgs)):
        mine, theirs_m = our_msgs[name], their_msgs[name]
        # A map declared as its repeated entries (DECLARED_ENTRIES) is the same on the wire.
        declared = name in DECLARED_ENTRIES and theirs_m["map_entry"] and not mine["map_entry"]
        if mine["map_entry"] != theirs_m["map_entry"] and not declared:
            problems.append(f"{name}: map_entry {mine['map_entry']} != {theirs_m['map_entry']}")
        for number in sorted(set(theirs_m["fields"]) - set(mine["fields"])):
            problems.append(f"{name}: missing field {number} {theirs_m['fields'][number][0]}")
        for number in sorted(set(mine["fields"]) - set(theirs_m["fields"])):
            problems.append(f"{name}: extra field {number} {mine['fields'][number][0]}")
        for number in sorted(set(mine["fields"]) & set(theirs_m["fields"])):
            for part, a, b in zip(FIELD_PARTS, mine["fields"][number], theirs_m["fields"][number]):
                if a != b:
                    problems.append(f"{name} field {number}: {part} is {a!r}, published {b!r}")

    for name in sorted(set(their_enums) - set(our_enums)):
        problems.append(f"missing enum {name}")
    for name in sorted(set(our_enums) - set(their_enums)):
        problems.append(f"extra enum {name}")
    for name in sorted(set(their_enums) & set(our_enums)):
        if our_enums[name] != their_enums[name]:
            problems.append(f"enum {name}: {our_enums[name]} != published {their_enums[name]}")

    for name in sorted(set(their_rpcs) - set(our_rpcs)):
        problems.append(f"missing RPC {name}")
    for name in sorted(set(our_rpcs) - set(their_rpcs)):
        problems.append(f"extra RPC {name}")
    for name in sorted(set(their_rpcs) & set(our_rpcs)):
        if our_rpcs[name] != their_rpcs[name]:
            problems.append(f"RPC {name}: {our_rpcs[name]} != published {their_rpcs[name]}")
    return problems


def main():
    ours = collect(our_files())
    theirs = collect(upstream_files())
    their_rpcs = upstream_methods()
    problems = compare(ours, theirs, ours[2], their_rpcs)
    from google.cloud.firestore_v1 import gapic_version

    print(f"google-cloud-firestore {gapic_version.__version__}: "
          f"{len(theirs[0])} messages, {len(theirs[1])} enums, {len(their_rpcs)} RPCs published")
    fields = sum(len(m["fields"]) for m in theirs[0].values())
    print(f"compared {fields} fields of {len(theirs[0])} messages")
    if problems:
        for p in problems:
            print("  " + p)
        print(f"{len(problems)} difference(s)")
        return 1
    print("Hearth's protos match the published schema.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
