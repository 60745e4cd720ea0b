#!/usr/bin/env bash
# dist.sh [OUT]: release archives of gem for each platform: gem_<version>_<os>_<arch>.tar.gz
# holding both binaries (gem and gem-engine: the front execs the engine beside it), the
# README, docs/ and the licence notice, plus SHA256SUMS. PLATFORMS limits the set (default
# linux/amd64 linux/arm64 darwin/amd64 darwin/arm64). Built with -trimpath, CGO off.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
platforms=${PLATFORMS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
ldflags="-s -w -X github.com/gemhost/gem/internal/buildinfo.Version=$version"
rm -rf "$out"
mkdir -p "$out"
for p in $platforms; do
  os=${p%/*} arch=${p#*/}
  name="gem_${version}_${os}_${arch}"
  stage="$out/$name"
  mkdir -p "$stage"
  for cmd in gem gem-engine; do
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$stage/$cmd" "./cmd/$cmd"
  done
  cp -R README.md docs "$stage/"
  tar -C "$out" -czf "$out/$name.tar.gz" "$name"
  rm -rf "$stage"
done
(cd "$out" && sha256sum -- *.tar.gz > SHA256SUMS)
echo "archives in $out:"
cat "$out/SHA256SUMS"
