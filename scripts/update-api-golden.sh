#!/usr/bin/env bash
# Rewrites tests/fixtures/api/raw_v1.descriptor.txt, the reviewed copy of the
# public API's descriptors. The API test fails while the proto files and this
# copy differ, so that every wire change is a deliberate, reviewed edit: run
# this script after changing proto/raw/v1 and commit both.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
protoc --descriptor_set_out="$tmp" -I proto proto/raw/v1/session.proto proto/raw/v1/event.proto \
  proto/raw/v1/raw_service.proto
protoc --decode=google.protobuf.FileDescriptorSet -I /usr/include google/protobuf/descriptor.proto \
  < "$tmp" > tests/fixtures/api/raw_v1.descriptor.txt
echo "updated tests/fixtures/api/raw_v1.descriptor.txt"
