#!/usr/bin/env bash
# Refresh the vendored uPlot (chart library) from the npm registry.
#
#   bash src/anywrap/record/vendor/refresh.sh            # the version in UPLOT_VERSION
#   bash src/anywrap/record/vendor/refresh.sh 1.6.33     # another version
#
# Needs `npm` (for `npm pack`) and `tar`. Writes uPlot.iife.min.js,
# uPlot.min.css, LICENSE-uPlot.txt and UPLOT_VERSION beside this script.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${1:-$(cat "$here/UPLOT_VERSION")}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "uplot@$version" > /dev/null)
tar -xzf "$work/uplot-$version.tgz" -C "$work"
pkg="$work/package"
got="$(node -p "require('$pkg/package.json').version" 2>/dev/null || sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json" | head -1)"
if [ "$got" != "$version" ]; then
    echo "refresh.sh: asked for uplot $version, the package says $got" >&2
    exit 1
fi
if grep -qi '</script' "$pkg/dist/uPlot.iife.min.js"; then
    echo "refresh.sh: uPlot's build contains '</script', which cannot be inlined" >&2
    exit 1
fi
cp "$pkg/dist/uPlot.iife.min.js" "$here/uPlot.iife.min.js"
cp "$pkg/dist/uPlot.min.css" "$here/uPlot.min.css"
{
    echo "uPlot $version (https://github.com/leeoniya/uPlot), from the npm package uplot@$version."
    echo "Vendored by anywrap and inlined into every RecordHTML report."
    echo
    cat "$pkg/LICENSE"
} > "$here/LICENSE-uPlot.txt"
echo "$version" > "$here/UPLOT_VERSION"
echo "uPlot $version vendored into $here"
