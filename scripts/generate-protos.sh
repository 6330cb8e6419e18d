#!/usr/bin/env bash
# Regenerates Sources/FirestoreWire/Generated/*.swift from Hearth's own .proto files in
# Sources/FirestoreWire/Protos. Run it after changing a .proto file and commit the result; CI
# does not run it (the generated code is committed so builds need neither protoc nor plugins).
#
# Needs:
#   protoc                  Debian's protobuf-compiler (apt-get install protobuf-compiler), which
#                           also installs the google/protobuf/*.proto well-known types under
#                           /usr/include. Used here: libprotoc 3.21.12.
#   protoc-gen-swift        from apple/swift-protobuf (1.39.0 here), and
#   protoc-gen-grpc-swift-2 from grpc/grpc-swift-protobuf (2.4.1 here).
#                           Both are built by this script when missing: it clones
#                           https://github.com/grpc/grpc-swift-protobuf at $GRPC_SWIFT_PROTOBUF_TAG
#                           and builds both products in release mode there (protoc-gen-swift is a
#                           product of its swift-protobuf dependency). The first build takes
#                           several minutes.
#
# Environment:
#   HEARTH_PROTOC_PLUGINS   where the plugin checkout and build live
#                           (default: ${TMPDIR:-/tmp}/hearth-protoc-plugins)
#   HEARTH_SWIFT_LOCK       a lock file serialising Swift builds on a shared machine
#                           (default: /tmp/hearth-swift.lock; used when flock exists)
#
# After regenerating, check the protos still match the published schema:
#   scripts/check-protos.py  (see docs/decisions/0003-wire-protos.md)
set -euo pipefail

GRPC_SWIFT_PROTOBUF_TAG=2.4.1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
protos="$root/Sources/FirestoreWire/Protos"
generated="$root/Sources/FirestoreWire/Generated"
plugins="${HEARTH_PROTOC_PLUGINS:-${TMPDIR:-/tmp}/hearth-protoc-plugins}"
lock="${HEARTH_SWIFT_LOCK:-/tmp/hearth-swift.lock}"
bin="$plugins/.build/release"

command -v protoc >/dev/null || { echo "protoc not found: apt-get install protobuf-compiler" >&2; exit 1; }

wkt=""
for dir in /usr/include /usr/local/include; do
    if [[ -f "$dir/google/protobuf/timestamp.proto" ]]; then wkt="$dir"; break; fi
done
[[ -n "$wkt" ]] || { echo "google/protobuf/*.proto not found: apt-get install libprotobuf-dev" >&2; exit 1; }

swift_build() {
    if command -v flock >/dev/null; then
        flock "$lock" swift build "$@"
    else
        swift build "$@"
    fi
}

if [[ ! -x "$bin/protoc-gen-swift" || ! -x "$bin/protoc-gen-grpc-swift-2" ]]; then
    echo "Building protoc plugins from grpc-swift-protobuf $GRPC_SWIFT_PROTOBUF_TAG in $plugins"
    if [[ ! -d "$plugins/.git" ]]; then
        git clone --quiet --depth 1 --branch "$GRPC_SWIFT_PROTOBUF_TAG" \
            https://github.com/grpc/grpc-swift-protobuf "$plugins"
    fi
    (cd "$plugins" && swift_build -c release --product protoc-gen-grpc-swift-2 \
        && swift_build -c release --product protoc-gen-swift)
fi

echo "protoc: $(protoc --version)"
echo "protoc-gen-swift: $("$bin/protoc-gen-swift" --version)"
echo "protoc-gen-grpc-swift-2: $("$bin/protoc-gen-grpc-swift-2" --version 2>/dev/null || echo "$GRPC_SWIFT_PROTOBUF_TAG")"

cd "$protos"
mapfile -t files < <(find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort)

rm -f "$generated"/*.swift
mkdir -p "$generated"
# Messages for every file; service code only for files that declare a service (the gRPC
# plugin would write an empty file for each of the others).
mapfile -t services < <(grep -l '^service ' "${files[@]}")
protoc -I "$protos" -I "$wkt" \
    --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
    --swift_out="$generated" \
    --swift_opt=Visibility=Package,FileNaming=PathToUnderscores,UseAccessLevelOnImports=true \
    "${files[@]}"
protoc -I "$protos" -I "$wkt" \
    --plugin=protoc-gen-grpc-swift-2="$bin/protoc-gen-grpc-swift-2" \
    --grpc-swift-2_out="$generated" \
    --grpc-swift-2_opt=Visibility=Package,Server=true,Client=true,FileNaming=PathToUnderscores,UseAccessLevelOnImports=true \
    "${services[@]}"

echo "Generated $(ls "$generated" | wc -l) files in ${generated#"$root"/}"
