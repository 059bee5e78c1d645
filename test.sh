#!/usr/bin/env bash
# Runs every check proftop has: formatting, go vet, the tests with the race
# detector, and every fuzz target for a bounded time (FUZZTIME, default 20s).
set -euo pipefail
cd "$(dirname "$0")"

fuzztime=${FUZZTIME:-20s}

echo "== gofmt"
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './dist/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"
	echo "$unformatted"
	exit 1
fi

echo "== go mod tidy"
if ! tidy=$(go mod tidy -diff 2>&1); then
	echo "go.mod or go.sum is not tidy (run go mod tidy):"
	echo "$tidy"
	exit 1
fi

echo "== go vet"
go vet ./...

echo "== the committed agent jar is what its sources build"
(cd agent && go run ./internal/jarbuild -src java -out proftop-agent.jar -check)

echo "== go test -race"
# The agent's tests run real JVMs (Tomcat, H2, JDK 17 and 25) for many
# minutes under the race detector: more than go test's default 10 minutes.
go test -race -count=1 -timeout 45m ./...

echo "== fuzz targets, $fuzztime each"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | cut -d' ' -f2); do
		echo "-- $pkg $target"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done

echo "== all checks passed"
